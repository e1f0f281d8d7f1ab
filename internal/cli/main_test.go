package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/sandbox"
)

func TestMain(m *testing.M) {
	// Tests never ask the terminal of whoever runs them.
	openTTY = func() (io.ReadWriteCloser, error) { return nil, errors.New("no terminal in tests") }
	if os.Getenv("TOOLSCOPE_TEST_AS_CLI") == "1" {
		// The test binary as the CLI, for tests that run several at once.
		os.Exit(exitCode(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr))
	}
	testscript.Main(cleanup{m}, map[string]func(){
		"toolscope": func() {
			os.Exit(exitCode(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr))
		},
		"mcpserver": mcpServerMain,
	})
}

// cleanup runs the tests, then removes the CLI binary buildCLI built.
type cleanup struct{ m *testing.M }

func (c cleanup) Run() int {
	code := c.m.Run()
	if lean.dir != "" {
		os.RemoveAll(lean.dir)
	}
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	return code
}

// TestScripts runs the CLI end to end from testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script", Setup: func(e *testscript.Env) error {
		// A scripted Chat Completions server for run and chat: it answers
		// the Nth request with line N of answers.jsonl in the script's
		// directory ($WORK in it is the directory).
		srv := httptest.NewServer(&scriptedChat{dir: e.WorkDir})
		e.Defer(srv.Close)
		e.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
		e.Setenv("OPENAI_API_KEY", "test")
		e.Setenv("TOOLSCOPE_MODEL", "openai:scripted")
		// A home of the script's own that does not exist yet (testscript's
		// /no-home is shared, and as root toolscope would make it and keep
		// its seal key and sandbox cache there for every later run, and
		// for every user, who then cannot read it).
		home, err := os.MkdirTemp("", "home")
		if err != nil {
			return err
		}
		e.Defer(func() { os.RemoveAll(home) })
		e.Setenv("HOME", filepath.Join(home, "none"))
		return nil
	}, Condition: func(cond string) (bool, error) {
		if cond != "sandbox" {
			return false, fmt.Errorf("unknown condition %q", cond)
		}
		// [sandbox]: the OS sandbox confines commands here. In CI it must.
		sb, err := sandbox.New(nil)
		if err != nil {
			return false, err
		}
		st, err := sb.Status(context.Background())
		if (err != nil || !st.Confines()) && os.Getenv("CI") != "" {
			return false, fmt.Errorf("the OS sandbox does not confine commands on this CI machine (%v): %s", err, st)
		}
		return err == nil && st.Confines(), nil
	}})
}

func TestUsageExitCodes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{nil, 2, ""},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"worker", "--temporal", "x"}, 2, "worker runs agents on Temporal, which this build leaves out"},
		{[]string{"approve", "wf", "c1"}, 2, "cd temporal && go run ./cmd/toolscope approve"},
		{[]string{"run", "--temporal", "127.0.0.1:7233", "--task-queue", "q", "hi"}, 2, "cd temporal && go run ./cmd/toolscope run"},
		{[]string{"check"}, 2, "check needs --tool NAME --input JSON"},
		{[]string{"check", "--mode", "yolo", "--", "ls"}, 2, `unknown permission mode "yolo"`},
		{[]string{"check", "--allow", "Bash(x", "--", "ls"}, 2, "missing the closing ')'"},
		{[]string{"check", "--tool", "Nope", "--input", "{}"}, 2, "ToolNotFoundError"},
		{[]string{"call", "Read"}, 2, `missing required field "file_path"`},
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

// A wrong mcpServers entry is a usage error (2) naming the file, the
// server and the problem; an unreachable server is a tool error (1).
func TestMCPConfigExitCodes(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		cfg, msg string
		code     int
		args     []string
	}{
		{`{"mcpServers": {"web": {"type": "http"}}}`, `mcpServers.web: a server of type http needs "url"`, 2, []string{"tools"}},
		{`{"mcpServers": {"s": {"command": "x", "timeout": -1}}}`, `mcpServers.s: "timeout" must be a number of seconds`, 2, []string{"tools"}},
		{`{"mcpServers": {"s": {"url": "http://h", "enableTools": ["a"], "disableTools": ["a"]}}}`, `tool "a" is both enabled and disabled`, 2, []string{"tools"}},
		{`{"mcpServers": {"gone": {"command": "/nonexistent/server"}}}`, `MCP server "gone" is unavailable`, 1, []string{"call", "mcp__gone__x", "{}"}},
	} {
		f := filepath.Join(dir, "cfg.json")
		if err := os.WriteFile(f, []byte(tt.cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		args := append([]string{tt.args[0], "--config", f}, tt.args[1:]...)
		code := exitCode(run(context.Background(), args, strings.NewReader(""), &out, &errb), &errb)
		if code != tt.code || !strings.Contains(errb.String(), tt.msg) || !strings.Contains(errb.String(), f) && tt.code == 2 {
			t.Errorf("%s: exit %d (want %d); stderr %q, want %q and the file's name", tt.cfg, code, tt.code, errb.String(), tt.msg)
		}
	}
}

// A mode toolscope does not know ("auto" in some projects' settings) is a
// warning, and the file's rules still apply, in the mode it would have
// without it.
func TestUnknownModeWarns(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg.json")
	os.WriteFile(cfg, []byte(`{"permissions": {"defaultMode": "auto", "deny": ["Bash(rm:*)"]}}`), 0o644)
	var out, errb bytes.Buffer
	code := exitCode(run(context.Background(), []string{"check", "--cwd", dir, "--config", cfg, "--", "rm x"}, strings.NewReader(""), &out, &errb), &errb)
	if code != 0 || !strings.Contains(errb.String(), `permissions.defaultMode: unknown permission mode "auto"`) || !strings.Contains(errb.String(), "ignored") || !strings.Contains(out.String(), `"behavior":"deny"`) {
		t.Errorf("exit %d; stdout %s; stderr %s", code, out.String(), errb.String())
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
	if !strings.Contains(string(b), `"content": "touch a.txt`) || !strings.Contains(string(b), `"source": "suggested"`) {
		t.Fatalf("rule not saved:\n%s", b)
	}
	isTerminal = func(io.Reader) bool { return false }
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

// goWording matches the texts of Go's JSON decoder and flag package, which
// must not reach users.
var goWording = regexp.MustCompile(`(^|\s)json: |Go struct|Go value|cannot unmarshal|flag provided but not defined|UnmarshalJSON`)

// TestSameErrorSameExitCode runs check and call with the same mistake: both
// exit 2 (usage), with a message that names it, and call runs nothing.
func TestSameErrorSameExitCode(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	settings := write("settings.json", `{"permissions":{"allow":["Bash(ls)"]},"env":{}}`)
	badJSON := write("bad.json", `{"permissions":`)
	badType := write("type.json", `{"permissions":{"deny":"Bash"}}`)
	touch := `{"command":"touch ran"}`
	for _, tt := range []struct {
		name        string
		check, call []string // the arguments after the command
		stdin       string
		msg         string
	}{
		{"unknown tool", []string{"--tool", "Nope", "--input", "{}"}, []string{"Nope", "{}"}, "", "ToolNotFoundError: The tool named 'Nope' doesn't exist."},
		{"invalid JSON input", []string{"--tool", "Bash", "--input", `{"command":`}, []string{"Bash", `{"command":`}, "", "Invalid JSON input for tool 'Bash'"},
		{"invalid JSON on stdin", []string{"--tool", "Bash", "--input", "-"}, []string{"Bash", "-"}, `{"command":`, "Invalid JSON input for tool 'Bash'"},
		{"input of the wrong type", []string{"--tool", "Bash", "--input", `{"command":3}`}, []string{"Bash", `{"command":3}`}, "", `field "command" must be a string, not an integer (3)`},
		{"input missing a field", []string{"--tool", "Bash", "--input", `{}`}, []string{"Bash", `{}`}, "", `missing required field "command"`},
		{"input not an object", []string{"--tool", "Bash", "--input", `["touch ran"]`}, []string{"Bash", `["touch ran"]`}, "", "must be a JSON object, not an array"},
		{"bad --mode", []string{"--mode", "yolo", "--", "touch ran"}, []string{"--mode", "yolo", "Bash", touch}, "", `--mode: unknown permission mode "yolo"`},
		{"bad rule flag", []string{"--allow", "Bash(x", "--", "touch ran"}, []string{"--allow", "Bash(x", "Bash", touch}, "", `--allow: parse rule "Bash(x": missing the closing ')'`},
		{"bad --cwd", []string{"--cwd", filepath.Join(dir, "nope"), "--", "touch ran"}, []string{"--cwd", filepath.Join(dir, "nope"), "Bash", touch}, "", "not a directory"},
		{"--config missing", []string{"--config", filepath.Join(dir, "nope.json"), "--", "touch ran"}, []string{"--config", filepath.Join(dir, "nope.json"), "Bash", touch}, "", "cannot read it: no such file or directory"},
		{"--config not JSON", []string{"--config", badJSON, "--", "touch ran"}, []string{"--config", badJSON, "Bash", touch}, "", "not valid JSON: unexpected end of JSON input"},
		{"--config of the wrong type", []string{"--config", badType, "--", "touch ran"}, []string{"--config", badType, "Bash", touch}, "", `field "permissions.deny" must be an array of rules`},
		{"--state not a state", []string{"--state", settings, "--", "touch ran"}, []string{"--state", settings, "Bash", touch}, "", "is not a toolscope state file"},
		{"--state a directory", []string{"--state", dir, "--", "touch ran"}, []string{"--state", dir, "Bash", touch}, "", "is a directory"},
		{"unknown flag", []string{"--frob", "--", "touch ran"}, []string{"--frob", "Bash", touch}, "", "unknown flag --frob"},
		{"flag without its value", []string{"--tool", "Bash", "--input", touch, "--mode"}, []string{"Bash", touch, "--mode"}, "", "flag --mode needs a value"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			codes := map[string]int{}
			for cmd, args := range map[string][]string{"check": tt.check, "call": tt.call} {
				args = append([]string{cmd, "--cwd", dir, "--yes"}, args...)
				if cmd == "check" {
					args = slices.Delete(args, 3, 4) // check has no --yes
				}
				if slices.Contains(args, filepath.Join(dir, "nope")) {
					args = slices.Delete(args, 1, 3) // the bad --cwd is the one under test
				}
				var out, errb bytes.Buffer
				codes[cmd] = exitCode(run(context.Background(), args, strings.NewReader(tt.stdin), &out, &errb), &errb)
				if !strings.Contains(errb.String(), tt.msg) {
					t.Errorf("%s: stderr %q, want %q", cmd, errb.String(), tt.msg)
				}
				if goWording.MatchString(errb.String()) {
					t.Errorf("%s: Go's wording in %q", cmd, errb.String())
				}
			}
			if codes["check"] != 2 || codes["call"] != 2 {
				t.Errorf("exit codes: check %d, call %d; want 2 and 2", codes["check"], codes["call"])
			}
			if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
				t.Fatal("call ran the command")
			}
		})
	}
}

// TestHintFlagsLetTheCallThrough: the --allow flags that call's no-terminal
// message proposes do let the same call run (compound commands included).
func TestHintFlagsLetTheCallThrough(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	flagRE := regexp.MustCompile(`--allow '([^']*)'`)
	for _, tt := range []struct{ mode, tool, input string }{
		{"default", "Bash", `{"command":"mkdir -p a && touch a/b"}`},
		{"default", "Bash", `{"command":"touch c; touch d"}`},
		{"default", "Write", `{"file_path":"` + filepath.Join(elsewhere, "x.txt") + `","content":"x"}`},
		// Outside the project: dont_ask allows edits inside it on its own.
		{"dont_ask", "Bash", `{"command":"mkdir -p ` + elsewhere + `/e && touch ` + elsewhere + `/e/f"}`},
		{"dont_ask", "Bash", `{"command":"touch ` + elsewhere + `/g"}`},
	} {
		var out, errb bytes.Buffer
		args := []string{"call", "--cwd", dir, "--mode", tt.mode, tt.tool, tt.input}
		if code := exitCode(run(context.Background(), args, strings.NewReader(""), &out, &errb), &errb); code != 3 {
			t.Fatalf("%s: exit %d, want 3: %s", tt.input, code, errb.String())
		}
		var flags []string
		for _, m := range flagRE.FindAllStringSubmatch(errb.String(), -1) {
			flags = append(flags, "--allow", m[1])
		}
		if len(flags) == 0 {
			t.Fatalf("%s: no --allow flag in %q", tt.input, errb.String())
		}
		out.Reset()
		errb.Reset()
		args = append(args[:len(args)-2], append(flags, args[len(args)-2:]...)...)
		if code := exitCode(run(context.Background(), args, strings.NewReader(""), &out, &errb), &errb); code != 0 {
			t.Errorf("%v: exit %d: %s%s", args, code, out.String(), errb.String())
		}
	}
}

// fakeTTY is a terminal: it answers with its input and records the prompt.
type fakeTTY struct {
	io.Reader
	prompt bytes.Buffer
	closed bool
}

func (f *fakeTTY) Write(p []byte) (int, error) { return f.prompt.Write(p) }
func (f *fakeTTY) Close() error                { f.closed = true; return nil }

// TestCallInputFromStdinAsksOnTTY: with the input on standard input, call
// asks on the controlling terminal, prompt and answer alike.
func TestCallInputFromStdinAsksOnTTY(t *testing.T) {
	defer func(f func() (io.ReadWriteCloser, error)) { openTTY = f }(openTTY)
	dir := t.TempDir()
	for answer, ran := range map[string]bool{"y\n": true, "n\n": false} {
		tty := &fakeTTY{Reader: strings.NewReader(answer)}
		openTTY = func() (io.ReadWriteCloser, error) { return tty, nil }
		name := strings.TrimSpace(answer) + ".txt"
		var out, errb bytes.Buffer
		stdin := strings.NewReader(`{"command":"touch ` + name + `"}`)
		code := exitCode(run(context.Background(), []string{"call", "--cwd", dir, "Bash", "-"}, stdin, &out, &errb), &errb)
		_, err := os.Stat(filepath.Join(dir, name))
		if ran != (err == nil) || (code == 0) != ran {
			t.Errorf("answer %q: exit %d, ran=%v: %s", answer, code, err == nil, errb.String())
		}
		if !strings.Contains(tty.prompt.String(), "Allow? [y/N/always: adds Bash(touch ") || strings.Contains(errb.String(), "Allow?") {
			t.Errorf("answer %q: prompt on the terminal %q, on stderr %q", answer, tty.prompt.String(), errb.String())
		}
		if !tty.closed {
			t.Error("the terminal was not closed")
		}
	}
}
