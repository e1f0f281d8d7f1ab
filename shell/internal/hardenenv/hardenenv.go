// Package hardenenv makes the environments the Bash tool runs commands
// with: the variables and git settings that stop a project's
// configuration from making a read-only tool run code. Package shell
// exports them as HardenEnv and HardenEnvReadOnly, which document what
// they switch off; its analyser counts git, go, pip and npm commands as
// read-only only when they run with them.
package hardenenv

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Project configuration that makes read-only tools run code.
//
// git, pip, npm and go read configuration that the project (or a file an
// agent wrote) controls: a repository's .git/config can name an fsmonitor
// hook, a diff driver or a pager; a virtualenv's pip.conf can move pip's
// log file; go.mod can make go download and run another toolchain. The
// analyser treats these tools as read-only only when the command runs with
// the environment Base returns (shell.Options.HardenedEnv), which overrides
// what an environment can override, and it reads the repository's
// configuration for what no environment can override (diff and filter
// drivers, includes, a work tree elsewhere).

// envSet is a hardened environment: variables, and git settings given on
// git's "command line" through GIT_CONFIG_COUNT (they win over every
// configuration file).
type envSet struct {
	vars [][2]string
	git  [][2]string
}

// baseEnv is safe for every command, writes included: it only switches off
// what no command needs (fsmonitor, pagers, signature display, optional
// index refreshes, npm's update check and logs, CDPATH).
var baseEnv = envSet{
	vars: [][2]string{
		{"GIT_PAGER", "cat"}, {"PAGER", "cat"}, {"GIT_OPTIONAL_LOCKS", "0"}, {"GIT_TERMINAL_PROMPT", "0"},
		{"npm_config_update_notifier", "false"}, {"npm_config_logs_max", "0"}, {"CDPATH", ""},
	},
	git: [][2]string{{"core.fsmonitor", "false"}, {"core.pager", "cat"}, {"log.showSignature", "false"}},
}

// readOnlyEnv adds what would get in a writing command's way (git hooks and
// signing, Go's toolchain switching, pip's configuration files): it is for
// the commands the analyser allowed as read-only.
var readOnlyEnv = envSet{
	vars: append(append([][2]string(nil), baseEnv.vars...),
		[2]string{"GOTOOLCHAIN", "local"}, [2]string{"PIP_CONFIG_FILE", os.DevNull},
		[2]string{"PIP_DISABLE_PIP_VERSION_CHECK", "1"}, [2]string{"PIP_NO_INPUT", "1"}),
	git: append(append([][2]string(nil), baseEnv.git...),
		[2]string{"core.hooksPath", "/dev/null"}, [2]string{"gpg.program", "false"},
		[2]string{"gpg.openpgp.program", "false"}, [2]string{"gpg.ssh.program", "false"},
		[2]string{"gpg.x509.program", "false"}),
}

// Base returns env (in os.Environ form) with what every command may run
// with: shell.HardenEnv.
func Base(env []string) []string { return baseEnv.apply(env) }

// ReadOnly returns env with what a read-only command may run with:
// shell.HardenEnvReadOnly.
func ReadOnly(env []string) []string { return readOnlyEnv.apply(env) }

func (s envSet) apply(env []string) []string {
	set := map[string]bool{}
	for _, kv := range s.vars {
		set[kv[0]] = true
	}
	count := 0
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "GIT_CONFIG_COUNT="); ok {
			if n, ok := smallInt(v); ok {
				count = n
			}
		}
	}
	out := make([]string, 0, len(env)+len(s.vars)+2*len(s.git)+1)
	for _, e := range env {
		k, _, _ := strings.Cut(e, "=")
		if set[k] || k == "GIT_CONFIG_COUNT" {
			continue
		}
		// Entries at or beyond the count are ignored by git, but would
		// shadow ours (getenv takes the first of duplicate names): drop them.
		if n, ok := gitConfigIndex(k); ok && n >= count {
			continue
		}
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			e = "PATH=" + absolutePath(v)
		}
		out = append(out, e)
	}
	for _, kv := range s.vars {
		out = append(out, kv[0]+"="+kv[1])
	}
	for i, kv := range s.git {
		n := strconv.Itoa(count + i)
		out = append(out, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	return append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(count+len(s.git)))
}

// absolutePath drops the relative and empty entries of a PATH value ("",
// ".", "bin", "./node_modules/.bin"): they name directories of whatever
// directory a command runs in, so a file the command (or an earlier one)
// wrote there would run by name. The absolute entries stay, in order (the
// user configured them; the path policy protects them). A PATH left empty
// becomes /usr/bin:/bin, as an empty PATH means the current directory.
func absolutePath(v string) string {
	keep := true
	for _, d := range filepath.SplitList(v) {
		if !filepath.IsAbs(d) {
			keep = false
			break
		}
	}
	if keep && v != "" {
		return v
	}
	var out []string
	for _, d := range filepath.SplitList(v) {
		if filepath.IsAbs(d) {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return "/usr/bin:/bin"
	}
	return strings.Join(out, string(filepath.ListSeparator))
}

func gitConfigIndex(k string) (int, bool) {
	for _, p := range []string{"GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"} {
		if v, ok := strings.CutPrefix(k, p); ok {
			return smallInt(v)
		}
	}
	return 0, false
}

// smallInt parses a non-negative decimal below 100000.
func smallInt(s string) (int, bool) {
	if s == "" || len(s) > 5 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
