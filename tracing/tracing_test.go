package tracing_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/tracing"
)

// scripted is a model that answers from a script, one answer per request.
type scripted struct {
	mu      sync.Mutex
	answers [][]agent.ModelEvent
	n       int
}

func (s *scripted) Stream(ctx context.Context, _ *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		s.mu.Lock()
		n := s.n
		s.n++
		s.mu.Unlock()
		if n >= len(s.answers) {
			yield(agent.ModelEvent{}, fmt.Errorf("the script has no answer %d", n+1))
			return
		}
		for _, ev := range s.answers[n] {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func call(id, name string, in any) agent.ModelEvent {
	b, _ := json.Marshal(in)
	return agent.ModelEvent{ToolCall: &agent.ToolCall{ID: id, Name: name, Input: b}}
}

// echo is a tool that answers with its input's text: what a tool's
// output holding a secret looks like.
func echo(t testing.TB) tool.Tool {
	type in struct {
		Text string `json:"text"`
		Path string `json:"path,omitempty"`
	}
	f, err := tool.NewFunction("Echo the text.", func(_ context.Context, x in) (string, error) { return x.Text, nil },
		&tool.FunctionOptions{Name: "Echo", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// world is a toolkit of the built-in tools over a project in a temporary
// directory, traced by tr, with a deny rule for Write.
func world(t testing.TB, tr *tracing.Tracer, extra ...tool.Tool) (root string, tk *tool.Toolkit, st *tool.State) {
	root = t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\n"), 0o644)
	var mws []tool.Middleware
	if mw := tr.Middleware(); mw != nil {
		mws = append(mws, mw)
	}
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: append(builtin.All(&builtin.Options{Root: root}), extra...), Middleware: mws})
	if err != nil {
		t.Fatal(err)
	}
	st = tool.NewState(&permission.Context{WorkingDirs: []string{root},
		Deny: []permission.Rule{{Tool: "Write", Behavior: permission.Deny, Source: "test settings"}}})
	t.Cleanup(func() { st.Close() })
	return root, tk, st
}

func newTracer(t testing.TB, o *tracing.Options) (*tracing.Tracer, *tracing.Memory) {
	mem := &tracing.Memory{}
	tr := tracing.New(mem, o)
	t.Cleanup(func() { tr.Shutdown(context.Background()) })
	return tr, mem
}

func attr(s tracing.SpanData, key string) string {
	v, _ := s.Attr(key)
	return v.String()
}

func byName(spans []tracing.SpanData, name string) []tracing.SpanData {
	var out []tracing.SpanData
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func byCallID(t *testing.T, spans []tracing.SpanData, id string) tracing.SpanData {
	t.Helper()
	for _, s := range spans {
		if attr(s, tracing.AttrToolCallID) == id {
			return s
		}
	}
	t.Fatalf("no span of call %s in %v", id, names(spans))
	return tracing.SpanData{}
}

func names(spans []tracing.SpanData) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}

// A scripted run makes the span tree of the conventions: the run's
// invoke_agent span, with the model turns (chat, CLIENT) and the tool calls
// (execute_tool, INTERNAL) as its children, in one trace; each tool span
// says the decision, and an error result or a denial says so.
func TestRunSpanTree(t *testing.T) {
	tr, mem := newTracer(t, nil)
	root, tk, st := world(t, tr)
	m := &scripted{answers: [][]agent.ModelEvent{
		{{Text: "Let me look."},
			call("c1", "Read", map[string]any{"file_path": filepath.Join(root, "a.txt")}),
			call("c2", "Read", map[string]any{"file_path": filepath.Join(root, "missing.txt")}),
			call("c3", "Write", map[string]any{"file_path": filepath.Join(root, "b.txt"), "content": "x"})},
		{{Text: "Done."}},
	}}
	a := &agent.Agent{Model: tr.Model(m, "openai", "gpt-test"), Toolkit: tk}
	run := agent.NewRun(st)
	for _, err := range tr.InvokeAgent(context.Background(), "toolscope", func(ctx context.Context) iter.Seq2[agent.Event, error] {
		return a.Run(ctx, run, "Read a.txt")
	}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := mem.Spans()
	want := []string{"chat gpt-test", "chat gpt-test", "execute_tool Read", "execute_tool Read", "execute_tool Write", "invoke_agent toolscope"}
	if got := names(spans); !slices.Equal(got, want) {
		t.Fatalf("spans %q, want %q", got, want)
	}
	runSpan := byName(spans, "invoke_agent toolscope")[0]
	if !runSpan.Parent.IsZero() || runSpan.Kind != tracing.KindInternal || attr(runSpan, tracing.AttrOperation) != "invoke_agent" ||
		attr(runSpan, tracing.AttrAgentName) != "toolscope" || attr(runSpan, tracing.AttrRunOutcome) != "reply_end" || attr(runSpan, tracing.AttrRunToolCalls) != "3" {
		t.Errorf("run span: %+v", runSpan)
	}
	for _, s := range spans {
		if s.TraceID != runSpan.TraceID {
			t.Errorf("%s is in trace %s, not the run's %s", s.Name, s.TraceID, runSpan.TraceID)
		}
		if s.SpanID != runSpan.SpanID && s.Parent != runSpan.SpanID {
			t.Errorf("%s's parent is %s, not the run span", s.Name, s.Parent)
		}
		if s.End.Before(s.Start) {
			t.Errorf("%s ends before it starts", s.Name)
		}
		if _, ok := s.Attr(tracing.AttrToolArguments); ok {
			t.Errorf("%s records the input without content capture", s.Name)
		}
	}
	chats := byName(spans, "chat gpt-test")
	for _, c := range chats {
		if c.Kind != tracing.KindClient || attr(c, tracing.AttrOperation) != "chat" || attr(c, tracing.AttrProvider) != "openai" || attr(c, tracing.AttrRequestModel) != "gpt-test" {
			t.Errorf("chat span: %+v", c)
		}
	}
	if calls := []string{attr(chats[0], tracing.AttrChatCalls), attr(chats[1], tracing.AttrChatCalls)}; !slices.Contains(calls, "3") || !slices.Contains(calls, "0") {
		t.Errorf("the chat spans count calls %q, want 3 and 0", calls)
	}
	tools := byName(spans, "execute_tool Read")
	ok := byCallID(t, tools, "c1")
	if ok.Kind != tracing.KindInternal || attr(ok, tracing.AttrOperation) != "execute_tool" || attr(ok, tracing.AttrToolName) != "Read" ||
		attr(ok, tracing.AttrToolType) != "function" || attr(ok, tracing.AttrToolStatus) != "success" ||
		attr(ok, tracing.AttrDecision) != "allow" || attr(ok, tracing.AttrReason) == "" || ok.Status != tracing.StatusUnset {
		t.Errorf("the Read that succeeded: %+v", ok)
	}
	bad := byCallID(t, tools, "c2")
	if bad.Status != tracing.StatusError || attr(bad, tracing.AttrErrorType) != "tool_error" || attr(bad, tracing.AttrToolStatus) != "error" {
		t.Errorf("the Read that failed: %+v", bad)
	}
	denied := byName(spans, "execute_tool Write")[0]
	if attr(denied, tracing.AttrToolCallID) != "c3" || attr(denied, tracing.AttrDecision) != "deny" || attr(denied, tracing.AttrToolStatus) != "denied" ||
		attr(denied, tracing.AttrRules) != `["Write"]` || attr(denied, tracing.AttrRuleSources) != `["test settings"]` || attr(denied, tracing.AttrReason) == "" {
		t.Errorf("the denied Write: %+v", denied)
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); err == nil {
		t.Error("the denied Write wrote")
	}
}

// A call that waits for approval ends its span asking, and the run's span
// says the run paused; a model that fails marks its chat span and the
// run's span as errors.
func TestPausedAndFailedRuns(t *testing.T) {
	tr, mem := newTracer(t, nil)
	root, tk, st := world(t, tr)
	m := &scripted{answers: [][]agent.ModelEvent{
		{call("c1", "Bash", map[string]any{"command": "touch " + filepath.Join(root, "new")})},
	}}
	a := &agent.Agent{Model: tr.Model(m, "anthropic", "claude-test"), Toolkit: tk}
	run := agent.NewRun(st)
	for range tr.InvokeAgent(context.Background(), "toolscope", func(ctx context.Context) iter.Seq2[agent.Event, error] { return a.Run(ctx, run, "go") }) {
	}
	if len(run.Waiting) != 1 {
		t.Fatalf("the run does not wait: %+v", run.Waiting)
	}
	// Resumed with a denial: the model has no more answers, and fails.
	var runErr error
	for _, err := range tr.InvokeAgent(context.Background(), "toolscope", func(ctx context.Context) iter.Seq2[agent.Event, error] {
		return a.Resume(ctx, run, agent.Answer{CallID: "c1"})
	}) {
		if err != nil {
			runErr = err
		}
	}
	if runErr == nil {
		t.Fatal("the resumed run did not fail")
	}
	tr.Flush(context.Background())
	spans := mem.Spans()
	runs := byName(spans, "invoke_agent toolscope")
	if len(runs) != 2 || attr(runs[0], tracing.AttrRunOutcome) != "paused" || attr(runs[1], tracing.AttrRunOutcome) != "error" ||
		runs[1].Status != tracing.StatusError || attr(runs[1], tracing.AttrErrorType) == "" {
		t.Fatalf("run spans: %+v", runs)
	}
	asking := byName(spans, "execute_tool Bash")[0]
	if attr(asking, tracing.AttrDecision) != "ask" || attr(asking, tracing.AttrToolStatus) != "asking" || asking.Status == tracing.StatusError {
		t.Errorf("the call that asks: %+v", asking)
	}
	var failed tracing.SpanData
	for _, c := range byName(spans, "chat claude-test") {
		if c.Parent == runs[1].SpanID {
			failed = c
		}
	}
	if failed.Status != tracing.StatusError || attr(failed, tracing.AttrErrorType) != "_OTHER" || !strings.Contains(failed.Message, "no answer 2") {
		t.Errorf("the failed model turn: %+v", failed)
	}
}

// A Go error of the handler (the infrastructure failed) sets the status
// and error.type of the span; an interrupted call (its consumer stopped)
// too.
func TestHandlerErrorAndInterruption(t *testing.T) {
	tr, mem := newTracer(t, nil)
	boom := errors.New("disk on fire")
	failing := func(tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
			return func(yield func(*tool.Chunk, error) bool) { yield(nil, &os.PathError{Op: "open", Path: "x", Err: boom}) }
		})
	}
	h := tr.Middleware()(failing(nil))
	for range h.Handle(context.Background(), &tool.Call{ID: "x1", Name: "mcp__fs__read"}) {
	}
	// A consumer that stops after the first chunk.
	chatty := tool.HandlerFunc(func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
		return func(yield func(*tool.Chunk, error) bool) {
			for yield(tool.Text("more"), nil) {
			}
		}
	})
	for range tr.Middleware()(chatty).Handle(context.Background(), &tool.Call{ID: "x2", Name: "Bash"}) {
		break
	}
	tr.Flush(context.Background())
	spans := mem.Spans()
	s := byCallID(t, spans, "x1")
	if s.Status != tracing.StatusError || attr(s, tracing.AttrErrorType) != "*fs.PathError" || attr(s, tracing.AttrToolType) != "extension" || !strings.Contains(s.Message, "disk on fire") {
		t.Errorf("failed handler: %+v", s)
	}
	s = byCallID(t, spans, "x2")
	if s.Status != tracing.StatusError || attr(s, tracing.AttrErrorType) != "canceled" || attr(s, tracing.AttrToolStatus) != "interrupted" {
		t.Errorf("interrupted call: %+v", s)
	}
}

// Tool calls traced from many goroutines at once (parallel batches, and
// flushes beside them): every span is exported once, whole (run with
// -race).
func TestConcurrentCalls(t *testing.T) {
	tr, mem := newTracer(t, &tracing.Options{BatchSize: 7, QueueSize: 10000})
	root, tk, st := world(t, tr)
	var wg sync.WaitGroup
	const workers, each = 8, 25
	for w := range workers {
		wg.Go(func() {
			ctx, sp := tr.Start(context.Background(), fmt.Sprintf("worker %d", w), tracing.KindInternal)
			defer sp.End()
			for i := range each {
				calls := []*tool.Call{
					{ID: fmt.Sprintf("%d-%d-a", w, i), Name: "Read", Input: json.RawMessage(fmt.Sprintf(`{"file_path":%q}`, filepath.Join(root, "a.txt"))), State: st},
					{ID: fmt.Sprintf("%d-%d-b", w, i), Name: "Glob", Input: json.RawMessage(`{"pattern":"*.txt"}`), State: st},
				}
				if _, err := tk.CallBatch(ctx, calls); err != nil {
					t.Error(err)
				}
				if i%10 == 0 {
					tr.Flush(ctx)
				}
			}
		})
	}
	wg.Wait()
	tr.Shutdown(context.Background())
	spans := mem.Spans()
	if got, want := len(spans), workers*(2*each+1); got != want || tr.Dropped() != 0 {
		t.Fatalf("%d spans exported, %d dropped, want %d", got, tr.Dropped(), want)
	}
	seen := map[tracing.SpanID]bool{}
	for _, s := range spans {
		if seen[s.SpanID] {
			t.Fatalf("span %s exported twice", s.SpanID)
		}
		seen[s.SpanID] = true
		if strings.HasPrefix(s.Name, "execute_tool") && (s.Parent.IsZero() || attr(s, tracing.AttrToolStatus) != "success") {
			t.Errorf("%s: parent %s, status %s", s.Name, s.Parent, attr(s, tracing.AttrToolStatus))
		}
	}
}

// blocking is an exporter that waits for release: a collector that does
// not answer.
type blocking struct {
	release chan struct{}
	mu      sync.Mutex
	n       int
}

func (b *blocking) Export(ctx context.Context, spans []tracing.SpanData) error {
	<-b.release
	b.mu.Lock()
	b.n += len(spans)
	b.mu.Unlock()
	return nil
}

// With the collector stuck, ending spans never blocks: those past the
// queue's bound are dropped and counted, and every span is either
// exported or counted.
func TestFullQueueDropsAndCounts(t *testing.T) {
	exp := &blocking{release: make(chan struct{})}
	tr := tracing.New(exp, &tracing.Options{QueueSize: 4, BatchSize: 2})
	const n = 200
	for i := range n {
		_, sp := tr.Start(context.Background(), fmt.Sprint("span ", i), tracing.KindInternal)
		sp.End() // would block here if End waited for the collector
	}
	if tr.Dropped() == 0 {
		t.Fatal("nothing dropped with the exporter stuck and a queue of 4")
	}
	close(exp.release)
	var warn strings.Builder
	tr2 := tracing.New(&tracing.Memory{}, &tracing.Options{Warnings: &warn})
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := int64(exp.n) + tr.Dropped(); got != n {
		t.Errorf("%d exported + %d dropped = %d, want %d", exp.n, tr.Dropped(), got, n)
	}
	// After Shutdown, a span is dropped, not sent, and said.
	_, sp := tr2.Start(context.Background(), "late", tracing.KindInternal)
	tr2.Shutdown(context.Background())
	sp.End()
	if tr2.Dropped() != 1 {
		t.Errorf("a span ended after Shutdown: %d dropped", tr2.Dropped())
	}
}

// The nil tracer records nothing and wraps nothing.
func TestNilTracer(t *testing.T) {
	var tr *tracing.Tracer
	m := &scripted{}
	if tr.Model(m, "openai", "x") != agent.Model(m) || tr.Middleware() != nil {
		t.Fatal("the nil tracer wraps")
	}
	ctx, sp := tr.Start(context.Background(), "x", tracing.KindInternal)
	sp.SetAttr(tracing.String("a", "b"))
	sp.SetError("e", "m")
	sp.End()
	if ctx != context.Background() || tr.Flush(ctx) != nil || tr.Shutdown(ctx) != nil || tr.Dropped() != 0 {
		t.Fatal("the nil tracer does something")
	}
}
