package builtin_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// outsideDir makes a directory next to the project (outside it).
func outsideDir(t *testing.T, e *env, name string) string {
	t.Helper()
	d := filepath.Join(filepath.Dir(e.root), filepath.Base(e.root)+"-"+name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func check(t *testing.T, e *env, name string, input any) *tool.Verdict {
	t.Helper()
	raw, _ := json.Marshal(input)
	v, err := e.tk.Check(context.Background(), &tool.Call{Name: name, Input: raw, State: e.st})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestReadOutsideAsks: reading outside the working directories asks (as
// Claude Code does), unless a Read rule or an additional directory allows
// it; harmless system files stay allowed.
func TestReadOutsideAsks(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	out := outsideDir(t, e, "out")
	f := filepath.Join(out, "notes.txt")
	os.WriteFile(f, []byte("n\n"), 0o644)
	inside := e.write("a.txt", "a\n")
	if v := check(t, e, "Read", readIn(inside)); v.Decision.Behavior != permission.Allow || !v.ReadOnly {
		t.Errorf("Read inside: %+v", v)
	}
	v := check(t, e, "Read", readIn(f))
	if v.Decision.Behavior != permission.Ask || v.ReadOnly || v.Decision.BypassImmune {
		t.Fatalf("Read outside: %+v", v.Decision)
	}
	if len(v.Decision.Suggestions) == 0 || v.Decision.Suggestions[0].String() != "Read(/"+out+"/**)" {
		t.Errorf("suggestion %v", v.Decision.Suggestions)
	}
	// The suggestion, added, lets the read through.
	e.st.AddRule(v.Decision.Suggestions[0])
	if v := check(t, e, "Read", readIn(f)); v.Decision.Behavior != permission.Allow {
		t.Errorf("Read with the suggested rule: %+v", v.Decision)
	}
	// A link in the project that leads outside is outside.
	os.Symlink(out, e.path("outlink"))
	e2 := newEnv(t, permission.Default, nil)
	os.Symlink(out, e2.path("outlink"))
	if v := check(t, e2, "Read", readIn(e2.path("outlink/notes.txt"))); v.Decision.Behavior == permission.Allow {
		t.Errorf("Read through a link out: %+v", v.Decision)
	}
	// Additional working directories are inside.
	e3 := newEnv(t, permission.Default, nil)
	pc := e3.st.Permissions()
	pc.WorkingDirs = []string{out}
	e3.st.SetPermissions(pc)
	if v := check(t, e3, "Read", readIn(f)); v.Decision.Behavior != permission.Allow {
		t.Errorf("Read in an additional directory: %+v", v.Decision)
	}
	// Harmless system files.
	for _, p := range []string{"/etc/os-release", "/usr/share/common-licenses/GPL-3", "/etc/hosts"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if v := check(t, e2, "Read", readIn(p)); v.Decision.Behavior != permission.Allow {
			t.Errorf("Read %s: %+v", p, v.Decision)
		}
	}
	if v := check(t, e2, "Read", readIn("/etc/passwd")); v.Decision.Behavior == permission.Allow {
		t.Errorf("Read /etc/passwd: %+v", v.Decision)
	}
	// Explore mode denies what would need a human.
	e4 := newEnv(t, permission.Explore, nil)
	if r := e4.call("Read", readIn(f)); r.Status != tool.StatusDenied {
		t.Errorf("explore Read outside: %s", r.Status)
	}
}

// TestSecretsEverywhere: one secret policy for Read, Grep, Glob, Write and
// Edit, on the path as written and where links lead.
func TestSecretsEverywhere(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	creds := outsideDir(t, e, "home")
	aws := filepath.Join(creds, ".aws")
	os.MkdirAll(aws, 0o700)
	os.WriteFile(filepath.Join(aws, "credentials"), []byte("aws_secret=SEKRIT\n"), 0o600)
	os.Symlink(aws, e.path("awslink"))
	e.write(".env", "TOKEN=SEKRIT\n")
	e.write(".env.example", "TOKEN=\n")
	e.write("deploy/id_rsa", "-----BEGIN SEKRIT-----\n")
	e.write("main.go", "package main // SEKRIT? no\n")
	// Names Read judges regardless of case, and keys by their suffix:
	// Grep once printed these lines, and Glob listed them.
	e.write("sub/.ENV", "TOKEN=SEKRIT\n")
	e.write("certs/server.KEY", "-----BEGIN SEKRIT-----\n")
	e.write("certs/tls.pem", "-----BEGIN SEKRIT-----\n")
	e.write("Home/.SSH/config", "IdentityFile SEKRIT\n")
	d := newEnv(t, permission.Default, nil)
	d.root = e.root
	d.tk = e.tk
	for _, c := range []struct {
		tool  string
		input map[string]any
	}{
		{"Read", readIn(e.path(".env"))},
		{"Read", readIn(e.path("awslink/credentials"))},
		{"Read", readIn(e.path("deploy/id_rsa"))},
		{"Read", readIn(e.path("sub/.ENV"))},
		{"Read", readIn(e.path("certs/server.KEY"))},
		{"Read", readIn(e.path("certs/tls.pem"))},
		{"Read", readIn(e.path("Home/.SSH/config"))},
		{"Write", map[string]any{"file_path": e.path(".env.local"), "content": "x"}},
		{"Write", map[string]any{"file_path": e.path("awslink/config"), "content": "x"}},
		{"Edit", map[string]any{"file_path": e.path(".env"), "old_string": "a", "new_string": "b"}},
		{"Grep", map[string]any{"pattern": "x", "path": e.path("awslink")}},
		{"Glob", map[string]any{"pattern": "*", "path": e.path("awslink")}},
		{"Glob", map[string]any{"pattern": e.path("awslink") + "/*"}},
		// The host process's own descriptors may be any file it has open.
		{"Read", readIn("/dev/fd/3")},
		{"Read", readIn("/dev/stdin")},
		{"Read", readIn("/dev/fd/0/../3")},
		{"Read", readIn("/proc/self/fd/0")},
		{"Read", readIn("/proc/1/fdinfo/0")},
		{"Write", map[string]any{"file_path": "/dev/stdout", "content": "x"}},
	} {
		v := check(t, d, c.tool, c.input)
		if v.Decision.Behavior != permission.Ask || !v.Decision.BypassImmune || v.ReadOnly {
			t.Errorf("%s %v: %+v read-only=%v; want a bypass-immune ask", c.tool, c.input, v.Decision, v.ReadOnly)
		}
	}
	if v := check(t, d, "Read", readIn(e.path(".env.example"))); v.Decision.Behavior != permission.Allow {
		t.Errorf(".env.example: %+v", v.Decision)
	}
	// Grep over the project never searches the secrets, in either engine
	// (bypass mode: nothing asks, the exclusions still hold).
	needRg(t)
	for _, engine := range []string{"rg", "go"} {
		g := builtin.NewGrep(&builtin.Options{Root: e.root, GrepEngine: engine})
		tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{g}})
		for _, mode := range []string{"content", "files_with_matches", "count"} {
			in, _ := json.Marshal(map[string]any{"pattern": "SEKRIT", "output_mode": mode})
			r, err := tk.Call(context.Background(), &tool.Call{Name: "Grep", Input: in, State: e.st})
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range []string{".env", ".ENV", "id_rsa", "aws", "credentials", "server.KEY", "tls.pem", ".SSH"} {
				if strings.Contains(r.Text(), bad) {
					t.Errorf("%s %s: Grep reached %s:\n%s", engine, mode, bad, r.Text())
				}
			}
			if !strings.Contains(r.Text(), "main.go") {
				t.Errorf("%s %s: Grep missed main.go:\n%s", engine, mode, r.Text())
			}
		}
	}
	// Nor does Glob list them.
	r := e.call("Glob", map[string]any{"pattern": "**/*"})
	for _, bad := range []string{".env", ".ENV", "id_rsa", "server.KEY", "tls.pem", ".SSH"} {
		if strings.Contains(r.Text(), bad) {
			t.Errorf("Glob listed %s:\n%s", bad, r.Text())
		}
	}
	if !strings.Contains(r.Text(), "main.go") {
		t.Errorf("Glob missed main.go:\n%s", r.Text())
	}
}

// TestWriteDotDotAfterLink: a/b/c/root/../x, with root a link up the tree,
// is above the project (the kernel resolves .. after the link), and Write
// must judge it so.
func TestWriteDotDotAfterLink(t *testing.T) {
	e := newEnv(t, permission.AcceptEdits, nil)
	os.MkdirAll(e.path("a/b/c"), 0o755)
	os.Symlink("../../..", e.path("a/b/c/root")) // the project root
	p := e.root + "/a/b/c/root/../ESCAPED"       // not filepath.Join: it would clean the .. away
	r := e.call("Write", map[string]any{"file_path": p, "content": "x"})
	if r.Status == tool.StatusSuccess {
		t.Fatal("Write through root/.. was allowed")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.root), "ESCAPED")); err == nil {
		t.Fatal("the file was written outside the project")
	}
	// Written inside through the same link, it is allowed.
	e.mustOK(e.call("Write", map[string]any{"file_path": e.path("a/b/c/root/sub.txt"), "content": "x"}))
	// Edit and Write judge a .git reached through another name.
	os.MkdirAll(e.path(".git"), 0o755)
	os.Symlink(".git", e.path("gl"))
	if v := check(t, e, "Write", map[string]any{"file_path": e.path("gl/config"), "content": "x"}); !v.Decision.BypassImmune {
		t.Errorf("gl/config with gl -> .git: %+v", v.Decision)
	}
}

// TestHugePaths: long paths are refused by the schema or judged quickly;
// they never allow anything.
func TestHugePaths(t *testing.T) {
	e := newEnv(t, permission.AcceptEdits, nil)
	long := e.root + strings.Repeat("/a", 40000)
	r := e.call("Write", map[string]any{"file_path": long, "content": "x"})
	if r.Status != tool.StatusError || !strings.Contains(r.Text(), "file_path") {
		t.Errorf("40000 components: %s %q", r.Status, r.Text())
	}
	deep := e.root + strings.Repeat("/a", 2000) // under the length cap
	if v := check(t, e, "Write", map[string]any{"file_path": deep, "content": "x"}); v.Decision.Behavior == permission.Deny {
		t.Errorf("deep path: %+v", v.Decision)
	}
}

// TestBashCompoundRules: a compound command passes when every simple
// command is read-only or allowed by some rule; exact rules match exactly.
func TestBashCompoundRules(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	for _, r := range []string{"Bash(git add:*)", "Bash(git commit:*)", "Bash(make:*)", "Bash(npm test)"} {
		rule, _ := permission.ParseRule(r)
		rule.Behavior = permission.Allow
		e.st.AddRule(rule)
	}
	for _, c := range []struct {
		cmd  string
		want permission.Behavior
	}{
		{"git add . && git commit -m x", permission.Allow},
		{"make | tail -5", permission.Allow},
		{"make && git status", permission.Allow},
		{"npm test", permission.Allow},
		{"npm test --watch && rm x", permission.Ask},
		{"npm test --watch", permission.Ask},
		{"python3 x.py npm test", permission.Ask},
		{"git add . && git push", permission.Ask},
		{"make; rm -rf ~", permission.Ask},
		{"make > ../out.txt", permission.Ask}, // writes outside the working directories
		{"make > build.log", permission.Allow},
		{"cd /tmp && make", permission.Ask}, // runs outside the working directories
	} {
		v := check(t, e, "Bash", map[string]any{"command": c.cmd})
		if v.Decision.Behavior != c.want {
			t.Errorf("%q: %s (%s), want %s", c.cmd, v.Decision.Behavior, v.Decision.Reason, c.want)
		}
	}
	// The suggestions of an ask, added as allow rules, let it through.
	for _, cmd := range []string{"npm run build && npm test --coverage", "find . -delete", "go test ./... | tail -3", "cargo build && ./target/x"} {
		f := newEnv(t, permission.Default, nil)
		v := check(t, f, "Bash", map[string]any{"command": cmd})
		if v.Decision.Behavior != permission.Ask || len(v.Decision.Suggestions) == 0 {
			t.Errorf("%q: %+v", cmd, v.Decision)
			continue
		}
		for _, s := range v.Decision.Suggestions {
			f.st.AddRule(s)
		}
		if v2 := check(t, f, "Bash", map[string]any{"command": cmd}); v2.Decision.Behavior != permission.Allow {
			t.Errorf("%q with %v: %+v", cmd, v.Decision.Suggestions, v2.Decision)
		}
	}
	// Approving find . -delete must not allow find . -exec rm.
	f := newEnv(t, permission.Default, nil)
	for _, s := range check(t, f, "Bash", map[string]any{"command": "find . -delete"}).Decision.Suggestions {
		f.st.AddRule(s)
	}
	if v := check(t, f, "Bash", map[string]any{"command": "find . -exec rm -f {} +"}); v.Decision.Behavior == permission.Allow {
		t.Errorf("find . -delete's suggestion allows find -exec: %+v", v.Decision)
	}
}

// BenchmarkCheckPaths times the permission check of Write and Read on paths
// of every size: a hostile 40,000-component path (refused by the schema), the
// deepest path the kernel accepts, and an ordinary one.
func BenchmarkCheckPaths(b *testing.B) {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: root})})
	st := tool.NewState(&permission.Context{Mode: permission.AcceptEdits})
	for _, c := range []struct{ name, path string }{
		{"hostile-40000", root + strings.Repeat("/a", 40000)},
		{"deep-2000", root + strings.Repeat("/a", 2000)},
		{"ordinary", root + "/src/main.go"},
	} {
		for _, name := range []string{"Write", "Read"} {
			in, _ := json.Marshal(map[string]any{"file_path": c.path, "content": "x"})
			if name == "Read" {
				in, _ = json.Marshal(map[string]any{"file_path": c.path})
			}
			b.Run(name+"/"+c.name, func(b *testing.B) {
				for b.Loop() {
					tk.Check(context.Background(), &tool.Call{Name: name, Input: in, State: st})
				}
			})
		}
	}
}

// TestFileSuggestionsNeverTooBroad: "always allow" for a file outside the
// project grants its directory, except where that would grant the whole
// file system, the home directory (which holds ~/.ssh) or an ancestor of
// the project: then the file alone.
func TestFileSuggestionsNeverTooBroad(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	out := outsideDir(t, e, "data")
	for _, c := range []struct {
		tool, path string
		exact      bool
	}{
		{"Write", "/toolscope-suggest-test", true},
		{"Write", filepath.Join(home, "notes.txt"), true},
		{"Read", filepath.Join(home, "notes.txt"), true},
		{"Write", filepath.Join(filepath.Dir(e.root), "x.txt"), true},
		{"Write", filepath.Join(out, "x.txt"), false},
	} {
		in := map[string]any{"file_path": c.path, "content": "x"}
		if c.tool == "Read" {
			in = readIn(c.path)
		}
		v := check(t, e, c.tool, in)
		if v.Decision.Behavior != permission.Ask || len(v.Decision.Suggestions) != 1 {
			t.Fatalf("%s %s: %+v", c.tool, c.path, v.Decision)
		}
		s := v.Decision.Suggestions[0]
		if broad := strings.Contains(s.Content, "**"); broad == c.exact {
			t.Errorf("%s %s suggests %s", c.tool, c.path, s)
		}
		e2 := newEnv(t, permission.Default, nil)
		e2.root, e2.tk = e.root, e.tk
		e2.st.AddRule(s)
		if v := check(t, e2, c.tool, in); v.Decision.Behavior != permission.Allow {
			t.Errorf("%s %s: the suggestion %s does not let it through: %+v", c.tool, c.path, s, v.Decision)
		}
	}
}
