package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolscope/toolscope/internal/pathpolicy"
)

// DefaultHomeReads are the paths below a home directory a sandboxed
// command may read: toolchains, their caches and the settings builds
// need, none of which holds credentials. Everything else in the home
// directory (the credentials of tools no list could keep up with, other
// projects and their .env files, shell history, browser profiles) cannot
// be read. Config.AllowRead widens it; the working directories are always
// readable.
var DefaultHomeReads = []string{
	// Go: the module cache, installed commands, toolchains from
	// golang.org/dl. (GOCACHE points into the sandbox's own cache.)
	"go/pkg/mod", "go/bin", "sdk",
	// Node: version managers, global installs, package caches.
	".nvm", ".volta", ".fnm", ".bun/bin", ".bun/install/cache", ".deno", ".npm/_cacache", ".npm/_npx",
	".cache/yarn", ".yarn/berry/cache", ".cache/pnpm", ".local/share/pnpm", ".cache/node/corepack", ".cache/ms-playwright",
	// Rust: the registry, git checkouts and installed commands; toolchains.
	// (.cargo/credentials.toml is not among them.)
	".cargo/registry", ".cargo/git", ".cargo/bin", ".rustup/toolchains", ".rustup/settings.toml", ".rustup/update-hashes",
	// Python: interpreters and caches (not pip.conf, which can hold an
	// index's password).
	".pyenv", ".local/share/uv", ".cache/uv", ".cache/pip", ".cache/pypoetry", ".local/pipx",
	// Java and others.
	".gradle/caches", ".gradle/wrapper", ".m2/repository", ".sdkman/candidates", ".rbenv", ".asdf", ".local/share/mise",
	".cache/bazel", ".cache/golangci-lint",
	// Git's settings: user name, aliases, excludes (the credential store,
	// .git-credentials, is another file).
	".gitconfig",
}

// envReads are the toolchain directories the environment names: the
// variable's directory itself, or only the given directories below it
// (not CARGO_HOME's credentials, not GOPATH's sources).
var envReads = []struct {
	key   string
	below []string
}{
	{"GOMODCACHE", nil}, {"GOROOT", nil}, {"RUSTUP_HOME", nil}, {"PYENV_ROOT", nil}, {"NVM_DIR", nil},
	{"VOLTA_HOME", nil}, {"BUN_INSTALL", nil}, {"DENO_DIR", nil}, {"SDKMAN_DIR", nil}, {"ASDF_DIR", nil},
	{"CARGO_HOME", []string{"registry", "git", "bin"}},
	{"GRADLE_USER_HOME", []string{"caches", "wrapper"}},
	{"GOPATH", []string{"pkg/mod", "bin"}},
	// The command runs programs from its $PATH.
	{"PATH", nil},
}

// homeReads returns, for the home directories homes, the paths below them
// the command may read: DefaultHomeReads, the toolchain directories the
// environment names (GOMODCACHE, CARGO_HOME, ...), the absolute $PATH
// entries below a home (the command runs programs from there), and extra
// (Config.AllowRead). Paths that name a secret are left out, as is a home
// itself.
func homeReads(homes, extra, env []string) []string {
	if len(homes) == 0 {
		return nil
	}
	var out []string
	policy := pathpolicy.New(&pathpolicy.Options{Home: homes[0]})
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		if c, err := filepath.EvalSymlinks(p); err == nil {
			p = c
		}
		inHome := false
		for _, h := range homes {
			if p == h {
				return
			}
			inHome = inHome || pathpolicy.Within(p, h)
		}
		if !inHome || slices.Contains(out, p) {
			return
		}
		if secret, _ := policy.Spelling(p); secret {
			return
		}
		out = append(out, p)
	}
	for _, h := range homes {
		for _, r := range DefaultHomeReads {
			add(filepath.Join(h, r))
		}
	}
	for _, e := range envReads {
		for _, d := range pathpolicy.SplitPathList(envValue(env, e.key)) {
			if len(e.below) == 0 {
				add(d)
			}
			for _, b := range e.below {
				add(filepath.Join(d, b))
			}
		}
	}
	for _, p := range extra {
		add(p)
	}
	return out
}

// homesOf returns the home directories whose files a command cannot read:
// home (the command's HOME) and the password database's home of the
// current user, resolved, without "/" and without duplicates.
func homesOf(home string) []string {
	var out []string
	for _, h := range []string{home, passwdHome(os.Getuid())} {
		if h == "" || !filepath.IsAbs(h) {
			continue
		}
		c, err := filepath.EvalSymlinks(h)
		if err != nil || c == "/" || slices.Contains(out, c) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// passwdHome returns the home directory of uid in /etc/passwd, "" if it
// has none there.
func passwdHome(uid int) string {
	b, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return ""
	}
	id := strconv.Itoa(uid)
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, ":")
		if len(f) >= 7 && f[2] == id {
			return f[5]
		}
	}
	return ""
}
