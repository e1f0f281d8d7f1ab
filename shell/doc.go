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
//   - injection: what the analyser does not model: arithmetic ($((..)),
//     ((..)), let, and [[ ]] comparisons or -v, which evaluate values as
//     arithmetic), parameter expansions other than $NAME and ${NAME},
//     extended globs, function definitions, declare/export/local,
//     coprocesses, array assignments, C-style and select loops.
//
// # The walk
//
// Everything else is walked as the shell would run it (walk.go): pipelines,
// lists, groups, subshells, if/while/until/for/case, [[ ]], command and
// process substitutions (their commands are simple commands of the whole:
// echo "$(date)" is read-only because date is). For each simple command the
// walk knows the redirections in force (its own and its enclosing
// compounds'), the loop variables in scope (for f in *.go binds $f to the
// glob), and the working directory: cd is followed with bash's logical
// semantics (cd link/.. goes back where the link is), and when a cd may or
// may not have happened (false && cd x; cd in a pipeline or a loop; cd -,
// ~-, CDPATH) the directory is unknown and relative paths are judged
// unknown.
//
// # Per-command layers
//
// Words are unquoted by our own rules (backslashes, quotes, $'...'), brace
// expansions are expanded (a word on which bash and mvdan.cc/sh could
// disagree is refused), and globs keep bash's meaning (package
// internal/bashglob: [!x], [^x], classes, leading dots). Then, in order:
//
//  1. dangerous-pattern (immune Ask): rm with recursive and force in any
//     spelling, chmod granting world write or setuid, chown/chgrp -R, mkfs,
//     dd, fdisk, parted, wipefs, shred, kill -9 in any spelling, writes to
//     block devices and /dev/tcp. The check looks inside wrappers (sudo,
//     env, nice, timeout, xargs, find -exec, ...) and into the scripts of
//     sh -c, bash -c, eval, su -c, watch and here-documents fed to a shell;
//  2. removal (immune Ask): rm, rmdir or mv of /, ~, the home directory, a
//     direct child of / (also after cleaning /usr/../etc, and where links
//     lead), and globs that match every name of a directory (*, ?*, [!.]*);
//  3. sed (immune Ask): the reference sed constraints, on sed's own argv;
//  4. sensitive-path (immune Ask): every path is judged by package
//     internal/pathpolicy, as written and where the kernel would resolve it
//     (links, and ".." after a link, which goes to the parent of its
//     target): writes to protected places (.git, shell start-up files, a
//     committed bare repository's config or hooks), reads of secrets by any
//     command (~/.ssh, ~/.aws, ~/.config/gh, .env, /proc/*/environ, ...),
//     what a recursive copy or move brings in (cp -r tmpl/. . with
//     tmpl/.git), the backups sed -i writes, and a redirection that reopens
//     a descriptor for writing (echo x 1<~/.bashrc >>/dev/stdout);
//  5. read-only (Allow): the command is a read-only tool whose options are
//     all read-only (tables checked against each program's --help, accept
//     lists, GNU abbreviations, bundled short options, tree's and xxd's own
//     parsers), its arguments are literal (echo and printf may print
//     variables that cannot hold a secret), and everything it reads lies in
//     a working directory or among the harmless system paths: operands and
//     option values that name files, input redirections, globs (expanded
//     with bash's rules, and never to a word that starts with "-"), and,
//     for recursive readers (grep -r, rg, diff -r), the whole tree, which
//     must hold no secret (rg skips hidden files unless asked). A command
//     that runs after one that may change the filesystem's layout (a link
//     created, a tree moved, a checkout) reads paths that are unknown;
//  6. accept-edits (Allow, only in the "accept_edits" and "dont_ask" modes):
//     every command of the chain is read-only or a file edit (mkdir, touch,
//     rm, rmdir, mv, cp, sed -i with s/// only, output redirections), no
//     command creates a link, and every path is inside a working directory
//     once resolved;
//  7. passthrough: no opinion; the permission engine decides.
//
// The command's verdict is the most severe verdict of its simple commands,
// so one bad command in a chain is never hidden by harmless ones.
//
// # Project configuration
//
// git, go, pip and npm read configuration the project controls, which can
// make them run code: a repository's fsmonitor and other hooks, diff and
// filter drivers, pagers; go.mod's toolchain; a virtualenv's pip.conf;
// .npmrc. They are read-only only under two conditions. First, the command
// runs with the environment [HardenEnvReadOnly] returns
// ([Options.HardenedEnv] says it will), which switches off what an
// environment can switch off: git's fsmonitor, hooks (core.hooksPath),
// pager, signature programs and optional index writes through
// GIT_CONFIG_COUNT; GOTOOLCHAIN=local; PIP_CONFIG_FILE=/dev/null; npm's logs
// and update check; CDPATH. Second, the repository's own configuration sets
// nothing else that runs code (diff.<driver>.textconv and .command, filter
// drivers, include.path, core.worktree, diff.external), the repository lies
// in a working directory, and no rust-toolchain file or project .npmrc
// chooses what runs. Without HardenedEnv, git status and the like are
// passed to the permission engine.
//
// The Bash tool of package builtin runs a command the analyser allowed with
// [HardenEnvReadOnly], and any other command (one a rule or the user
// allowed: git commit must run its hooks) with [HardenEnv], which only
// switches off what no command needs (fsmonitor, pagers, optional locks,
// npm's update check, CDPATH). That is why a rule that allows a compound
// command together with git status makes git status need a rule of its own
// ([Analysis.AllowedBy]).
//
// # Rules
//
// [MatchRule] matches Claude Code rule contents per simple command, with
// the command's quoting semantics on both sides: "npm test" is exactly that
// command, "git log:*" and "git log *" are word-boundary prefixes, "*" is
// any text. Deny and ask rules match any simple command, also inside
// wrappers and scripts; [Analysis.AllowedBy] passes a compound when every
// simple command is allowed on its own (read-only, allowed by accept_edits,
// or matched by some allow rule), and [Analysis.Grants] says what allowed
// each; and
// [Analysis.Suggestions] proposes the rules that would let a command
// through, never broader than a subcommand ("git push:*") and exact for
// everything else (find . -delete does not become find .:*).
package shell
