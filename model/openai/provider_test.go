package openai_test

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
	"github.com/toolscope/toolscope/model/openai"
	"github.com/toolscope/toolscope/tool"
)

// chatServer speaks the Chat Completions streaming protocol, replaying one
// scripted answer per request (each a list of chunk JSON objects); a
// status other than 200 is sent as such. It keeps the request bodies.
type chatServer struct {
	mu      sync.Mutex
	answers []func(body map[string]any) (status int, chunks []string)
	bodies  []map[string]any
}

func (s *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
		http.Error(w, `{"error":{"message":"bad path or key"}}`, http.StatusUnauthorized)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	json.Unmarshal(b, &body)
	s.mu.Lock()
	n := len(s.bodies)
	s.bodies = append(s.bodies, body)
	s.mu.Unlock()
	if n >= len(s.answers) {
		http.Error(w, `{"error":{"message":"no more answers"}}`, http.StatusInternalServerError)
		return
	}
	status, chunks := s.answers[n](body)
	if status != http.StatusOK {
		w.Header().Set("Retry-After-Ms", "1")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, c := range chunks {
		fmt.Fprintf(w, "data: %s\n\n", c)
		w.(http.Flusher).Flush()
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func chunk(delta string) string {
	return `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}`
}

// The agent on a Chat Completions server: a rate limit is retried, text and
// a tool call whose arguments arrive in pieces stream in, the tool runs,
// and its result goes back as a tool message.
func TestAgentOnChatCompletions(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "a.txt")
	os.WriteFile(f, []byte("alpha\n"), 0o644)
	args, _ := json.Marshal(map[string]string{"file_path": f})
	half := len(args) / 2
	srv := &chatServer{answers: []func(map[string]any) (int, []string){
		func(map[string]any) (int, []string) { return http.StatusTooManyRequests, nil },
		func(body map[string]any) (int, []string) {
			a0, _ := json.Marshal(string(args[:half]))
			a1, _ := json.Marshal(string(args[half:]))
			return 200, []string{
				chunk(`{"role":"assistant","content":"Let me "}`),
				chunk(`{"content":"read."}`),
				chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"Read","arguments":` + string(a0) + `}}]}`),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":` + string(a1) + `}}]}`),
			}
		},
		func(body map[string]any) (int, []string) {
			return 200, []string{chunk(`{"content":"It says alpha."}`)}
		},
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	m := openai.New("test-model", &openai.Options{APIKey: "test-key", BaseURL: hs.URL + "/v1"})
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: root})})
	a := &agent.Agent{Model: m, Toolkit: tk, SystemPrompt: "Be brief."}
	var text strings.Builder
	var end string
	for ev, err := range a.Run(context.Background(), agent.NewRun(nil), "What is in a.txt?") {
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case agent.EventText:
			text.WriteString(ev.Text)
		case agent.EventReplyEnd:
			end = ev.Text
		}
	}
	if text.String() != "Let me read.It says alpha." || end != "It says alpha." {
		t.Errorf("text %q, end %q", text.String(), end)
	}
	if len(srv.bodies) != 3 {
		t.Fatalf("%d requests, want 3 (one retried)", len(srv.bodies))
	}
	first := srv.bodies[1]
	if first["model"] != "test-model" || first["stream"] != true {
		t.Errorf("request: model %v stream %v", first["model"], first["stream"])
	}
	tools, _ := json.Marshal(first["tools"])
	if !strings.Contains(string(tools), `"name":"Read"`) || !strings.Contains(string(tools), `"file_path"`) {
		t.Errorf("tools sent: %.300s", tools)
	}
	msgs, _ := json.Marshal(srv.bodies[2]["messages"])
	for _, want := range []string{`{"content":"Be brief.","role":"system"}`, `{"content":"What is in a.txt?","role":"user"}`, `"name":"Read"},"id":"call_1","type":"function"`, `"role":"tool","tool_call_id":"call_1"`, `alpha`} {
		if !strings.Contains(string(msgs), want) {
			t.Errorf("second request's messages lack %s:\n%s", want, msgs)
		}
	}
}

// A server error names the provider, the model and the status.
func TestChatCompletionsError(t *testing.T) {
	hs := httptest.NewServer(&chatServer{})
	defer hs.Close()
	m := openai.New("test-model", &openai.Options{APIKey: "wrong", BaseURL: hs.URL + "/v1", MaxRetries: -1})
	for _, err := range m.Stream(context.Background(), &agent.Request{Messages: []agent.Message{{Role: agent.User, Text: "hi"}}}) {
		if err == nil || !strings.Contains(err.Error(), "openai model test-model") || !strings.Contains(err.Error(), "401") {
			t.Errorf("error: %v", err)
		}
		return
	}
	t.Error("no error")
}
