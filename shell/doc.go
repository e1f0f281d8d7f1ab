// Package shell decides whether a Bash command written by an LLM agent may
// run. It is the security boundary of the Bash tool, so it fails closed: a
// command is allowed only when every simple command in it is proven
// harmless, and anything it cannot analyse becomes Ask.
//
// [Analyze] parses the command with mvdan.cc/sh (bash dialect) and returns
// an [Analysis] with a [Verdict] (Allow, Passthrough or Ask), the layer that
// decided, a message for the model, and one [Command] per simple command.
//
// # Whole-command layers
//
// These run first and stop the analysis with a bypass-immune Ask:
//
//   - reject: carriage returns (bash and the parser split words
//     differently on them), NUL and other control characters, non-ASCII
//     whitespace, zero-width and bidirectional characters, invalid UTF-8,
//     and commands longer than [Options.MaxLength];
//   - parse: a parse error. There is no regex fallback;
//   - limit: more than [Options.MaxCommands] simple commands;
//   - injection: anything whose effect depends on run-time evaluation:
//     command and process substitution, arithmetic, ${...} expansions,
//     extended globs, subshells and { } groups, if/for/while/until/case,
//     function definitions, [[ ]], [ and test, declare/export/local/let,
//     coproc, array assignments. A plain $VAR is allowed, but makes its word
//     non-literal.
//
// # Per-command layers
//
// Every simple command (the leaves of ; && || | & and newlines) is
// normalised first: words are unquoted by our own rules (backslashes,
// single and double quotes, $'...' decoding), brace expansions are expanded
// (a word on which bash and mvdan.cc/sh could disagree is refused), and cd
// is followed so later relative paths resolve correctly. Then, in order:
//
//  1. dangerous-pattern (immune Ask): rm with recursive and force in any
//     spelling, chmod granting world write or setuid, chown/chgrp -R, mkfs,
//     dd, fdisk, parted, wipefs, shred, kill -9 in any spelling, writes to
//     block devices and /dev/tcp. The check looks inside wrappers (sudo,
//     env, nice, timeout, xargs, find -exec, ...) and into the scripts of
//     sh -c, bash -c, eval, su -c, watch and here-documents fed to a shell;
//  2. removal (immune Ask): rm, rmdir or mv of /, ~, the home directory, a
//     direct child of / (also after cleaning /usr/../etc), *, and .../*;
//  3. sed (immune Ask): the reference sed constraints, on sed's own argv;
//  4. sensitive-path (immune Ask): writes to protected files and
//     directories ([DefaultDangerousFiles], [DefaultDangerousDirs]) through
//     file commands or redirections, and reads of secrets by any command
//     (.env*, SSH keys, ~/.aws, ~/.netrc, /proc/*/environ, /etc/shadow, ...);
//  5. read-only (Allow): the command name is bare (no "/"), no environment
//     assignment leads it, every argument is literal, it does not write
//     through a redirection (other than to /dev/null), and it passes its
//     tool's flag rules (git subcommands and options, find actions, rg
//     --pre, sort -o, date -s, GNU long-option abbreviations, ...);
//  6. accept-edits (Allow, only in the "accept_edits" and "dont_ask" modes):
//     every command of the chain is read-only or a file edit (mkdir, touch,
//     rm, rmdir, mv, cp, sed -i with s/// only, output redirections), there
//     is no cd or ln, and every path is inside a working directory after ~
//     expansion, cleaning and symlink resolution, compared by path
//     components;
//  7. passthrough: no opinion; the permission engine decides.
//
// The command's verdict is the most severe verdict of its simple commands,
// so one bad command in a chain is never hidden by harmless ones.
//
// # Residual risks
//
// Some read-only tools can still run code that the repository or the user
// configured outside the command: git runs core.fsmonitor, diff.external,
// textconv drivers and filters from .git/config; rg and jq read config
// files named by the environment. The analyser cannot see these. For
// untrusted repositories the runtime should run git with
// -c core.fsmonitor=false --no-ext-diff --no-textconv, or treat git as not
// read-only. Tools like python, node, make and awk run code the analyser
// does not inspect; they are never read-only, so they are never allowed
// without the permission engine's consent.
//
// # Rules
//
// [MatchRule] matches Claude-Code style rule contents ("git log:*",
// "npm install", "git * --oneline") per simple command, and [Suggestions]
// proposes prefix rules for a command the user approved.
package shell
