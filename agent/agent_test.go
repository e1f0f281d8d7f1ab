package agent_test

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
	"github.com/toolscope/toolscope/tool/tooltest"
)

// scripted is a model that answers from a script, one step per request,
// and keeps the requests it got.
type scripted struct {
	mu    sync.Mutex
	steps []func(req *agent.Request) []agent.ModelEvent
	reqs  []*agent.Request
}

func (s *scripted) Stream(_ context.Context, req *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()
		if n >= len(s.steps) {
			yield(agent.ModelEvent{}, fmt.Errorf("the script has no step %d", n+1))
			return
		}
		for _, ev := range s.steps[n](req) {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func say(text string) func(*agent.Request) []agent.ModelEvent {
	return func(*agent.Request) []agent.ModelEvent { return []agent.ModelEvent{{Text: text}} }
}

func calls(cs ...agent.ToolCall) func(*agent.Request) []agent.ModelEvent {
	return func(*agent.Request) []agent.ModelEvent {
		var out []agent.ModelEvent
		for i := range cs {
			out = append(out, agent.ModelEvent{ToolCall: &cs[i]})
		}
		return out
	}
}

func input(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// collect runs a run to its end, returning its events by kind.
func collect(t *testing.T, seq iter.Seq2[agent.Event, error]) map[agent.EventKind][]agent.Event {
	t.Helper()
	out := map[agent.EventKind][]agent.Event{}
	for ev, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out[ev.Kind] = append(out[ev.Kind], ev)
	}
	return out
}

func newAgent(t *testing.T, root string, m agent.Model, extra ...tool.Tool) *agent.Agent {
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: append(builtin.All(&builtin.Options{Root: root}), extra...)})
	if err != nil {
		t.Fatal(err)
	}
	return &agent.Agent{Model: m, Toolkit: tk, SystemPrompt: "You are careful."}
}

// A reply with reads: the model's calls run, their results go back, and
// the model's final answer ends the reply.
func TestReplyWithTools(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\n"), 0o644)
	m := &scripted{steps: []func(*agent.Request) []agent.ModelEvent{
		func(req *agent.Request) []agent.ModelEvent {
			if req.System != "You are careful." || len(req.Tools) == 0 {
				t.Errorf("first request: system %q, %d tools", req.System, len(req.Tools))
			}
			return []agent.ModelEvent{{Text: "Let me look."}, {ToolCall: &agent.ToolCall{ID: "1", Name: "Read", Input: input(map[string]any{"file_path": filepath.Join(root, "a.txt")})}},
				{ToolCall: &agent.ToolCall{ID: "2", Name: "Glob", Input: input(map[string]any{"pattern": "*.txt"})}}}
		},
		func(req *agent.Request) []agent.ModelEvent {
			last := req.Messages[len(req.Messages)-2:]
			if last[0].Result == nil || !strings.Contains(last[0].Result.Text(), "alpha") || last[1].Result == nil || !strings.Contains(last[1].Result.Text(), "a.txt") {
				t.Errorf("the results the model got: %+v", last)
			}
			return []agent.ModelEvent{{Text: "It says alpha."}}
		},
	}}
	a := newAgent(t, root, m)
	run := agent.NewRun(nil)
	evs := collect(t, a.Run(context.Background(), run, "What is in a.txt?"))
	if len(evs[agent.EventToolResult]) != 2 || len(evs[agent.EventReplyEnd]) != 1 || evs[agent.EventReplyEnd][0].Text != "It says alpha." {
		t.Fatalf("events: %v", evs)
	}
	if got := len(run.Messages); got != 5 { // user, assistant, 2 results, assistant
		t.Errorf("%d messages", got)
	}
}

// A call that needs approval pauses the run; the paused run goes through
// JSON and a new Agent, and resumes once the user approves.
func TestPauseResumeApprove(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "new.txt")
	script := []func(*agent.Request) []agent.ModelEvent{
		calls(agent.ToolCall{ID: "w", Name: "Write", Input: input(map[string]any{"file_path": f, "content": "made"})}),
		say("Done."),
	}
	m := &scripted{steps: script}
	evs := collect(t, newAgent(t, root, m).Run(context.Background(), agent.NewRun(nil), "Make new.txt"))
	if len(evs[agent.EventNeedApproval]) != 1 || len(evs[agent.EventPaused]) != 1 {
		t.Fatalf("events: %v", evs)
	}
	if _, err := os.Stat(f); err == nil {
		t.Fatal("the write ran before the approval")
	}
	ask := evs[agent.EventNeedApproval][0]
	if ask.Call.ID != "w" || ask.Decision == nil || len(ask.Decision.Suggestions) == 0 {
		t.Errorf("approval event: %+v", ask)
	}
	saved, err := json.Marshal(evs[agent.EventPaused][0].Run)
	if err != nil {
		t.Fatal(err)
	}
	// A new process: a new Agent and the run from JSON.
	var run agent.Run
	if err := json.Unmarshal(saved, &run); err != nil {
		t.Fatal(err)
	}
	m2 := &scripted{steps: script[1:]}
	a2 := newAgent(t, root, m2)
	if _, err := firstErr(a2.Run(context.Background(), &run, "another thing")); !errors.Is(err, agent.ErrWaiting) {
		t.Errorf("Run while waiting: %v", err)
	}
	if _, err := firstErr(a2.Resume(context.Background(), &run, agent.Answer{CallID: "nope", Approve: true})); err == nil {
		t.Error("an answer to no waiting call was taken")
	}
	evs = collect(t, a2.Resume(context.Background(), &run, agent.Answer{CallID: "w", Approve: true, Rules: ask.Decision.Suggestions}))
	if b, _ := os.ReadFile(f); string(b) != "made" {
		t.Errorf("file after approval: %q", b)
	}
	if len(evs[agent.EventReplyEnd]) != 1 || evs[agent.EventReplyEnd][0].Text != "Done." {
		t.Errorf("events after resume: %v", evs)
	}
	if _, err := firstErr(a2.Resume(context.Background(), &run, agent.Answer{CallID: "w", Approve: true})); err == nil {
		t.Error("a second resume of the same pause was taken")
	}
	if pc := run.State.Permissions(); len(pc.Allow) == 0 {
		t.Error("the remembered rule is not in the state")
	}
}

func firstErr(seq iter.Seq2[agent.Event, error]) (agent.Event, error) {
	for ev, err := range seq {
		if err != nil {
			return ev, err
		}
	}
	return agent.Event{}, nil
}

// A refused call gives the model AgentScope's denied text.
func TestPauseResumeReject(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "x.txt")
	m := &scripted{steps: []func(*agent.Request) []agent.ModelEvent{
		calls(agent.ToolCall{ID: "w", Name: "Write", Input: input(map[string]any{"file_path": f, "content": "x"})}),
		func(req *agent.Request) []agent.ModelEvent {
			last := req.Messages[len(req.Messages)-1]
			if last.Result == nil || last.Result.Text() != `<system-reminder>The execution of tool "Write" is denied by user!</system-reminder>` || last.Result.Status != tool.StatusDenied {
				t.Errorf("the model got %+v", last.Result)
			}
			return []agent.ModelEvent{{Text: "OK, I will not."}}
		},
	}}
	a := newAgent(t, root, m)
	run := agent.NewRun(nil)
	collect(t, a.Run(context.Background(), run, "Make x.txt"))
	evs := collect(t, a.Resume(context.Background(), run, agent.Answer{CallID: "w", Approve: false}))
	if len(evs[agent.EventReplyEnd]) != 1 {
		t.Errorf("events: %v", evs)
	}
	if _, err := os.Stat(f); err == nil {
		t.Error("a refused write ran")
	}
}

// An External tool's call waits for its result, which comes later.
func TestExternalTool(t *testing.T) {
	m := &scripted{steps: []func(*agent.Request) []agent.ModelEvent{
		calls(agent.ToolCall{ID: "d", Name: "deploy"}),
		func(req *agent.Request) []agent.ModelEvent {
			if r := req.Messages[len(req.Messages)-1].Result; r == nil || r.Text() != "deployed v2" {
				t.Errorf("the model got %+v", r)
			}
			return []agent.ModelEvent{{Text: "Deployed."}}
		},
	}}
	a := newAgent(t, t.TempDir(), m, tooltest.External{Name: "deploy"})
	run := agent.NewRun(nil)
	evs := collect(t, a.Run(context.Background(), run, "Deploy"))
	if len(evs[agent.EventNeedExternal]) != 1 || len(evs[agent.EventPaused]) != 1 {
		t.Fatalf("events: %v", evs)
	}
	if _, err := firstErr(a.Resume(context.Background(), run, agent.Answer{CallID: "d", Approve: true})); err == nil {
		t.Error("an external call answered without a result")
	}
	res := &tool.Result{Status: tool.StatusSuccess, Content: []tool.Block{tool.TextBlock("deployed v2")}}
	evs = collect(t, a.Resume(context.Background(), run, agent.Answer{CallID: "d", Result: res}))
	if len(evs[agent.EventReplyEnd]) != 1 {
		t.Errorf("events: %v", evs)
	}
}

// When the steps run out the model is asked, without tools, for its final
// answer.
func TestMaxIters(t *testing.T) {
	root := t.TempDir()
	loop := calls(agent.ToolCall{ID: "g", Name: "Glob", Input: input(map[string]any{"pattern": "*"})})
	m := &scripted{steps: []func(*agent.Request) []agent.ModelEvent{loop, loop, loop,
		func(req *agent.Request) []agent.ModelEvent {
			if len(req.Tools) != 0 || !strings.Contains(req.Messages[len(req.Messages)-1].Text, "used all your steps") {
				t.Errorf("final request: %d tools, last %+v", len(req.Tools), req.Messages[len(req.Messages)-1])
			}
			return []agent.ModelEvent{{Text: "Here is what I found."}, {ToolCall: &agent.ToolCall{ID: "x", Name: "Glob"}}}
		},
	}}
	a := newAgent(t, root, m)
	a.MaxIters = 3
	evs := collect(t, a.Run(context.Background(), agent.NewRun(nil), "Look around"))
	if len(m.reqs) != 4 || len(evs[agent.EventReplyEnd]) != 1 || evs[agent.EventReplyEnd][0].Text != "Here is what I found." {
		t.Errorf("%d requests; events %v", len(m.reqs), evs)
	}
}

// Cancelling the context stops a running command; the call ends
// interrupted.
func TestCancelMidTool(t *testing.T) {
	m := &scripted{steps: []func(*agent.Request) []agent.ModelEvent{
		calls(agent.ToolCall{ID: "s", Name: "Bash", Input: input(map[string]any{"command": "sleep 30"})}),
	}}
	a := newAgent(t, t.TempDir(), m)
	run := agent.NewRun(tool.NewState(&permission.Context{Mode: permission.Bypass}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []agent.Event
	for ev, err := range a.Run(ctx, run, "Wait") {
		if err != nil {
			break
		}
		got = append(got, ev)
		if ev.Kind == agent.EventToolCall {
			go cancel()
		}
	}
	var res *tool.Result
	for _, ev := range got {
		if ev.Kind == agent.EventToolResult {
			res = ev.Result
		}
	}
	if res == nil || res.Status != tool.StatusInterrupted && res.Status != tool.StatusError {
		t.Errorf("result of the cancelled call: %+v", res)
	}
	end := got[len(got)-1]
	if end.Kind != agent.EventReplyEnd || !end.Interrupted || end.Text != agent.InterruptionMessage {
		t.Errorf("last event: %+v", end)
	}
	if len(m.reqs) != 1 {
		t.Errorf("the model was asked again after the interruption (%d requests)", len(m.reqs))
	}
}

// Two reads of one outside directory in one turn: the second is held back
// instead of asked, because "always" for the first would allow it; after
// "always" it runs without a prompt, after a plain "yes" it is asked.
func TestBatchAsksOnceForCoveredCalls(t *testing.T) {
	for _, always := range []bool{true, false} {
		t.Run(fmt.Sprintf("always=%v", always), func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			a1, a2 := filepath.Join(outside, "a.txt"), filepath.Join(outside, "b.txt")
			os.WriteFile(a1, []byte("one\n"), 0o644)
			os.WriteFile(a2, []byte("two\n"), 0o644)
			m := &scripted{steps: []func(*agent.Request) []agent.ModelEvent{
				calls(agent.ToolCall{ID: "1", Name: "Read", Input: input(map[string]any{"file_path": a1})},
					agent.ToolCall{ID: "2", Name: "Read", Input: input(map[string]any{"file_path": a2})}),
				say("Both read."),
			}}
			a := newAgent(t, root, m)
			run := agent.NewRun(nil)
			evs := collect(t, a.Run(context.Background(), run, "Read them"))
			if n := len(evs[agent.EventNeedApproval]); n != 1 {
				t.Fatalf("%d approvals asked, want 1; waiting %+v", n, run.Waiting)
			}
			ask := evs[agent.EventNeedApproval][0]
			ans := agent.Answer{CallID: ask.Call.ID, Approve: true}
			if always {
				ans.Rules = ask.Decision.Suggestions
			}
			evs = collect(t, a.Resume(context.Background(), run, ans))
			if always {
				if len(evs[agent.EventToolResult]) != 2 || len(evs[agent.EventReplyEnd]) != 1 {
					t.Errorf("after always: %v", evs)
				}
			} else if len(evs[agent.EventNeedApproval]) != 1 || evs[agent.EventNeedApproval][0].Call.ID != "2" {
				t.Errorf("after a plain yes, the second read should be asked: %v", evs)
			}
		})
	}
}

// The user may edit a call's input when approving it; the edited input is
// validated and runs.
func TestResumeWithEditedInput(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "e.txt")
	m := &scripted{steps: []func(*agent.Request) []agent.ModelEvent{
		calls(agent.ToolCall{ID: "w", Name: "Write", Input: input(map[string]any{"file_path": f, "content": "model's"})}),
		say("ok"),
	}}
	a := newAgent(t, root, m)
	run := agent.NewRun(nil)
	collect(t, a.Run(context.Background(), run, "write"))
	collect(t, a.Resume(context.Background(), run, agent.Answer{CallID: "w", Approve: true, Input: input(map[string]any{"file_path": f, "content": "user's"})}))
	if b, _ := os.ReadFile(f); string(b) != "user's" {
		t.Errorf("file: %q", b)
	}
}

// A prompt hook adds context or refuses the input; a stop hook keeps the
// reply going with its reason.
func TestPromptAndStopHooks(t *testing.T) {
	m := &scripted{steps: []func(*agent.Request) []agent.ModelEvent{
		func(req *agent.Request) []agent.ModelEvent {
			if got := req.Messages[0].Text; got != "fix it\n\n(context: branch main)" {
				t.Errorf("the model got %q", got)
			}
			return []agent.ModelEvent{{Text: "Fixed."}}
		},
		func(req *agent.Request) []agent.ModelEvent {
			if got := req.Messages[len(req.Messages)-1].Text; got != "Run the tests before you stop." {
				t.Errorf("the model got %q", got)
			}
			return []agent.ModelEvent{{Text: "Tests pass."}}
		},
	}}
	a := newAgent(t, t.TempDir(), m)
	a.PromptHook = func(_ context.Context, in string) (string, error) {
		if strings.Contains(in, "password") {
			return "", errors.New("prompts may not hold passwords")
		}
		return in + "\n\n(context: branch main)", nil
	}
	stops := 0
	a.StopHook = func(_ context.Context, _ *agent.Run, answer string) string {
		stops++
		if answer == "Fixed." {
			return "Run the tests before you stop."
		}
		return ""
	}
	run := agent.NewRun(nil)
	evs := collect(t, a.Run(context.Background(), run, "fix it"))
	if len(evs[agent.EventReplyEnd]) != 1 || evs[agent.EventReplyEnd][0].Text != "Tests pass." || stops != 2 {
		t.Errorf("events %v, %d stop checks", evs, stops)
	}
	if _, err := firstErr(a.Run(context.Background(), run, "my password is x")); !errors.Is(err, agent.ErrPromptRefused) {
		t.Errorf("refused prompt: %v", err)
	}
}

// The reference's words for a denied or an interrupted call reach the model
// as they are; other failures are marked with their status.
func TestResultText(t *testing.T) {
	for _, tt := range []struct {
		r    tool.Result
		want string
	}{
		{tool.Result{Status: tool.StatusDenied, Content: []tool.Block{tool.TextBlock(agent.DeniedText("Bash"))}},
			`<system-reminder>The execution of tool "Bash" is denied by user!</system-reminder>`},
		{tool.Result{Status: tool.StatusInterrupted, Content: []tool.Block{tool.TextBlock(tool.InterruptedText)}}, tool.InterruptedText},
		{tool.Result{Status: tool.StatusError, Content: []tool.Block{tool.TextBlock("Error: no such file")}}, "Error: no such file"},
		{tool.Result{Status: tool.StatusError, Content: []tool.Block{tool.TextBlock("exit status 1")}}, "[error] exit status 1"},
		{tool.Result{Status: tool.StatusSuccess, Content: []tool.Block{tool.TextBlock("ok")}}, "ok"},
	} {
		if got := agent.ResultText(&tt.r); got != tt.want {
			t.Errorf("ResultText(%s %q) = %q, want %q", tt.r.Status, tt.r.Text(), got, tt.want)
		}
	}
}

// Calls of one answer that share an id (or have none) get ids of their
// own: approving the first does not approve the second, whose input the
// user never saw.
func TestDistinctCallIDs(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
	m := &scripted{steps: []func(*agent.Request) []agent.ModelEvent{
		calls(agent.ToolCall{ID: "x", Name: "Write", Input: input(map[string]any{"file_path": a, "content": "a"})},
			agent.ToolCall{ID: "x", Name: "Bash", Input: input(map[string]any{"command": "touch " + b})},
			agent.ToolCall{Name: "Read", Input: input(map[string]any{"file_path": a})}),
		say("Done."),
	}}
	ag := newAgent(t, root, m)
	run := agent.NewRun(nil)
	evs := collect(t, ag.Run(context.Background(), run, "go"))
	var ids []string
	for _, ev := range evs[agent.EventToolCall] {
		ids = append(ids, ev.Call.ID)
	}
	if fmt.Sprint(ids) != "[x x~2 call_3]" {
		t.Fatalf("call ids %v", ids)
	}
	if got := run.Messages[1].ToolCalls; got[1].ID != "x~2" || got[2].ID != "call_3" {
		t.Fatalf("the transcript's calls: %+v", got)
	}
	// Approving x runs the Write only; the Bash call, held back, asks on
	// its own.
	evs = collect(t, ag.Resume(context.Background(), run, agent.Answer{CallID: "x", Approve: true}))
	if _, err := os.Stat(b); err == nil {
		t.Fatal("approving x ran the other call named x")
	}
	if len(evs[agent.EventNeedApproval]) != 1 || evs[agent.EventNeedApproval][0].Call.ID != "x~2" {
		t.Fatalf("after approving x: %v", evs)
	}
}

func TestDistinctIDs(t *testing.T) {
	cs := []agent.ToolCall{{ID: "a"}, {ID: "a"}, {}, {ID: "a~2"}, {ID: "a"}, {}}
	agent.DistinctIDs(cs)
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	if fmt.Sprint(ids) != "[a a~2 call_3 a~2~2 a~3 call_6]" {
		t.Fatalf("ids %v", ids)
	}
}

// titled is a tool with a title and annotations that asks before every
// call, suggesting a rule for all its calls.
type titled struct{}

func (titled) Info() tool.Info {
	yes, no := true, false
	return tool.Info{Name: "drop_table", Title: "Drop a table", Description: "Drop a table of the database.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"table":{"type":"string"}}}`),
		Annotations: &tool.Annotations{ReadOnlyHint: &no, DestructiveHint: &yes, OpenWorldHint: &yes}}
}

func (titled) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Ask, Message: "Dropping a table needs approval.",
		Suggestions: []permission.Rule{{Tool: "drop_table", Behavior: permission.Allow}}}, nil
}

func (titled) Call(context.Context, *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) { yield(tool.Text("dropped"), nil) }
}

// A waiting call carries its tool's title and annotations, as the model
// was offered them, through the run's JSON; a call held back and asked
// again after an answer keeps them; a tool with none records none.
func TestWaitingCarriesAnnotations(t *testing.T) {
	m := &scripted{steps: []func(*agent.Request) []agent.ModelEvent{
		calls(agent.ToolCall{ID: "1", Name: "drop_table", Input: input(map[string]any{"table": "a"})},
			agent.ToolCall{ID: "2", Name: "drop_table", Input: input(map[string]any{"table": "b"})},
			agent.ToolCall{ID: "3", Name: "deploy"}),
		say("Done."),
	}}
	a := newAgent(t, t.TempDir(), m, titled{}, tooltest.External{Name: "deploy"})
	run := agent.NewRun(nil)
	collect(t, a.Run(context.Background(), run, "Drop a and b, then deploy"))
	saved, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(saved), `"title":"Drop a table","annotations":{"readOnlyHint":false,"destructiveHint":true,"openWorldHint":true}`) {
		t.Errorf("the run's JSON: %s", saved)
	}
	var back agent.Run
	if err := json.Unmarshal(saved, &back); err != nil {
		t.Fatal(err)
	}
	want := func(w agent.Waiting) {
		t.Helper()
		a := w.Annotations
		if w.Title != "Drop a table" || a == nil || a.ReadOnlyHint == nil || *a.ReadOnlyHint || a.DestructiveHint == nil || !*a.DestructiveHint ||
			a.IdempotentHint != nil || a.OpenWorldHint == nil || !*a.OpenWorldHint {
			t.Errorf("waiting call %s: title %q, annotations %+v", w.Call.ID, w.Title, a)
		}
	}
	if len(back.Waiting) != 3 || back.Waiting[0].Status != tool.StatusAsking || back.Waiting[1].Status != tool.StatusPending {
		t.Fatalf("waiting: %+v", back.Waiting)
	}
	want(back.Waiting[0])
	want(back.Waiting[1])
	if w := back.Waiting[2]; w.Title != "" || w.Annotations != nil {
		t.Errorf("a tool without title or annotations: %q %+v", w.Title, w.Annotations)
	}
	// The record is the run's own: changing it changes no tool.
	*run.Waiting[0].Annotations.DestructiveHint = false
	if s := a.Toolkit.Schemas(context.Background(), nil); !slices.ContainsFunc(s, func(s tool.Schema) bool {
		return s.Name == "drop_table" && s.Annotations.DestructiveHint != nil && *s.Annotations.DestructiveHint
	}) {
		t.Error("the waiting call's annotations are the tool's own")
	}
	// A plain yes to the first: the second, held back, is asked now, in
	// a resumption that offered the model no schema.
	var again agent.Run
	json.Unmarshal(saved, &again)
	collect(t, a.Resume(context.Background(), &again, agent.Answer{CallID: "1", Approve: true}))
	if len(again.Waiting) != 2 || again.Waiting[0].Call.ID != "2" || again.Waiting[0].Status != tool.StatusAsking {
		t.Fatalf("waiting after the answer: %+v", again.Waiting)
	}
	want(again.Waiting[0])
}
