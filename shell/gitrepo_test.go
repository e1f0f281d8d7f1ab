package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// requireProgram skips the test when prog is not installed, except in CI
// (CI set), where .ci/run installs it and its absence is a failure.
func requireProgram(t *testing.T, prog string) {
	t.Helper()
	if _, err := exec.LookPath(prog); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is required in CI: .ci/run installs it", prog)
		}
		t.Skipf("%s is not installed; install it to run this test", prog)
	}
}

// gitFixture is a directory with real repositories made by git itself.
type gitFixture struct {
	t    *testing.T
	root string
	home string
}

func newGitFixture(t *testing.T) *gitFixture {
	t.Helper()
	requireProgram(t, "git")
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &gitFixture{t: t, root: root, home: filepath.Join(root, "home")}
	f.mkdir("home")
	return f
}

func (f *gitFixture) path(p string) string { return filepath.Join(f.root, p) }

func (f *gitFixture) mkdir(p string) {
	f.t.Helper()
	if err := os.MkdirAll(f.path(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
}

func (f *gitFixture) write(p, content string) {
	f.t.Helper()
	f.mkdir(filepath.Dir(p))
	if err := os.WriteFile(f.path(p), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// git runs git in dir (relative to the fixture), with no user or system
// configuration.
func (f *gitFixture) git(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = f.path(dir)
	cmd.Env = append(os.Environ(), "HOME="+f.home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_ALLOW_PROTOCOL=file", "GIT_PROTOCOL_FROM_USER=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// repo makes a repository at dir with one commit of the given files.
func (f *gitFixture) repo(dir string, files map[string]string, args ...string) {
	f.t.Helper()
	f.mkdir(dir)
	f.git(dir, append([]string{"init", "-q", "-b", "main"}, args...)...)
	for p, c := range files {
		f.write(filepath.Join(dir, p), c)
	}
	f.git(dir, "add", "-A")
	f.git(dir, "commit", "-q", "-m", "init", "--allow-empty")
}

func (f *gitFixture) analyze(cwd, command string) *Analysis {
	return Analyze(command, &Options{Cwd: f.path(cwd), WorkingDirs: []string{f.path("proj")}, Home: f.home, HardenedEnv: true})
}

// expect checks the verdict of each command run in cwd.
func (f *gitFixture) expect(cwd string, want Verdict, immune bool, cmds ...string) {
	f.t.Helper()
	for _, c := range cmds {
		a := f.analyze(cwd, c)
		if a.Verdict != want || want == Ask && a.BypassImmune != immune {
			f.t.Errorf("%s in %s: %s (immune %v), want %s (immune %v): %s", c, cwd, a.Verdict, a.BypassImmune, want, immune, a.Reason)
		}
	}
}

// TestGitConfigAsGitReadsIt: configuration that git reads as a textconv
// driver is found however it is spelled, because git's own parser reads it.
func TestGitConfigAsGitReadsIt(t *testing.T) {
	for name, driver := range map[string]string{
		"bom":          "\xEF\xBB\xBF[diff \"x\"]\n\ttextconv = /bin/false\n",
		"two sections": "[core] [diff \"x\"] textconv = /bin/false\n",
		"continuation": "[diff \"x\"]\n\ttextconv = /bin/\\\nfalse\n",
		"subsection":   "[diff.x]\n\ttextconv = /bin/false\n",
		"uppercase":    "[DIFF \"x\"]\n\tTEXTCONV = /bin/false\n",
	} {
		t.Run(name, func(t *testing.T) {
			f := newGitFixture(t)
			f.repo("proj", map[string]string{"a.txt": "x\n", ".gitattributes": "*.txt diff=x\n"})
			cfg := f.path("proj/.git/config")
			old, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cfg, append([]byte(driver), old...), 0o644); err != nil {
				t.Fatal(err)
			}
			// git itself sees the driver:
			if out := f.git("proj", "config", "--file", cfg, "--list"); !strings.Contains(strings.ToLower(out), "diff.x.textconv") {
				t.Fatalf("git does not read the driver in this spelling: %q", out)
			}
			f.expect("proj", Passthrough, false, "git diff", "git log -p", "git show")
		})
	}
}

// TestGitSubmoduleConfig: git status looks into submodules and runs their
// filters; a submodule's ordinary core.worktree is fine.
func TestGitSubmoduleConfig(t *testing.T) {
	f := newGitFixture(t)
	f.repo("sub", map[string]string{"f.txt": "x\n"})
	f.repo("proj", map[string]string{"a.go": "package a\n"})
	f.git("proj", "-c", "protocol.file.allow=always", "submodule", "add", "-q", f.path("sub"), "sm1")
	f.git("proj", "commit", "-q", "-m", "sm")
	f.expect("proj", Allow, false, "git status", "git diff", "git log --oneline")

	f.git("proj", "config", "--file", f.path("proj/.git/modules/sm1/config"), "filter.x.clean", "/bin/false")
	f.expect("proj", Passthrough, false, "git status", "git diff")

	f.git("proj", "config", "--file", f.path("proj/.git/modules/sm1/config"), "--unset", "filter.x.clean")
	f.expect("proj", Allow, false, "git status")
	f.git("proj", "config", "--file", f.path("proj/.git/modules/sm1/config"), "core.worktree", f.root)
	f.expect("proj", Passthrough, false, "git status")
}

// TestGitDiscoverySkipsInvalidGitDirs: git ignores an empty .git
// directory and uses the repository above; so must the check.
func TestGitDiscoverySkipsInvalidGitDirs(t *testing.T) {
	f := newGitFixture(t)
	f.repo("proj", map[string]string{"a.txt": "x\n", ".gitattributes": "*.txt diff=x\n"})
	f.git("proj", "config", "diff.x.textconv", "/bin/false")
	f.mkdir("proj/src/.git")
	f.mkdir("proj/lib/objects")
	f.mkdir("proj/lib/refs")
	f.write("proj/lib/HEAD", "not a ref\n") // looks bare, but git skips it
	for _, c := range []string{"git -C src diff", "cd src && git diff", "git -C src log -p -1", "git -C lib diff"} {
		f.expect("proj", Passthrough, false, c)
	}
	f.expect("proj/src", Passthrough, false, "git diff")
}

// TestGitTrackedSecret: a repository that tracks .env prints it through
// any command that shows tracked content, whatever the path spelling.
func TestGitTrackedSecret(t *testing.T) {
	for _, format := range [][]string{nil, {"--object-format=sha256"}} {
		f := newGitFixture(t)
		f.repo("proj", map[string]string{".env": "API_KEY=x\n", "a.go": "package a\n", "docs/readme.md": "hi\n"}, format...)
		f.expect("proj", Ask, true, "git grep API_KEY", "git grep -e KEY -- '.e*'", "git log -p -- '.e*'", "git show",
			"git cat-file -p HEAD:.env", "git diff HEAD~0", "git blame a.go", "git log -p")
		f.expect("proj", Allow, false, "git log --oneline", "git status", "git ls-tree HEAD", "git log --stat")
		for _, v := range []string{"4", "3", "2"} {
			f.git("proj", "update-index", "--index-version", v)
			f.expect("proj", Ask, true, "git grep API_KEY")
		}
		f.git("proj", "rm", "-q", "--cached", ".env")
		f.expect("proj", Allow, false, "git grep API_KEY", "git show HEAD~0 -- a.go")
	}
}

// TestGitDiffImplicitNoIndex: with a path outside the repository, or
// outside any repository, git diff compares the paths like diff -r: a tree
// that holds a secret asks.
func TestGitDiffImplicitNoIndex(t *testing.T) {
	f := newGitFixture(t)
	f.repo("proj", map[string]string{"a.go": "package a\n"})
	f.write("proj/.env", "API_KEY=x\n") // untracked
	f.expect("proj", Ask, true, "git diff /usr/share .", "git diff --stat /usr/share .")
	f.expect("proj", Passthrough, false, "git diff ~ .") // ~ is outside
	// With "--" before them the two words are pathspecs: git refuses the
	// one outside the repository.
	f.expect("proj", Allow, false, "git diff", "git diff a.go", "git diff HEAD main", "git diff -- /usr/share .")
	f.mkdir("proj/plain")
	os.Rename(f.path("proj/.git"), f.path("proj/.git-away"))
	f.expect("proj", Ask, true, "git diff plain .")
}

// TestVersionFiles: a version manager's file may name a version, not a
// path to run.
func TestVersionFiles(t *testing.T) {
	f := newGitFixture(t)
	f.mkdir("proj/sub")
	f.write("proj/.python-version", "3.11.4\n")
	f.expect("proj/sub", Allow, false, "python3 --version")
	for _, bad := range []string{"../../../tmp/evil\n", "path:/tmp/evil\n", "3.11 ../x\n"} {
		f.write("proj/.python-version", bad)
		f.expect("proj/sub", Passthrough, false, "python3 --version", "node --version")
	}
	os.Remove(f.path("proj/.python-version"))
	f.write("proj/.tool-versions", "nodejs 20.1.0\npython 3.11.4 system\n")
	f.expect("proj", Allow, false, "node --version")
	f.write("proj/.tool-versions", "nodejs path:/opt/evil\n")
	f.expect("proj", Passthrough, false, "node --version")
}

// TestGitConfigProgramsAndFiles: configuration that makes a read-only
// git command run a program, fetch lazily, or read (and print) a file the
// command line never names.
func TestGitConfigProgramsAndFiles(t *testing.T) {
	for _, kv := range [][]string{
		{"remote.origin.uploadpack", "touch /tmp/x; false"},
		{"core.sshCommand", "touch /tmp/x"},
		{"core.alternateRefsCommand", "touch /tmp/x"},
		{"credential.helper", "!touch /tmp/x"},
		{"uploadpack.packObjectsHook", "touch /tmp/x"},
		{"core.gitProxy", "touch /tmp/x"},
		{"extensions.partialClone", "origin"},
		{"remote.origin.promisor", "true"},
		{"blame.ignoreRevsFile", "/etc/passwd"},
		{"mailmap.file", "/etc/passwd"},
	} {
		f := newGitFixture(t)
		f.repo("proj", map[string]string{"a.txt": "x\n"})
		f.expect("proj", Allow, false, "git log", "git blame a.txt")
		f.git("proj", "config", kv[0], kv[1])
		f.expect("proj", Passthrough, false, "git log", "git blame a.txt", "git status")
	}
}

// TestGitAlternates: objects/info/alternates makes git read, and print,
// the objects of another repository.
func TestGitAlternates(t *testing.T) {
	f := newGitFixture(t)
	f.repo("other", map[string]string{"secret.txt": "s\n"})
	f.repo("proj", map[string]string{"a.txt": "x\n"})
	f.repo("proj/vendored", map[string]string{"b.txt": "y\n"})
	alt := f.path("proj/.git/objects/info/alternates")
	f.write("proj/.git/objects/info/alternates", f.path("proj/vendored/.git/objects")+"\n")
	f.expect("proj", Allow, false, "git log", "git show HEAD")
	if err := os.WriteFile(alt, []byte(f.path("other/.git/objects")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.expect("proj", Passthrough, false, "git log", "git cat-file -p HEAD")
	os.Remove(alt)
	f.write("proj/.git/objects/info/http-alternates", "http://example.com/x\n")
	f.expect("proj", Passthrough, false, "git log")
}

// TestGitConfigReadScope: git config lists the user's and the system's
// configuration too, which may hold tokens; --local reads the
// repository's only.
func TestGitConfigReadScope(t *testing.T) {
	f := newGitFixture(t)
	f.repo("proj", nil)
	f.expect("proj", Passthrough, false, "git config -l", "git config --global --list", "git config --get-regexp url",
		"git config --get http.extraHeader", "git config get --all url.x.insteadof", "git config list")
	f.expect("proj", Allow, false, "git config --local -l", "git config --get user.name", "git config get user.email",
		"git config --file .git/config --list", "git config list --local")
}

// TestWildcardRulesSkipCodeOptions: Bash(git push:*) approved pushes, not
// the options that make git push run another program; an exact rule still
// passes exactly its command, and the suggestion for such a command is
// exact.
func TestWildcardRulesSkipCodeOptions(t *testing.T) {
	for _, tt := range []struct {
		rule, cmd string
		all       bool
	}{
		{"git push:*", "git push origin main", true},
		{"git push:*", "git push --receive-pack='touch /tmp/x #' . HEAD", false},
		{"git fetch:*", "git fetch --upload-pack=x .", false},
		{"git clone:*", "git clone -u x repo", false},
		{"git rebase:*", "git rebase -x 'make test' main", false},
		{"make test:*", "make test", true},
		{"make test:*", "make test --eval='$(shell id)'", false},
		{"make test:*", "make test CC='sh -c id'", false},
		{"make:*", "make -f /tmp/evil.mk", false},
		{"go test:*", "go test ./...", true},
		{"go test:*", "go test -toolexec=/tmp/x ./...", false},
		{"npm test:*", "npm test --script-shell=/tmp/x", false},
		{"git push --receive-pack=x . HEAD", "git push --receive-pack=x . HEAD", true},
		// Options and subcommands that run a command line the caller picks.
		{"git grep:*", "git grep -O'sh -c id' x", false},
		{"git grep:*", "git grep --open-files-in-pager=vi x", false},
		{"git grep:*", "git grep -n x", true},
		{"git submodule:*", "git submodule foreach 'rm -rf .'", false},
		{"git submodule:*", "git submodule update --init", true},
		{"git bisect:*", "git bisect run ./evil.sh", false},
		{"git clone:*", "git clone --template=/tmp/t repo", false},
		{"git:*", "git --exec-path=/tmp status", false},
		{"find:*", "find . -exec rm -f {} +", false},
		{"find:*", "find . -execdir sh -c x \\;", false},
		{"find:*", "find . -name '*.go'", true},
		{"find:*", "find . -delete", false},
		{"find:*", "find . -fprint /tmp/out", false},
		{"git log:*", "git log --output=/tmp/out", false},
		{"git log:*", "git log -p --ext-diff", false},
		{"ssh:*", "ssh -o ProxyCommand='sh -c id' host", false},
		{"ssh:*", "ssh -oProxyCommand=x host", false},
		{"ssh:*", "ssh -F ./cfg host", false},
		{"ssh:*", "ssh -o StrictHostKeyChecking=no host uptime", true},
		{"scp:*", "scp -S ./prog a host:b", false},
		{"tar:*", "tar -xf a.tar --to-command='sh -c id'", false},
		{"tar:*", "tar -cf a.tar --checkpoint=1 --checkpoint-action=exec=id .", false},
		{"tar:*", "tar -I 'sh -c id' -xf a.tar", false},
		{"tar:*", "tar -czf a.tgz src", true},
		{"rsync:*", "rsync -e 'sh -c id' a b:", false},
		{"rsync:*", "rsync --rsync-path='sh -c id' a b:", false},
		{"rsync:*", "rsync -av a b", true},
		{"sort:*", "sort --compress-program=sh a", false},
		{"rg:*", "rg --pre=sh x", false},
		{"zip:*", "zip -T -TT 'sh -c id' a.zip f", false},
		{"man:*", "man -P 'sh -c id' ls", false},
		// Abbreviated long options (getopt_long, git and npm take them).
		{"tar:*", "tar -xf a.tar --to-com='sh -c id'", false},
		{"sort:*", "sort --compress-prog=sh a", false},
		{"git push:*", "git push --receive-p=x . HEAD", false},
		{"npm test:*", "npm test --script-sh=/tmp/x", false},
	} {
		if all, _ := MatchRule(tt.rule, tt.cmd); all != tt.all {
			t.Errorf("MatchRule(%q, %q) = %v, want %v", tt.rule, tt.cmd, all, tt.all)
		}
		a := Analyze(tt.cmd, &Options{Cwd: t.TempDir(), HardenedEnv: true})
		if _, ok := a.AllowedBy([]string{tt.rule}); ok != tt.all && a.Verdict != Ask {
			t.Errorf("AllowedBy(%q) for %q = %v, want %v", tt.rule, tt.cmd, ok, tt.all)
		}
		if !tt.all {
			for _, s := range a.Suggestions() {
				if strings.Contains(s, "*") {
					t.Errorf("%q suggests the wildcard rule %q", tt.cmd, s)
				}
			}
		}
	}
}

// TestDenyRulesFailClosed: in bypass mode deny rules are the only guard; a
// command that may run the denied one without naming it first matches.
func TestDenyRulesFailClosed(t *testing.T) {
	for _, cmd := range []string{
		`trap "rm notes.txt" EXIT`, `rm${IFS}notes.txt`, `echo rm notes.txt | sh`, `chrt -o 0 rm notes.txt`,
		`runuser -u root -- rm notes.txt`, `git -c alias.r="!rm notes.txt" r`, `source <(echo rm notes.txt)`,
		`a=rm; $a notes.txt`, `parallel rm ::: x`, `nohup rm x &`, `xargs -I{} rm {}`,
	} {
		if _, any := MatchRule("rm:*", cmd); !any {
			t.Errorf("deny rule rm:* does not match %q", cmd)
		}
	}
	if _, any := MatchRule("git push:*", "git -c alias.p=push p origin HEAD"); !any {
		t.Error("deny rule git push:* does not match a git alias")
	}
	// Glob patterns that bash turns into the rule's words, in the command
	// name (which the parser may refuse: r[m] reads as an assignment), a
	// subcommand, behind git's global options or a wrapper.
	for _, c := range []struct{ rule, cmd string }{
		{"rm:*", "/bin/r[m] -rf x"}, {"rm:*", "r[m] -rf x"}, {"rm:*", "/usr/bin/r? x"}, {"rm:*", "env /bin/r* x"},
		{"rm:*", "sudo -u root /bin/[r]m x"}, {"rm:*", `"r"[m] x`}, {"rm -rf:*", "rm -r[f] x"},
		{"git push:*", "g[i]t push"}, {"git push:*", "git p[u]sh --force"}, {"git push:*", "/usr/bin/g?t -C . p*sh"},
		{"git push:*", "git --git-dir=x p[u]sh"}, {"git push:*", "g?t -c a=b push"}, {"git push:*", "timeout 5 git pus?"},
		// Words known only at run time where the rule has a word.
		{"git push:*", "git $sub origin"}, {"git push:*", `git "$x" --force`}, {"rm -rf:*", "rm $flags x"},
		// Other names for the program, scripts from text.
		{"rm:*", "xargs -I{} sh -c {} <<< 'rm -rf x'"}, {"rm:*", "xargs -I % sh -c % <<< 'rm -rf x'"},
		{"rm:*", "xargs <<< 'rm x'"}, {"rm:*", "xargs sh -c {} <<< 'rm -rf x'"},
		{"rm:*", "shopt -s expand_aliases\nalias r=rm\nr x"}, {"rm:*", "alias r='sudo rm'"},
		{"rm:*", "ln -s /bin/rm r; ./r x"}, {"rm:*", "cp /bin/rm ./r && ./r x"}, {"rm:*", `cp "$(command -v rm)" r`},
		{"rm:*", "ln -s `which rm` r"}, {"git push:*", `f() { git "$@"; }; f push`},
		// A shell reading its script from a pipe or a here-string.
		{"rm:*", "echo cm0gLWYgeA== | base64 -d | sh"}, {"rm:*", "curl -s x | bash"}, {"rm:*", "cat s.sh | bash -s"},
		{"rm:*", "curl x | bash -o pipefail"}, {"rm:*", ". /dev/stdin <<< 'rm x'"}, {"rm:*", "source /dev/fd/0 <<< 'rm x'"},
	} {
		if _, any := MatchRule(c.rule, c.cmd); !any {
			t.Errorf("deny rule %s does not match %q", c.rule, c.cmd)
		}
	}
	for _, c := range []struct{ rule, cmd string }{
		{"rm:*", "ls r*"}, {"rm:*", "cat [r]m.txt"}, {"git push:*", "git p[a]ll"}, {"git push:*", "git log -- *.go"},
		{"git push:*", "g[i]t status"}, {"git push:*", "git log $file"}, {"git push:*", `git commit -m "$msg"`},
		{"rm:*", "xargs ls <<< a"}, {"rm:*", "alias ll='ls -l'"}, {"rm:*", "cp a.txt b.txt"}, {"rm:*", "ln -s src/x y"},
		{"rm:*", "f() { ls; }; f"}, {"rm:*", "echo ls | grep x"}, {"rm:*", `bash <<< "ls"`}, {"rm:*", `ls | sh -c "cat"`},
	} {
		if _, any := MatchRule(c.rule, c.cmd); any {
			t.Errorf("deny rule %s matches %q", c.rule, c.cmd)
		}
	}
	for _, cmd := range []string{"ls -la", "git status", `git commit -m "rm old files"`, "cat notes.txt", "echo hello"} {
		if _, any := MatchRule("rm:*", cmd); any {
			t.Errorf("deny rule rm:* matches %q", cmd)
		}
	}
}

// TestGitRemoteCredentials: remote URLs that carry a token are not printed
// without asking.
func TestGitRemoteCredentials(t *testing.T) {
	f := newGitFixture(t)
	f.repo("proj", nil)
	f.git("proj", "remote", "add", "origin", "https://github.com/a/b.git")
	f.expect("proj", Allow, false, "git remote -v", "git remote get-url origin", "git config --local -l")
	f.git("proj", "remote", "set-url", "origin", "https://user:ghp_0123456789abcdef@github.com/a/b.git")
	f.expect("proj", Ask, true, "git remote -v", "git remote get-url origin", "git config --local -l", "git remote")
	f.expect("proj", Allow, false, "git status", "git log --oneline")
}
