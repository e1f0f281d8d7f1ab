package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/toolscope/toolscope/permission"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"toolscope": func() {
			os.Exit(exitCode(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr))
		},
	})
}

// TestScripts runs the CLI end to end from testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}

func TestUsageExitCodes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, ""},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"check"}, 2, "check needs --tool NAME --input JSON"},
		{[]string{"check", "--mode", "yolo", "--", "ls"}, 2, `unknown permission mode "yolo"`},
		{[]string{"check", "--allow", "Bash(x", "--", "ls"}, 2, "missing the closing ')'"},
		{[]string{"check", "--tool", "Nope", "--input", "{}"}, 2, "ToolNotFoundError"},
		{[]string{"call", "Read"}, 1, "file_path"},
		{[]string{"call", "--cwd", "/nonexistent-dir", "Read", "{}"}, 2, "not a directory"},
		{[]string{"tools", "--format", "gemini"}, 2, "unknown schema format"},
	} {
		var out, errb bytes.Buffer
		code := exitCode(run(context.Background(), tt.args, strings.NewReader(""), &out, &errb), &errb)
		if code != tt.code || !strings.Contains(errb.String()+out.String(), tt.msg) {
			t.Errorf("%v: exit %d, want %d; output %q, want %q", tt.args, code, tt.code, errb.String()+out.String(), tt.msg)
		}
	}
}

func TestPrompt(t *testing.T) {
	d := &permission.Decision{Message: "Permission required for Bash", Reason: "Mode: default",
		Suggestions: []permission.Rule{{Tool: "Bash", Content: "git push:*", Behavior: permission.Allow}}}
	for in, want := range map[string][2]bool{"y\n": {true, false}, "YES\n": {true, false}, "always\n": {true, true}, "a\n": {true, true}, "\n": {false, false}, "n\n": {false, false}, "": {false, false}} {
		var errb bytes.Buffer
		approve, always := prompt(strings.NewReader(in), &errb, "Bash", `{"command":"git push"}`, d)
		if approve != want[0] || always != want[1] {
			t.Errorf("answer %q: approve=%v always=%v", in, approve, always)
		}
		if !strings.Contains(errb.String(), "Allow? [y/N/always: adds Bash(git push:*)]") {
			t.Errorf("prompt text: %q", errb.String())
		}
	}
}

// TestCallAlwaysPersistsRule answers "always" at a (stand-in) terminal: the
// call runs, and the suggested rule lands in the state file, so the next call
// runs without asking, even without a terminal.
func TestCallAlwaysPersistsRule(t *testing.T) {
	defer func(f func(io.Reader) bool) { isTerminal = f }(isTerminal)
	isTerminal = func(io.Reader) bool { return true }
	dir := t.TempDir()
	state := filepath.Join(dir, "st.json")
	var out, errb bytes.Buffer
	args := []string{"call", "--cwd", dir, "--state", state, "Bash", `{"command":"touch a.txt"}`}
	if code := exitCode(run(context.Background(), args, strings.NewReader("always\n"), &out, &errb), &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal("the approved command did not run")
	}
	b, _ := os.ReadFile(state)
	if !strings.Contains(string(b), `"content": "touch a.txt:*"`) {
		t.Fatalf("rule not saved:\n%s", b)
	}
	isTerminal = func(io.Reader) bool { return false }
	args[len(args)-1] = `{"command":"touch a.txt b.txt"}`
	if code := exitCode(run(context.Background(), args, strings.NewReader(""), &out, &errb), &errb); code != 0 {
		t.Fatalf("second call, covered by the saved rule: exit %d: %s", code, errb.String())
	}
	// "n" at the terminal denies: exit 3, nothing runs.
	isTerminal = func(io.Reader) bool { return true }
	args[len(args)-1] = `{"command":"touch c.txt"}`
	if code := exitCode(run(context.Background(), args, strings.NewReader("n\n"), &out, &errb), &errb); code != 3 {
		t.Fatalf("denied at the prompt: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.txt")); err == nil {
		t.Fatal("a denied command ran")
	}
}

func TestCallNoTerminalSavesNoRule(t *testing.T) {
	dir := t.TempDir()
	state := dir + "/st.json"
	var out, errb bytes.Buffer
	// No terminal: exit 3 and nothing saved but the state.
	code := exitCode(run(context.Background(), []string{"call", "--cwd", dir, "--state", state, "Bash", `{"command":"touch a"}`}, strings.NewReader("always\n"), &out, &errb), &errb)
	if code != 3 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, _ := os.ReadFile(state)
	if strings.Contains(string(b), "touch") {
		t.Fatalf("rule saved without approval: %s", b)
	}
}
