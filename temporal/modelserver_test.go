package temporal_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/internal/testchat"
)

// step is one scripted answer of the model: text, and tool calls as
// "id", "name", JSON input triples.
type step struct {
	text  string
	calls [][3]string
	// fn, when set, makes the step when its request comes (it may wait:
	// a slow model), from what the conversation holds so far.
	fn func(req chatRequest) step
}

// modelServer is a Chat Completions server (the protocol of the openai
// provider) whose answers follow a script per conversation: the first user
// message picks the script, the number of assistant messages so far the
// step. Any number of runs, on any number of workers, can talk to it at
// once. It keeps every request.
type modelServer struct {
	url     string
	mu      sync.Mutex
	scripts map[string][]step
	reqs    []chatRequest
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// text is the message's content as text.
func (m chatMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

type chatRequest struct {
	Messages []chatMessage `json:"messages"`
}

func (r chatRequest) prompt() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return m.text()
		}
	}
	return ""
}

func newModelServer(t testing.TB) *modelServer {
	s := &modelServer{scripts: map[string][]step{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// script sets the answers to the conversations that start with prompt.
func (s *modelServer) script(prompt string, steps ...step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[prompt] = steps
}

// requests returns the requests of the conversation prompt.
func (s *modelServer) requests(prompt string) []chatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []chatRequest
	for _, r := range s.reqs {
		if r.prompt() == prompt {
			out = append(out, r)
		}
	}
	return out
}

func (s *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	steps := s.scripts[req.prompt()]
	s.mu.Unlock()
	n := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	if n >= len(steps) {
		http.Error(w, fmt.Sprintf(`{"error":{"message":"no step %d in the script of %q"}}`, n, req.prompt()), http.StatusBadRequest)
		return
	}
	a := steps[n]
	if a.fn != nil {
		a = a.fn(req)
	}
	var calls []testchat.Call
	for _, c := range a.calls {
		calls = append(calls, testchat.Call{ID: c[0], Name: c[1], Arguments: c[2]})
	}
	testchat.Stream(w, a.text, calls)
}

// result returns the content of the tool message for call id in req.
func (r chatRequest) result(id string) string {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return m.text()
		}
	}
	return ""
}

// toolResult returns the content of the tool message for call id in the
// last request of the conversation prompt.
func (s *modelServer) toolResult(prompt, id string) (string, bool) {
	reqs := s.requests(prompt)
	if len(reqs) == 0 {
		return "", false
	}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" && m.ToolCallID == id {
			return m.text(), true
		}
	}
	return "", false
}
