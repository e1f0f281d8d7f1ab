package builtin_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

func needRg(t *testing.T) { requireProgram(t, "rg") }

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

func TestGlob(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	e.write("a.go", "")
	e.write("sub/b.go", "")
	e.write("sub/c.txt", "")
	e.write("ignored/d.go", "")
	e.write(".gitignore", "ignored/\n")
	os.Mkdir(e.path(".git"), 0o755)
	e.write(".git/e.go", "")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(e.path("a.go"), old, old)
	got := e.mustOK(e.call("Glob", map[string]any{"pattern": "**/*.go"}))
	if got != e.path("sub/b.go")+"\n"+e.path("a.go") {
		t.Fatalf("newest first, ignored and .git skipped:\n%s", got)
	}
	got = e.mustOK(e.call("Glob", map[string]any{"pattern": "*.{go,txt}", "path": e.path("sub")}))
	if lines := strings.Split(got, "\n"); len(lines) != 2 {
		t.Fatalf("braces: %q", got)
	}
	if got := e.mustOK(e.call("Glob", map[string]any{"pattern": "**/*.rs"})); got != "No files found matching pattern: **/*.rs" {
		t.Fatal(got)
	}
	e.mustErr(e.call("Glob", map[string]any{"pattern": "*", "path": e.path("nope")}), "Directory not found: "+e.path("nope"))
	for i := range 130 {
		e.write(fmt.Sprintf("many/f%03d.md", i), "")
	}
	got = e.mustOK(e.call("Glob", map[string]any{"pattern": "many/*.md"}))
	lines := strings.Split(got, "\n")
	if len(lines) != 101 || lines[100] != "(Results are truncated: showing the 100 most recently modified of 130 files. Use a more specific path or pattern.)" {
		t.Fatalf("truncation: %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

// TestGrepEnginesAgree runs the Grep tool with each engine on one tree.
func TestGrepEnginesAgree(t *testing.T) {
	needRg(t)
	var outs [2]map[string]string
	for i, engine := range []string{"rg", "go"} {
		e := newEnv(t, permission.Default, &builtin.Options{GrepEngine: engine})
		e.write("main.go", "package main\n\nfunc main() {\n\tprintln(\"Hello\")\n}\n")
		e.write("lib/util.go", "package lib\n\n// hello helper\nfunc Hello() string { return \"hello\" }\n")
		e.write("notes.md", "Say HELLO to everyone\n")
		e.write("vendor.log", "hello from a log\n")
		e.write(".gitignore", "*.log\n")
		os.Mkdir(e.path(".git"), 0o755)
		outs[i] = map[string]string{}
		for _, q := range []map[string]any{
			{"pattern": "hello"},
			{"pattern": "hello", "-i": true, "output_mode": "content"},
			{"pattern": "hello", "-i": true, "output_mode": "count"},
			{"pattern": "func \\w+", "output_mode": "content", "-C": 1, "type": "go"},
			{"pattern": "Hello", "glob": "*.go", "output_mode": "content", "-n": false},
			{"pattern": "nothing-matches-this"},
		} {
			r := e.call("Grep", q)
			text := strings.ReplaceAll(e.mustOK(r), e.root, "ROOT")
			lines := strings.Split(text, "\n")
			slices.Sort(lines)
			outs[i][fmt.Sprint(q)] = strings.Join(lines, "\n")
		}
		e.mustErr(e.call("Grep", map[string]any{"pattern": "a(b"}), wantRegexErr(t, e))
	}
	for q, rg := range outs[0] {
		if goOut := outs[1][q]; goOut != rg {
			t.Errorf("query %s:\nrg:\n%s\ngo:\n%s", q, rg, goOut)
		}
	}
	if !strings.Contains(outs[0]["map[-i:true output_mode:count pattern:hello]"], "ROOT/notes.md:1") {
		t.Errorf("count output: %q", outs[0]["map[-i:true output_mode:count pattern:hello]"])
	}
}

// wantRegexErr checks the invalid-regex error and returns it (engines word it
// differently; both must name the problem).
func wantRegexErr(t *testing.T, e *env) string {
	r := e.call("Grep", map[string]any{"pattern": "a(b"})
	if r.Status != tool.StatusError || !strings.Contains(strings.ToLower(r.Text()), "unclosed") && !strings.Contains(strings.ToLower(r.Text()), "missing") {
		t.Errorf("invalid regex: %q", r.Text())
	}
	return r.Text()
}

// Grep takes AgentScope's parameter names n and i as well as -n and -i.
func TestGrepAgentScopeNames(t *testing.T) {
	for _, engine := range []string{"go", "rg"} {
		if engine == "rg" {
			needRg(t)
		}
		e := newEnv(t, permission.Default, &builtin.Options{GrepEngine: engine})
		e.write("a.txt", "Alpha\nbeta\n")
		got := e.mustOK(e.call("Grep", map[string]any{"pattern": "alpha", "output_mode": "content", "i": true, "path": e.root}))
		if !strings.Contains(got, ":1:Alpha") {
			t.Errorf("%s, i=true: %q", engine, got)
		}
		got = e.mustOK(e.call("Grep", map[string]any{"pattern": "beta", "output_mode": "content", "n": false, "path": e.root}))
		if strings.Contains(got, ":2:") || !strings.Contains(got, "beta") {
			t.Errorf("%s, n=false: %q", engine, got)
		}
	}
}
