package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/internal/testchat"
	"github.com/toolscope/toolscope/model/openai"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// chatServer is a Chat Completions server started by a test: it answers
// each request with what answer returns for it (its model and the text
// of its messages), keeping the requests' bodies. An answer "<hang>"
// holds the request until the client gives up; "<call>" answers with a
// tool call.
type chatServer struct {
	mu       sync.Mutex
	requests []string
	answer   func(model, body string) string
	url      string
}

func newChatServer(t *testing.T, answer func(model, body string) string) *chatServer {
	t.Helper()
	s := &chatServer{answer: answer}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req struct {
			Model string `json:"model"`
		}
		json.Unmarshal(b, &req)
		s.mu.Lock()
		s.requests = append(s.requests, string(b))
		a := s.answer(req.Model, string(b))
		s.mu.Unlock()
		switch a {
		case "<hang>":
			<-r.Context().Done()
		case "<call>":
			testchat.Stream(w, "", []testchat.Call{{ID: "c1", Name: "Bash", Arguments: `{"command":"true"}`}})
		default:
			testchat.Stream(w, a, nil)
		}
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/v1"
	return s
}

// model is the provider's client of the server, asking for name.
func (s *chatServer) model(name string) agent.Model {
	return openai.New(name, &openai.Options{BaseURL: s.url, APIKey: "test", MaxRetries: -1})
}

func (s *chatServer) bodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// openWithHooks opens a workspace in a new directory whose settings file
// has hooks, with the prompt hooks' model made by hookModel.
func openWithHooks(t *testing.T, hooks string, hookModel func(string) (agent.Model, error), warn io.Writer) *host.Workspace {
	t.Helper()
	dir := t.TempDir()
	settings := writeFile(t, dir, "settings.json", `{"hooks": `+hooks+`}`)
	ws, err := host.Open(context.Background(), &host.Options{Dir: dir, Settings: settings, NoClaudeSettings: true, HookModel: hookModel, Warnings: warn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Close)
	return ws
}

// TestPromptHookStop: a Stop prompt hook whose model says "ok": false
// keeps the reply going, its reason the next instruction, in a real agent
// run against a real HTTP server speaking the Chat Completions protocol;
// the hook's model sees its prompt with the event (the answer it judges
// among it) in place of $ARGUMENTS; "ok": true lets the reply end.
func TestPromptHookStop(t *testing.T) {
	judged := 0
	srv := newChatServer(t, func(model, body string) string {
		if model == "judge" {
			judged++
			if judged == 1 {
				return "```json\n{\"ok\": false, \"reason\": \"Run the tests before you stop.\"}\n```"
			}
			return `{"ok": true, "reason": ""}`
		}
		if strings.Contains(body, "Run the tests before you stop.") {
			return "Tests pass."
		}
		return "Fixed."
	})
	ws := openWithHooks(t, `{"Stop": [{"hooks": [{"type": "prompt", "prompt": "Did the agent run the tests? Event: $ARGUMENTS. Answer as JSON."}]}]}`,
		func(name string) (agent.Model, error) { return srv.model("judge"), nil }, nil)
	a := &agent.Agent{Model: srv.model("main"), Toolkit: ws.Toolkit, StopHook: ws.StopHook()}
	if a.StopHook == nil {
		t.Fatal("no StopHook for a workspace with a Stop prompt hook")
	}
	r := agent.NewRun(tool.NewState(&permission.Context{Mode: permission.Default}))
	var text strings.Builder
	for ev, err := range a.Run(context.Background(), r, "fix the bug") {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == agent.EventText {
			text.WriteString(ev.Text)
		}
	}
	if got := text.String(); !strings.Contains(got, "Fixed.") || !strings.Contains(got, "Tests pass.") {
		t.Errorf("the reply %q did not go on after the hook's ok:false", got)
	}
	if judged != 2 {
		t.Errorf("the hook's model was asked %d times, want 2", judged)
	}
	var first string
	for _, b := range srv.bodies() {
		if strings.Contains(b, `"model":"judge"`) {
			first = b
			break
		}
	}
	var req struct {
		Messages []struct{ Role, Content string }
	}
	json.Unmarshal([]byte(first), &req)
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || !strings.Contains(req.Messages[0].Content, `{"ok": false, "reason": "..."}`) {
		t.Fatalf("the hook's request %s", first)
	}
	user := req.Messages[1].Content
	for _, want := range []string{`Did the agent run the tests? Event: {`, `"hook_event_name":"Stop"`, `"stop_hook_active":false`, `"last_assistant_message":"Fixed."`, `}. Answer as JSON.`} {
		if !strings.Contains(user, want) {
			t.Errorf("the hook's prompt %q lacks %q", user, want)
		}
	}
	if strings.Contains(user, "$ARGUMENTS") {
		t.Errorf("$ARGUMENTS left in %q", user)
	}
}

// TestPromptHookPreToolUse: a PreToolUse prompt hook's "ok": false denies
// the call with its reason, even in bypass mode, and the command does not
// run; its "ok": true grants nothing: what the engine asks about is still
// asked, what it allows runs. A prompt without $ARGUMENTS gets the event
// after it.
func TestPromptHookPreToolUse(t *testing.T) {
	srv := newChatServer(t, func(model, body string) string {
		if strings.Contains(body, "deploy") {
			return "```\n{\"ok\": false, \"reason\": \"No deploys on Friday.\"}\n```"
		}
		return `{"ok": true}`
	})
	ws := openWithHooks(t, `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Is this command safe?"}]}]}`,
		func(string) (agent.Model, error) { return srv.model("judge"), nil }, nil)
	dir := ws.Root
	for _, mode := range []permission.Mode{permission.Default, permission.Bypass} {
		st := tool.NewState(&permission.Context{Mode: mode})
		res, err := ws.Toolkit.Call(context.Background(), &tool.Call{Name: "Bash", Input: json.RawMessage(`{"command":"echo deploy > deployed"}`), State: st})
		if err != nil {
			t.Fatal(err)
		}
		if res.Decision == nil || res.Decision.Behavior != permission.Deny || !strings.Contains(res.Text(), "No deploys on Friday.") || !strings.Contains(res.Decision.Reason, "PreToolUse prompt hook") {
			t.Errorf("%s: %s %+v, want denied by the prompt hook", mode, res.Status, res.Decision)
		}
		if _, err := os.Stat(filepath.Join(dir, "deployed")); err == nil {
			t.Fatalf("%s: the denied command ran", mode)
		}
	}
	if b := srv.bodies(); len(b) == 0 || !strings.Contains(b[0], `Is this command safe?\n\n{`) || !strings.Contains(b[0], `\"tool_name\":\"Bash\"`) {
		t.Errorf("the event was not appended to the prompt: %q", b)
	}
	// "ok": true: the engine's ask stands (a write in default mode).
	st := tool.NewState(&permission.Context{Mode: permission.Default})
	v, err := ws.Toolkit.Check(context.Background(), &tool.Call{Name: "Bash", Input: json.RawMessage(`{"command":"touch made"}`), State: st})
	if err != nil {
		t.Fatal(err)
	}
	if v.Decision.Behavior != permission.Ask {
		t.Errorf("ok:true widened the engine's ask to %s (%s)", v.Decision.Behavior, v.Decision.Reason)
	}
	// ... and what the engine allows runs.
	res, err := ws.Toolkit.Call(context.Background(), &tool.Call{Name: "Bash", Input: json.RawMessage(`{"command":"echo fine"}`), State: st})
	if err != nil || res.Status != tool.StatusSuccess || !strings.Contains(res.Text(), "fine") {
		t.Errorf("an allowed call after ok:true: %v %s %q", err, res.Status, res.Text())
	}
}

// TestPromptHookBadAnswers: an answer that is not the documented JSON, a
// model that asks for a tool, a failing server and a model slower than
// the hook's timeout are hook errors: a PreToolUse prompt hook denies the
// call, naming what went wrong (never allows it); a Stop prompt hook
// warns and lets the reply end.
func TestPromptHookBadAnswers(t *testing.T) {
	for _, c := range []struct{ answer, want string }{
		{`yes`, `not a verdict`},
		{`{"ok": "true"}`, `"ok" is "true", not true or false`},
		{`{"ok": true, "ok": false}`, `"ok" is given twice`},
		{`{"decision": "approve", "reason": "fine"}`, `it has a field "decision"`},
		{`{"reason": "fine"}`, `it has no "ok"`},
		{`{"ok": true} and more`, `not a verdict`},
		{"```json\n{\"ok\": true}", `fence`},
		{``, `it is empty`},
		{`<call>`, `asked for a tool (Bash)`},
		{`<hang>`, `did not answer within 200ms`},
	} {
		srv := newChatServer(t, func(string, string) string { return c.answer })
		var warn bytes.Buffer
		hooks := `{"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "$ARGUMENTS", "timeout": 0.2}]}],
			"Stop": [{"hooks": [{"type": "prompt", "prompt": "$ARGUMENTS", "timeout": 0.2}]}]}`
		ws := openWithHooks(t, hooks, func(string) (agent.Model, error) { return srv.model("judge"), nil }, &warn)
		st := tool.NewState(&permission.Context{Mode: permission.Bypass})
		v, err := ws.Toolkit.Check(context.Background(), &tool.Call{Name: "Read", Input: json.RawMessage(`{"file_path":"x"}`), State: st})
		if err != nil {
			t.Fatal(err)
		}
		if v.Decision.Behavior != permission.Deny || !strings.Contains(v.Decision.Message, c.want) || !strings.Contains(v.Decision.Message, "could not answer") {
			t.Errorf("answer %q: %s %q, want deny with %q", c.answer, v.Decision.Behavior, v.Decision.Message, c.want)
		}
		if reason := ws.StopHook()(context.Background(), agent.NewRun(st), "Done."); reason != "" {
			t.Errorf("answer %q: the Stop hook kept the reply going: %q", c.answer, reason)
		}
		if !strings.Contains(warn.String(), "Stop prompt hook") || !strings.Contains(warn.String(), c.want) {
			t.Errorf("answer %q: warnings %q", c.answer, warn.String())
		}
	}
	// A server that fails.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	ws := openWithHooks(t, `{"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "$ARGUMENTS"}]}]}`, func(string) (agent.Model, error) {
		return openai.New("judge", &openai.Options{BaseURL: srv.URL + "/v1", APIKey: "test", MaxRetries: -1}), nil
	}, nil)
	st := tool.NewState(&permission.Context{Mode: permission.Bypass})
	v, err := ws.Toolkit.Check(context.Background(), &tool.Call{Name: "Read", Input: json.RawMessage(`{"file_path":"x"}`), State: st})
	if err != nil || v.Decision.Behavior != permission.Deny || !strings.Contains(v.Decision.Message, "the model failed") {
		t.Errorf("a failing server: %v %+v", err, v.Decision)
	}
	// A HookModel that cannot make the hook's model.
	ws = openWithHooks(t, `{"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "$ARGUMENTS", "model": "haiku"}]}]}`, func(name string) (agent.Model, error) {
		return nil, errors.New("unknown model " + name)
	}, nil)
	v, err = ws.Toolkit.Check(context.Background(), &tool.Call{Name: "Read", Input: json.RawMessage(`{"file_path":"x"}`), State: st})
	if err != nil || v.Decision.Behavior != permission.Deny || !strings.Contains(v.Decision.Message, `the hook's model "haiku": unknown model haiku`) {
		t.Errorf("no hook model: %v %+v", err, v.Decision)
	}
}

// TestPromptHookNoModel: without a model (toolscope check, call, serve), a
// PreToolUse prompt hook denies the calls it matches, saying why, and the
// others it does not match are judged as ever; prompt hooks of the other
// events are skipped. Each says so once on the warnings, not at every call.
func TestPromptHookNoModel(t *testing.T) {
	var warn bytes.Buffer
	ws := openWithHooks(t, `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Safe? $ARGUMENTS"}]}],
		"Stop": [{"hooks": [{"type": "prompt", "prompt": "Done? $ARGUMENTS"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "prompt", "prompt": "Polite? $ARGUMENTS"}]}]}`, nil, &warn)
	st := tool.NewState(&permission.Context{Mode: permission.Bypass, Allow: []permission.Rule{{Tool: "Bash"}}})
	for range 2 {
		v, err := ws.Toolkit.Check(context.Background(), &tool.Call{Name: "Bash", Input: json.RawMessage(`{"command":"echo hi"}`), State: st})
		if err != nil {
			t.Fatal(err)
		}
		if v.Decision.Behavior != permission.Deny || !strings.Contains(v.Decision.Message, "there is no model to ask it") {
			t.Errorf("Bash without a model: %s %q", v.Decision.Behavior, v.Decision.Message)
		}
	}
	v, err := ws.Toolkit.Check(context.Background(), &tool.Call{Name: "Read", Input: json.RawMessage(`{"file_path":"x"}`), State: st})
	if err != nil || v.Decision.Behavior != permission.Allow {
		t.Errorf("Read, which the hook does not match: %v %+v", err, v.Decision)
	}
	for range 2 {
		if reason := ws.StopHook()(context.Background(), agent.NewRun(st), "Done."); reason != "" {
			t.Errorf("a Stop prompt hook without a model kept the reply going: %q", reason)
		}
		if p, err := ws.PromptHook()(context.Background(), "hello"); err != nil || p != "hello" {
			t.Errorf("a UserPromptSubmit prompt hook without a model: %q %v", p, err)
		}
	}
	for _, want := range []string{"PreToolUse prompt hook", "Stop prompt hook", "UserPromptSubmit prompt hook"} {
		if n := strings.Count(warn.String(), want); n != 1 {
			t.Errorf("%d warnings %q, want 1: %s", n, want, warn.String())
		}
	}
}

// TestPromptHookOtherEvents: UserPromptSubmit's "ok": false refuses the
// prompt; PostToolUse's gives its reason after the result; a
// PermissionRequest prompt hook's "ok": false refuses the call without
// asking the user, and its "ok": true leaves the question to the user
// (it approves nothing). A hook's "model" is what HookModel is given.
func TestPromptHookOtherEvents(t *testing.T) {
	srv := newChatServer(t, func(model, body string) string {
		switch {
		case strings.Contains(body, "password"), strings.Contains(body, "rm -r"):
			return `{"ok": false, "reason": "Not that."}`
		case strings.Contains(body, "PostToolUse"):
			return `{"ok": false, "reason": "Now run go vet."}`
		}
		return `{"ok": true}`
	})
	var names []string
	asked := 0
	dir := t.TempDir()
	settings := writeFile(t, dir, "settings.json", `{"hooks": {
		"UserPromptSubmit": [{"hooks": [{"type": "prompt", "prompt": "No secrets: $ARGUMENTS", "model": "haiku"}]}],
		"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Anything to follow up? $ARGUMENTS"}]}],
		"PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Approve? $ARGUMENTS"}]}]}}`)
	ws, err := host.Open(context.Background(), &host.Options{Dir: dir, Settings: settings, NoClaudeSettings: true,
		HookModel: func(name string) (agent.Model, error) { names = append(names, name); return srv.model("judge"), nil },
		Asker:     askerFunc(func() bool { asked++; return false })})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.PromptHook()(context.Background(), "my password is hunter2"); err == nil || !strings.Contains(err.Error(), "Not that.") {
		t.Errorf("UserPromptSubmit ok:false: %v", err)
	}
	if p, err := ws.PromptHook()(context.Background(), "fix the bug"); err != nil || p != "fix the bug" {
		t.Errorf("UserPromptSubmit ok:true: %q %v", p, err)
	}
	st := tool.NewState(&permission.Context{Mode: permission.Default})
	res, err := ws.Toolkit.Call(context.Background(), &tool.Call{Name: "Bash", Input: json.RawMessage(`{"command":"echo built"}`), State: st})
	if err != nil || res.Status != tool.StatusSuccess || !strings.Contains(res.Text(), "built") || !strings.Contains(res.Text(), "PostToolUse hook feedback: Now run go vet.") {
		t.Errorf("PostToolUse ok:false: %v %s %q", err, res.Status, res.Text())
	}
	res, err = ws.Toolkit.Call(context.Background(), &tool.Call{Name: "Bash", Input: json.RawMessage(`{"command":"rm -r build"}`), State: st})
	if err != nil || res.Status == tool.StatusSuccess || asked != 0 {
		t.Errorf("PermissionRequest ok:false: %v %s, asked %d", err, res.Status, asked)
	}
	res, err = ws.Toolkit.Call(context.Background(), &tool.Call{Name: "Bash", Input: json.RawMessage(`{"command":"touch made"}`), State: st})
	if err != nil || res.Status == tool.StatusSuccess || asked != 1 {
		t.Errorf("PermissionRequest ok:true: %v %s, asked %d (want the user asked, and refusing)", err, res.Status, asked)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Error("ok:true of a PermissionRequest prompt hook approved the call")
	}
	if len(names) < 2 || names[0] != "haiku" || names[1] != "" {
		t.Errorf("HookModel was given %q, want the hooks' models (haiku, then none)", names)
	}
}

// TestPromptHookUntrusted: a prompt hook of an untrusted project's own
// .claude/settings.json is dropped, as its command hooks are.
func TestPromptHookUntrusted(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".claude/settings.json", `{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Done? $ARGUMENTS"}]}]}}`)
	t.Setenv("HOME", t.TempDir())
	for _, trust := range []bool{false, true} {
		s, err := host.LoadSettings(&host.Options{Dir: dir, TrustProject: trust})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(s.Hooks()) == 1; got != trust {
			t.Errorf("trust %v: hooks %+v", trust, s.Hooks())
		}
	}
}

type askerFunc func() bool

func (f askerFunc) Ask(context.Context, *tool.Call, permission.Decision) (bool, []permission.Rule, error) {
	return f(), nil, nil
}
