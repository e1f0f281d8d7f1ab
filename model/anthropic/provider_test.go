package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/model/anthropic"
	"github.com/toolscope/toolscope/tool"
)

// messagesServer speaks the Messages streaming protocol, replaying one
// scripted answer (a list of events) per request; it keeps the bodies.
type messagesServer struct {
	mu      sync.Mutex
	answers [][]string
	status  []int // per request, 0 meaning 200
	bodies  []map[string]any
}

func (s *messagesServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The key comes as x-api-key or, from this SDK version, as a bearer token.
	if r.URL.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "test-key" && r.Header.Get("Authorization") != "Bearer test-key" {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"type":"error","error":{"type":"authentication_error","message":"bad key"}}`)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	json.Unmarshal(b, &body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	s.mu.Unlock()
	if n < len(s.status) && s.status[n] != 0 {
		w.Header().Set("Retry-After-Ms", "1")
		w.WriteHeader(s.status[n])
		fmt.Fprint(w, `{"type":"error","error":{"type":"overloaded_error","message":"overloaded"}}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	events := s.answers[len(s.answers)-1]
	if k := n - len(s.status); k >= 0 && k < len(s.answers) {
		events = s.answers[k]
	} else if n < len(s.answers) {
		events = s.answers[n]
	}
	for _, e := range events {
		var typ struct{ Type string }
		json.Unmarshal([]byte(e), &typ)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ.Type, e)
		w.(http.Flusher).Flush()
	}
}

const start = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`

func textBlock(i int, parts ...string) []string {
	out := []string{fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i)}
	for _, p := range parts {
		q, _ := json.Marshal(p)
		out = append(out, fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, q))
	}
	return append(out, fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func toolBlock(i int, id, name string, parts ...string) []string {
	out := []string{fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, i, id, name)}
	for _, p := range parts {
		q, _ := json.Marshal(p)
		out = append(out, fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, q))
	}
	return append(out, fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func end(reason string) []string {
	return []string{`{"type":"message_delta","delta":{"stop_reason":"` + reason + `","stop_sequence":null},"usage":{"output_tokens":5}}`, `{"type":"message_stop"}`}
}

func answer(parts ...[]string) []string {
	out := []string{start}
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// The agent on a Messages server: an overloaded answer is retried, text
// and two tool calls whose inputs arrive in pieces stream in, and the
// results go back together in one user message of tool_result blocks.
func TestAgentOnMessages(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "a.txt")
	os.WriteFile(f, []byte("alpha\n"), 0o644)
	args, _ := json.Marshal(map[string]string{"file_path": f})
	half := len(args) / 2
	srv := &messagesServer{status: []int{529}, answers: [][]string{
		answer(textBlock(0, "Let me ", "read."), toolBlock(1, "toolu_1", "Read", string(args[:half]), string(args[half:])),
			toolBlock(2, "toolu_2", "Glob", `{"pattern":"*.txt"}`), end("tool_use")),
		answer(textBlock(0, "It says alpha."), end("end_turn")),
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	m := anthropic.New("claude-test", &anthropic.Options{APIKey: "test-key", BaseURL: hs.URL})
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: root})})
	a := &agent.Agent{Model: m, Toolkit: tk, SystemPrompt: "Be brief."}
	var text strings.Builder
	var final string
	for ev, err := range a.Run(context.Background(), agent.NewRun(nil), "What is in a.txt?") {
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case agent.EventText:
			text.WriteString(ev.Text)
		case agent.EventReplyEnd:
			final = ev.Text
		}
	}
	if text.String() != "Let me read.It says alpha." || final != "It says alpha." {
		t.Errorf("text %q, final %q", text.String(), final)
	}
	if len(srv.bodies) != 3 {
		t.Fatalf("%d requests, want 3 (one retried)", len(srv.bodies))
	}
	first := srv.bodies[1]
	sys, _ := json.Marshal(first["system"])
	tools, _ := json.Marshal(first["tools"])
	if first["model"] != "claude-test" || first["max_tokens"] != float64(8192) || !strings.Contains(string(sys), "Be brief.") ||
		!strings.Contains(string(tools), `"name":"Read"`) || !strings.Contains(string(tools), `"input_schema":{`) {
		t.Errorf("first request: model %v max %v system %s tools %.200s", first["model"], first["max_tokens"], sys, tools)
	}
	msgs := srv.bodies[2]["messages"].([]any)
	if len(msgs) != 3 {
		t.Fatalf("second request has %d messages, want user, assistant, user(results)", len(msgs))
	}
	b, _ := json.Marshal(msgs)
	for _, want := range []string{`"type":"tool_use"`, `"id":"toolu_1"`, `"tool_use_id":"toolu_1"`, `"tool_use_id":"toolu_2"`, `alpha`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("second request's messages lack %s:\n%s", want, b)
		}
	}
}

// A refused key names the provider, the model and the status.
func TestMessagesError(t *testing.T) {
	hs := httptest.NewServer(&messagesServer{})
	defer hs.Close()
	m := anthropic.New("claude-test", &anthropic.Options{APIKey: "wrong", BaseURL: hs.URL, MaxRetries: -1})
	for _, err := range m.Stream(context.Background(), &agent.Request{Messages: []agent.Message{{Role: agent.User, Text: "hi"}}}) {
		if err == nil || !strings.Contains(err.Error(), "anthropic model claude-test") || !strings.Contains(err.Error(), "401") {
			t.Errorf("error: %v", err)
		}
		return
	}
	t.Error("no error")
}

// Over the Messages protocol: a write that needs approval pauses the run,
// which goes through JSON into a fresh Agent and Model and completes.
func TestPauseResumeOverMessages(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "n.txt")
	args, _ := json.Marshal(map[string]string{"file_path": f, "content": "note"})
	srv := &messagesServer{answers: [][]string{
		answer(toolBlock(0, "toolu_w", "Write", string(args)), end("tool_use")),
		answer(textBlock(0, "Written."), end("end_turn")),
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	newAgent := func() *agent.Agent {
		tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: root})})
		return &agent.Agent{Model: anthropic.New("claude-test", &anthropic.Options{APIKey: "test-key", BaseURL: hs.URL}), Toolkit: tk}
	}
	run := agent.NewRun(nil)
	var last agent.Event
	for ev, err := range newAgent().Run(context.Background(), run, "Write a note") {
		if err != nil {
			t.Fatal(err)
		}
		last = ev
	}
	if last.Kind != agent.EventPaused {
		t.Fatalf("last event %v", last.Kind)
	}
	saved, _ := json.Marshal(run)
	var back agent.Run
	if err := json.Unmarshal(saved, &back); err != nil {
		t.Fatal(err)
	}
	for ev, err := range newAgent().Resume(context.Background(), &back, agent.Answer{CallID: "toolu_w", Approve: true}) {
		if err != nil {
			t.Fatal(err)
		}
		last = ev
	}
	if b, _ := os.ReadFile(f); string(b) != "note" || last.Kind != agent.EventReplyEnd || last.Text != "Written." {
		t.Errorf("file %q, last %+v", b, last)
	}
	msgs, _ := json.Marshal(srv.bodies[1]["messages"])
	if !strings.Contains(string(msgs), `"tool_use_id":"toolu_w"`) {
		t.Errorf("the resumed request lacks the tool result: %s", msgs)
	}
}
