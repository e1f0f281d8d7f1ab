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
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/model/openai"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/tool/tooltest"
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

// toolCalls is the chunks of an answer that calls tools (arguments whole).
func toolCalls(cs ...[3]string) []string {
	var out []string
	for i, c := range cs {
		args, _ := json.Marshal(c[2])
		out = append(out, chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]}`, i, c[0], c[1], args)))
	}
	return out
}

// The agent's scenarios over HTTP: a batch of reads with a command after
// them, an external tool whose result comes later, a refused write, and
// the steps running out.
func TestAgentScenariosOverHTTP(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "a.txt")
	os.WriteFile(f, []byte("alpha\n"), 0o644)
	read, _ := json.Marshal(map[string]string{"file_path": f})
	write, _ := json.Marshal(map[string]string{"file_path": filepath.Join(root, "b.txt"), "content": "x"})
	srv := &chatServer{answers: []func(map[string]any) (int, []string){
		func(map[string]any) (int, []string) {
			return 200, toolCalls([3]string{"r", "Read", string(read)}, [3]string{"g", "Glob", `{"pattern":"*.txt"}`},
				[3]string{"s", "Grep", `{"pattern":"alpha"}`}, [3]string{"b", "Bash", `{"command":"ls"}`})
		},
		func(map[string]any) (int, []string) { return 200, toolCalls([3]string{"d", "deploy", `{}`}) },
		func(body map[string]any) (int, []string) {
			return 200, toolCalls([3]string{"w", "Write", string(write)})
		},
		func(body map[string]any) (int, []string) {
			msgs, _ := json.Marshal(body["messages"])
			if !strings.Contains(string(msgs), `is denied by user!`) || !strings.Contains(string(msgs), "deployed v2") {
				t.Errorf("the model did not get the refusal and the deploy result: %.500s", msgs)
			}
			return 200, []string{chunk(`{"content":"All done."}`)}
		},
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: append(builtin.All(&builtin.Options{Root: root}), tooltest.External{Name: "deploy"})})
	a := &agent.Agent{Model: openai.New("m", &openai.Options{APIKey: "test-key", BaseURL: hs.URL + "/v1"}), Toolkit: tk}
	run := agent.NewRun(nil)
	var order []string
	var last agent.Event
	for ev, err := range a.Run(context.Background(), run, "Go") {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == agent.EventToolResult {
			order = append(order, ev.Call.ID+":"+string(ev.Result.Status))
		}
		last = ev
	}
	if got := strings.Join(order, " "); got != "r:success g:success s:success b:success" {
		t.Errorf("results of the first turn: %s", got)
	}
	if last.Kind != agent.EventPaused || len(run.Waiting) != 1 || run.Waiting[0].Call.ID != "d" || run.Waiting[0].Status != tool.StatusSubmitted {
		t.Fatalf("after the deploy call: %v %+v", last.Kind, run.Waiting)
	}
	res := &tool.Result{Status: tool.StatusSuccess, Content: []tool.Block{tool.TextBlock("deployed v2")}}
	for ev, err := range a.Resume(context.Background(), run, agent.Answer{CallID: "d", Result: res}) {
		if err != nil {
			t.Fatal(err)
		}
		last = ev
	}
	if last.Kind != agent.EventPaused || run.Waiting[0].Call.ID != "w" {
		t.Fatalf("after the write call: %v %+v", last.Kind, run.Waiting)
	}
	for ev, err := range a.Resume(context.Background(), run, agent.Answer{CallID: "w", Approve: false}) {
		if err != nil {
			t.Fatal(err)
		}
		last = ev
	}
	if last.Kind != agent.EventReplyEnd || last.Text != "All done." {
		t.Errorf("end: %+v", last)
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); err == nil {
		t.Error("the refused write ran")
	}
}

type napIn struct {
	Ms int `json:"ms"`
}

// Over HTTP: concurrency-safe calls of one turn run at once (each waits
// for the others to start) while the command after them waits for them; the steps running out bring a last
// request without tools; a cancelled context interrupts a running command.
func TestAgentTimingOverHTTP(t *testing.T) {
	var mu sync.Mutex
	var spans [][2]time.Time
	// Each nap waits until all three have started: run one at a time, they
	// would each wait out the 10 s and say so.
	var started sync.WaitGroup
	started.Add(3)
	allIn := make(chan struct{})
	go func() { started.Wait(); close(allIn) }()
	nap, _ := tool.NewFunction("Sleep.", func(_ context.Context, in napIn) (string, error) {
		start := time.Now()
		started.Done()
		select {
		case <-allIn:
		case <-time.After(10 * time.Second):
			return "", fmt.Errorf("ran alone")
		}
		mu.Lock()
		spans = append(spans, [2]time.Time{start, time.Now()})
		mu.Unlock()
		return "slept", nil
	}, &tool.FunctionOptions{Name: "nap", ReadOnly: true})
	root := t.TempDir()
	var bashStart time.Time
	var lastTools int
	srv := &chatServer{answers: []func(map[string]any) (int, []string){
		func(map[string]any) (int, []string) {
			return 200, toolCalls([3]string{"n1", "nap", `{"ms":1}`}, [3]string{"n2", "nap", `{"ms":1}`}, [3]string{"n3", "nap", `{"ms":1}`},
				[3]string{"b", "Bash", `{"command":"date +%s%N"}`})
		},
		func(map[string]any) (int, []string) { return 200, toolCalls([3]string{"g", "Glob", `{"pattern":"*"}`}) },
		func(body map[string]any) (int, []string) {
			tools, _ := body["tools"].([]any)
			lastTools = len(tools)
			return 200, []string{chunk(`{"content":"Out of steps."}`)}
		},
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: append(builtin.All(&builtin.Options{Root: root}), nap)})
	a := &agent.Agent{Model: openai.New("m", &openai.Options{APIKey: "test-key", BaseURL: hs.URL + "/v1"}), Toolkit: tk, MaxIters: 2}
	run := agent.NewRun(tool.NewState(&permission.Context{Mode: permission.Bypass}))
	var end agent.Event
	for ev, err := range a.Run(context.Background(), run, "Go") {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == agent.EventToolResult && ev.Call.ID == "b" {
			var ns int64
			fmt.Sscan(strings.TrimSpace(ev.Result.Text()), &ns)
			bashStart = time.Unix(0, ns)
		}
		end = ev
	}
	if len(spans) != 3 {
		t.Fatalf("%d naps", len(spans))
	}
	lastEnd := spans[0][1]
	for _, s := range spans {
		if s[1].After(lastEnd) {
			lastEnd = s[1]
		}
	}
	if bashStart.Before(lastEnd) {
		t.Errorf("the command started at %v, before the naps ended at %v", bashStart, lastEnd)
	}
	if end.Kind != agent.EventReplyEnd || end.Text != "Out of steps." || lastTools != 0 || len(srv.bodies) != 3 {
		t.Errorf("end %+v; last request had %d tools; %d requests", end, lastTools, len(srv.bodies))
	}

	// Cancelled mid-command.
	srv2 := &chatServer{answers: []func(map[string]any) (int, []string){
		func(map[string]any) (int, []string) {
			return 200, toolCalls([3]string{"s", "Bash", `{"command":"sleep 30"}`})
		},
	}}
	hs2 := httptest.NewServer(srv2)
	defer hs2.Close()
	a.Model = openai.New("m", &openai.Options{APIKey: "test-key", BaseURL: hs2.URL + "/v1"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	for ev, err := range a.Run(ctx, agent.NewRun(tool.NewState(&permission.Context{Mode: permission.Bypass})), "Wait") {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == agent.EventToolCall {
			time.AfterFunc(200*time.Millisecond, cancel)
		}
		end = ev
	}
	if !end.Interrupted || time.Since(start) > 20*time.Second || len(srv2.bodies) != 1 {
		t.Errorf("cancelled run: %+v after %v, %d requests", end, time.Since(start), len(srv2.bodies))
	}
}
