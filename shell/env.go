package shell

import "github.com/toolscope/toolscope/shell/internal/hardenenv"

// The environments are made by package hardenenv.

// HardenEnv returns env (in os.Environ form) hardened for every command: git
// runs no fsmonitor hook and no pager, shows no signatures and takes no
// optional locks (git status then rewrites no index, and fires no
// post-index-change hook); npm neither checks for updates nor writes log
// files; CDPATH is emptied so that cd goes where it says. It is safe for
// writing commands too. With it, and Options.HardenedEnv set, the analyser
// counts git status, git log or npm ls as read-only.
//
// What no environment can switch off is checked in the repository's
// configuration instead: diff.external and diff.<driver>.command (an empty
// value makes git diff fail rather than run nothing),
// diff.<driver>.textconv, filter drivers, signature formats, include.path
// and core.worktree.
func HardenEnv(env []string) []string { return hardenenv.Base(env) }

// HardenEnvReadOnly is [HardenEnv] plus what only a read-only command can
// do without: git hooks and signing (gpg.program=false), Go's toolchain
// switching (GOTOOLCHAIN=local), pip's configuration files. Run the
// commands the analyser allowed ([Analysis.Verdict] Allow) with it: go
// version, go env and pip list are read-only only then (an allow rule that
// covers a command together with them makes it run with HardenEnv alone,
// so those need rules of their own; see Analysis.AllowedBy).
func HardenEnvReadOnly(env []string) []string { return hardenenv.ReadOnly(env) }
