package subagent_test

import (
	"context"
	"encoding/json"
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
	"github.com/toolscope/toolscope/subagent"
	"github.com/toolscope/toolscope/tool"
)

// model answers from one script per system prompt (the parent's and each
// sub-agent's), a step per request, and keeps the requests.
type model struct {
	mu      sync.Mutex
	scripts map[string][]func(*agent.Request) []agent.ModelEvent
	reqs    map[string][]*agent.Request
}

func newModel() *model {
	return &model{scripts: map[string][]func(*agent.Request) []agent.ModelEvent{}, reqs: map[string][]*agent.Request{}}
}

// on adds steps for the agent whose system prompt starts with prefix.
func (m *model) on(prefix string, steps ...func(*agent.Request) []agent.ModelEvent) {
	m.scripts[prefix] = append(m.scripts[prefix], steps...)
}

func (m *model) requests(prefix string) []*agent.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.reqs[prefix])
}

func (m *model) Stream(_ context.Context, req *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		m.mu.Lock()
		var key string
		for k := range m.scripts {
			if strings.HasPrefix(req.System, k) && len(k) > len(key) {
				key = k
			}
		}
		n := len(m.reqs[key])
		m.reqs[key] = append(m.reqs[key], req)
		steps := m.scripts[key]
		m.mu.Unlock()
		if n >= len(steps) {
			yield(agent.ModelEvent{}, fmt.Errorf("the script of %q has no step %d", key, n+1))
			return
		}
		for _, ev := range steps[n](req) {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func say(text string) func(*agent.Request) []agent.ModelEvent {
	return func(*agent.Request) []agent.ModelEvent { return []agent.ModelEvent{{Text: text}} }
}

func call(id, name string, in any) func(*agent.Request) []agent.ModelEvent {
	return func(*agent.Request) []agent.ModelEvent {
		b, _ := json.Marshal(in)
		return []agent.ModelEvent{{ToolCall: &agent.ToolCall{ID: id, Name: name, Input: b}}}
	}
}

const parentPrompt = "PARENT. You are careful."

type setup struct {
	root  string
	m     *model
	a     *agent.Agent
	tk    *tool.Toolkit
	asker tool.Asker
}

func newSetup(t *testing.T, defs []subagent.Definition, asker tool.Asker) *setup {
	t.Helper()
	s := &setup{root: t.TempDir(), m: newModel()}
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: s.root}), Asker: asker})
	if err != nil {
		t.Fatal(err)
	}
	at, err := subagent.New(&subagent.Options{Definitions: defs, Model: s.m, Toolkit: tk})
	if err != nil {
		t.Fatal(err)
	}
	if err := tk.Add(tool.BasicGroup, at); err != nil {
		t.Fatal(err)
	}
	s.tk = tk
	s.a = &agent.Agent{Model: s.m, Toolkit: tk, SystemPrompt: parentPrompt}
	return s
}

func events(t *testing.T, seq iter.Seq2[agent.Event, error]) map[agent.EventKind][]agent.Event {
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

func agentCall(typ, prompt string) map[string]any {
	return map[string]any{"description": "look around", "prompt": prompt, "subagent_type": typ}
}

// A sub-agent does its task with its own tools and prompt; the parent
// reads its final answer, and sees its steps as progress.
func TestSubagentAnswers(t *testing.T) {
	s := newSetup(t, nil, nil)
	os.WriteFile(filepath.Join(s.root, "main.go"), []byte("package main\n// the needle is here\n"), 0o644)
	s.m.on(parentPrompt,
		call("p1", "Agent", agentCall("Explore", "Where is the needle?")),
		func(req *agent.Request) []agent.ModelEvent {
			res := req.Messages[len(req.Messages)-1].Result
			if res == nil || res.Text() != "The needle is in main.go line 2." {
				t.Errorf("the parent read %+v", res)
			}
			return []agent.ModelEvent{{Text: "Found it."}}
		})
	s.m.on(subagent.Explore.Prompt,
		call("s1", "Grep", map[string]any{"pattern": "needle", "path": s.root, "output_mode": "content", "-n": true}),
		func(req *agent.Request) []agent.ModelEvent {
			res := req.Messages[len(req.Messages)-1].Result
			if res == nil || !strings.Contains(res.Text(), "needle") {
				t.Errorf("the sub-agent's Grep gave %+v", res)
			}
			return []agent.ModelEvent{{Text: "The needle is in main.go line 2."}}
		})
	run := agent.NewRun(nil)
	evs := events(t, s.a.Run(context.Background(), run, "find the needle"))
	if len(evs[agent.EventReplyEnd]) != 1 || evs[agent.EventReplyEnd][0].Text != "Found it." {
		t.Fatalf("reply: %+v", evs[agent.EventReplyEnd])
	}
	subReqs := s.m.requests(subagent.Explore.Prompt)
	if len(subReqs) != 2 {
		t.Fatalf("%d sub-agent requests", len(subReqs))
	}
	var offered []string
	for _, sc := range subReqs[0].Tools {
		offered = append(offered, sc.Name)
	}
	slices.Sort(offered)
	if want := []string{"Bash", "Glob", "Grep", "Read"}; !slices.Equal(offered, want) {
		t.Errorf("the Explore sub-agent was offered %v, want %v", offered, want)
	}
	if m := subReqs[0].Messages; len(m) != 1 || m[0].Text != "Where is the needle?" {
		t.Errorf("the sub-agent's first request: %+v (it must not see the parent's conversation)", m)
	}
	var progress []string
	for _, ev := range evs[agent.EventToolChunk] {
		if ev.Chunk.Progress != nil {
			progress = append(progress, ev.Chunk.Progress.Message)
		}
	}
	if len(progress) != 2 || !strings.HasPrefix(progress[0], "Explore: Grep {") || progress[1] != "Explore: Grep success" {
		t.Errorf("progress: %q", progress)
	}
	// The parent's general-purpose sub-agent gets every tool but Agent.
	var parentTools []string
	for _, sc := range s.m.requests(parentPrompt)[0].Tools {
		parentTools = append(parentTools, sc.Name)
	}
	if !slices.Contains(parentTools, "Agent") {
		t.Errorf("the parent was not offered Agent: %v", parentTools)
	}
}

// The general-purpose sub-agent gets every tool of its parent but the
// sub-agent tool; a call to a tool it was not given is refused, and runs
// nothing.
func TestSubagentToolSubset(t *testing.T) {
	s := newSetup(t, []subagent.Definition{{Name: "reader", Description: "reads", Prompt: "READER.", Tools: []string{"Read", "Write", "Nope"}, DisallowedTools: []string{"Write"}}}, nil)
	target := filepath.Join(s.root, "out.txt")
	s.m.on(parentPrompt,
		call("p1", "Agent", agentCall("general-purpose", "list")),
		call("p2", "Agent", agentCall("reader", "write it")),
		say("done"))
	s.m.on(subagent.GeneralPurpose.Prompt, say("nothing to do"))
	s.m.on("READER.",
		call("r1", "Write", map[string]any{"file_path": target, "content": "x"}),
		call("r2", "Agent", agentCall("general-purpose", "nested")),
		say("could not"))
	run := agent.NewRun(tool.NewState(&permission.Context{Mode: permission.Bypass}))
	events(t, s.a.Run(context.Background(), run, "go"))
	gp := s.m.requests(subagent.GeneralPurpose.Prompt)
	if len(gp) != 1 {
		t.Fatalf("%d general-purpose requests", len(gp))
	}
	for _, sc := range gp[0].Tools {
		if sc.Name == "Agent" {
			t.Error("a sub-agent was offered the sub-agent tool")
		}
	}
	if len(gp[0].Tools) < 8 {
		t.Errorf("general-purpose got %d tools", len(gp[0].Tools))
	}
	rd := s.m.requests("READER.")
	if len(rd) != 3 || len(rd[0].Tools) != 1 || rd[0].Tools[0].Name != "Read" {
		t.Fatalf("reader: %d requests, tools %+v", len(rd), rd[0].Tools)
	}
	for i, want := range []string{"Tool 'Write' is not available to this agent. Its tools are: Read.", "Tool 'Agent' is not available to this agent. Its tools are: Read."} {
		res := rd[i+1].Messages[len(rd[i+1].Messages)-1].Result
		if res == nil || res.Status != tool.StatusError || res.Text() != want {
			t.Errorf("call %d: %+v", i, res)
		}
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("a tool the sub-agent was not given ran (bypass mode and all)")
	}
}

func TestNarrowMode(t *testing.T) {
	P := permission.Default
	A, E, B, D := permission.AcceptEdits, permission.Explore, permission.Bypass, permission.DontAsk
	for _, c := range []struct{ parent, want, got permission.Mode }{
		{P, "", P}, {P, A, P}, {P, B, P}, {P, E, E}, {P, D, P},
		{A, B, A}, {A, P, P}, {A, E, E}, {A, D, D},
		{B, A, A}, {B, E, E}, {B, B, B}, {B, "", B},
		{E, P, E}, {E, A, E}, {E, B, E}, {E, D, E},
		{D, P, D}, {D, E, E}, {D, A, D}, {D, B, D},
	} {
		if got := subagent.NarrowMode(c.parent, c.want); got != c.got {
			t.Errorf("NarrowMode(%s, %q) = %s, want %s", c.parent, c.want, got, c.got)
		}
	}
}

// A sub-agent asking for a wider mode than its parent's runs in its
// parent's: in default mode its write asks, it is not made.
func TestSubagentModeNoWider(t *testing.T) {
	s := newSetup(t, []subagent.Definition{{Name: "wild", Description: "d", Prompt: "WILD.", Mode: permission.Bypass}}, nil)
	target := filepath.Join(s.root, "made.txt")
	s.m.on(parentPrompt, call("p1", "Agent", agentCall("wild", "make it")))
	s.m.on("WILD.", call("w1", "Bash", map[string]any{"command": "touch " + target}))
	run := agent.NewRun(nil)
	evs := events(t, s.a.Run(context.Background(), run, "go"))
	if len(evs[agent.EventPaused]) != 1 || len(run.Waiting) != 1 || run.Waiting[0].Call.Name != "Agent" {
		t.Fatalf("the run did not pause on the sub-agent: %+v", run.Waiting)
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("the sub-agent wrote in a mode wider than its parent's")
	}
}

// A sub-agent's call that needs approval pauses the parent's run on the
// Agent call, whose decision shows exactly the sub-agent's call; the run
// saved and read back, an approval resumes the sub-agent with that call
// approved, once.
func TestSubagentPauseApprove(t *testing.T) {
	s := newSetup(t, nil, nil)
	target := filepath.Join(s.root, "made.txt")
	cmd := "echo run >> " + target
	s.m.on(parentPrompt,
		call("p1", "Agent", agentCall("general-purpose", "make the file")),
		func(req *agent.Request) []agent.ModelEvent {
			res := req.Messages[len(req.Messages)-1].Result
			if res == nil || res.Text() != "made it" {
				t.Errorf("the parent read %+v", res)
			}
			return []agent.ModelEvent{{Text: "ok"}}
		})
	s.m.on(subagent.GeneralPurpose.Prompt,
		call("g1", "Bash", map[string]any{"command": cmd}),
		func(req *agent.Request) []agent.ModelEvent {
			res := req.Messages[len(req.Messages)-1].Result
			if res == nil || res.Status != tool.StatusSuccess {
				t.Errorf("the sub-agent's Bash: %+v", res)
			}
			return []agent.ModelEvent{{Text: "made it"}}
		})
	run := agent.NewRun(nil)
	evs := events(t, s.a.Run(context.Background(), run, "go"))
	na := evs[agent.EventNeedApproval]
	if len(na) != 1 || na[0].Call.Name != "Agent" || na[0].Decision == nil {
		t.Fatalf("need approval: %+v", na)
	}
	d := na[0].Decision
	wantCmd, _ := json.Marshal(map[string]any{"command": cmd})
	if !strings.Contains(d.Message, "Bash "+string(wantCmd)) || !strings.Contains(d.Message, "general-purpose") {
		t.Errorf("the approval does not show the sub-agent's call exactly:\n%s", d.Message)
	}
	if len(d.Suggestions) == 0 || d.Suggestions[0].Tool != "Bash" {
		t.Errorf("suggestions: %+v", d.Suggestions)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the call ran before its approval")
	}
	// The run is saved and read back, as run --resume does.
	saved, err := json.MarshalIndent(run, "", "  ") // as a run file is
	if err != nil {
		t.Fatal(err)
	}
	run2 := &agent.Run{}
	if err := json.Unmarshal(saved, run2); err != nil {
		t.Fatal(err)
	}
	evs = events(t, s.a.Resume(context.Background(), run2, agent.Answer{CallID: "p1", Approve: true}))
	if got, _ := os.ReadFile(target); string(got) != "run\n" {
		t.Errorf("the file after the approval: %q (the approved call must run once)", got)
	}
	if len(evs[agent.EventReplyEnd]) != 1 || evs[agent.EventReplyEnd][0].Text != "ok" {
		t.Errorf("reply: %+v", evs[agent.EventReplyEnd])
	}
	if n := len(s.m.requests(subagent.GeneralPurpose.Prompt)); n != 2 {
		t.Errorf("the sub-agent's model was asked %d times, want 2 (resumed, not started again)", n)
	}
}

// Refusing the Agent call refuses the sub-agent's call: nothing runs.
func TestSubagentPauseDeny(t *testing.T) {
	s := newSetup(t, nil, nil)
	target := filepath.Join(s.root, "made.txt")
	s.m.on(parentPrompt, call("p1", "Agent", agentCall("general-purpose", "make the file")), say("ok"))
	s.m.on(subagent.GeneralPurpose.Prompt, call("g1", "Bash", map[string]any{"command": "touch " + target}))
	run := agent.NewRun(nil)
	events(t, s.a.Run(context.Background(), run, "go"))
	evs := events(t, s.a.Resume(context.Background(), run, agent.Answer{CallID: "p1", Approve: false}))
	if _, err := os.Stat(target); err == nil {
		t.Error("a refused sub-agent call ran")
	}
	res := evs[agent.EventToolResult]
	if len(res) != 1 || res[0].Result.Status != tool.StatusDenied {
		t.Errorf("results: %+v", res)
	}
}

// An approval with an edited input approves nothing of the paused
// sub-agent: it starts again on the new input, and asks again.
func TestSubagentPauseEditedInput(t *testing.T) {
	s := newSetup(t, nil, nil)
	target := filepath.Join(s.root, "made.txt")
	s.m.on(parentPrompt, call("p1", "Agent", agentCall("general-purpose", "make the file")))
	s.m.on(subagent.GeneralPurpose.Prompt,
		call("g1", "Bash", map[string]any{"command": "touch " + target}),
		call("g2", "Bash", map[string]any{"command": "touch " + target + ".2"}))
	run := agent.NewRun(nil)
	events(t, s.a.Run(context.Background(), run, "go"))
	edited, _ := json.Marshal(agentCall("general-purpose", "make the other file"))
	evs := events(t, s.a.Resume(context.Background(), run, agent.Answer{CallID: "p1", Approve: true, Input: edited}))
	for _, p := range []string{target, target + ".2"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was made: an edited input's approval approved the sub-agent's call", filepath.Base(p))
		}
	}
	if len(evs[agent.EventPaused]) != 1 {
		t.Errorf("the run did not pause again: %v", evs)
	}
	gp := s.m.requests(subagent.GeneralPurpose.Prompt)
	if len(gp) != 2 || gp[1].Messages[0].Text != "make the other file" {
		t.Errorf("the sub-agent did not start afresh on the edited prompt: %d requests", len(gp))
	}
}

// An "always" answer's rules become the parent's, and the resumed
// sub-agent's calls they cover need no further approval.
func TestSubagentPauseAlways(t *testing.T) {
	s := newSetup(t, nil, nil)
	a, b := filepath.Join(s.root, "a"), filepath.Join(s.root, "b")
	s.m.on(parentPrompt, call("p1", "Agent", agentCall("general-purpose", "make two files")), say("ok"))
	s.m.on(subagent.GeneralPurpose.Prompt,
		call("g1", "Bash", map[string]any{"command": "touch " + a}),
		call("g2", "Bash", map[string]any{"command": "touch " + b}),
		say("made both"))
	run := agent.NewRun(nil)
	evs := events(t, s.a.Run(context.Background(), run, "go"))
	d := evs[agent.EventNeedApproval][0].Decision
	rules := []permission.Rule{{Tool: "Bash", Content: "touch:*", Behavior: permission.Allow, Source: "test"}}
	if len(d.Suggestions) == 0 {
		t.Fatal("no suggestion")
	}
	evs = events(t, s.a.Resume(context.Background(), run, agent.Answer{CallID: "p1", Approve: true, Rules: rules}))
	for _, p := range []string{a, b} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
	}
	if len(evs[agent.EventPaused]) != 0 || len(evs[agent.EventReplyEnd]) != 1 {
		t.Errorf("the run paused again: %v", evs)
	}
}

// Rules deny the parent's sub-agent calls, and name kinds of sub-agents
// as Claude Code's Agent(NAME) and Task(NAME) do.
func TestSubagentRules(t *testing.T) {
	for _, c := range []struct {
		rule, typ string
		denied    bool
	}{
		{"Agent(Explore)", "Explore", true},
		{"Task(Explore)", "Explore", true},
		{"Agent(Explore)", "general-purpose", false},
		{"Agent", "Explore", true},
		{"Task", "general-purpose", true},
	} {
		s := newSetup(t, nil, nil)
		r, err := permission.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		r.Behavior = permission.Deny
		st := tool.NewState(&permission.Context{Mode: permission.Default})
		st.AddRule(r)
		in, _ := json.Marshal(agentCall(c.typ, "x"))
		v, err := s.tk.Check(context.Background(), &tool.Call{Name: "Agent", Input: in, State: st})
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Decision.Behavior == permission.Deny; got != c.denied {
			t.Errorf("%s on %s: %s", c.rule, c.typ, v.Decision.Behavior)
		}
	}
}

// The parent's deny rules hold inside a sub-agent, even in bypass.
func TestSubagentParentDenyRule(t *testing.T) {
	s := newSetup(t, nil, nil)
	target := filepath.Join(s.root, "x")
	os.WriteFile(target, nil, 0o644)
	s.m.on(parentPrompt, call("p1", "Agent", agentCall("general-purpose", "remove it")), say("ok"))
	s.m.on(subagent.GeneralPurpose.Prompt, call("g1", "Bash", map[string]any{"command": "rm " + target}), say("could not"))
	st := tool.NewState(&permission.Context{Mode: permission.Bypass})
	st.AddRule(permission.Rule{Tool: "Bash", Content: "rm:*", Behavior: permission.Deny, Source: "test"})
	events(t, s.a.Run(context.Background(), agent.NewRun(st), "go"))
	if _, err := os.Stat(target); err != nil {
		t.Error("a parent's deny rule did not hold in its sub-agent")
	}
	gp := s.m.requests(subagent.GeneralPurpose.Prompt)
	if res := gp[1].Messages[len(gp[1].Messages)-1].Result; res == nil || res.Status != tool.StatusDenied {
		t.Errorf("the sub-agent's rm: %+v", res)
	}
}

type recordingAsker struct {
	mu    sync.Mutex
	asked []string
}

func (a *recordingAsker) Ask(ctx context.Context, c *tool.Call, d permission.Decision) (bool, []permission.Rule, error) {
	info, ok := subagent.FromContext(ctx)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, fmt.Sprintf("%v %s %s %s", ok, info.Type, info.Description, c.Name))
	return true, nil, nil
}

// Where the user can be asked at once (a terminal), a sub-agent's call
// is asked about there, the prompt knowing which sub-agent asks; the run
// does not pause.
func TestSubagentAsker(t *testing.T) {
	ask := &recordingAsker{}
	s := newSetup(t, nil, ask)
	target := filepath.Join(s.root, "made.txt")
	s.m.on(parentPrompt, call("p1", "Agent", agentCall("general-purpose", "make it")), say("ok"))
	s.m.on(subagent.GeneralPurpose.Prompt, call("g1", "Bash", map[string]any{"command": "touch " + target}), say("made"))
	evs := events(t, s.a.Run(context.Background(), agent.NewRun(nil), "go"))
	if len(evs[agent.EventPaused]) != 0 {
		t.Fatal("paused")
	}
	if _, err := os.Stat(target); err != nil {
		t.Error(err)
	}
	if want := []string{"true general-purpose look around Bash"}; !slices.Equal(ask.asked, want) {
		t.Errorf("asked %q, want %q", ask.asked, want)
	}
}

// Bad inputs get errors the model can act on.
func TestSubagentBadInput(t *testing.T) {
	s := newSetup(t, nil, nil)
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{agentCall("nope", "x"), `There is no sub-agent of type "nope". Use one of: general-purpose, Explore.`},
		{agentCall("Explore", "  "), "The prompt is empty: give the sub-agent its whole task."},
	} {
		in, _ := json.Marshal(c.in)
		res, err := s.tk.Call(context.Background(), &tool.Call{ID: "1", Name: "Agent", Input: in, State: tool.NewState(nil)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != tool.StatusError || res.Text() != c.want {
			t.Errorf("%v: %s %q", c.in, res.Status, res.Text())
		}
	}
}

type nopModel struct{}

func (nopModel) Stream(context.Context, *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(func(agent.ModelEvent, error) bool) {}
}

func emptyToolkit(t *testing.T) *tool.Toolkit {
	tk, err := tool.NewToolkit(nil)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// Two sub-agents of one answer work in parallel; both pause, and one
// resumption with both approvals runs each one's call once.
func TestSubagentsInParallel(t *testing.T) {
	s := newSetup(t, []subagent.Definition{{Name: "one", Description: "d", Prompt: "ONE."}, {Name: "two", Description: "d", Prompt: "TWO."}}, nil)
	a, b := filepath.Join(s.root, "a"), filepath.Join(s.root, "b")
	s.m.on(parentPrompt, func(*agent.Request) []agent.ModelEvent {
		i1, _ := json.Marshal(agentCall("one", "make a"))
		i2, _ := json.Marshal(agentCall("two", "make b"))
		return []agent.ModelEvent{{ToolCall: &agent.ToolCall{ID: "p1", Name: "Agent", Input: i1}}, {ToolCall: &agent.ToolCall{ID: "p2", Name: "Agent", Input: i2}}}
	}, say("both"))
	s.m.on("ONE.", call("o1", "Bash", map[string]any{"command": "echo x >> " + a}), say("a made"))
	s.m.on("TWO.", call("t1", "Bash", map[string]any{"command": "echo x >> " + b}), say("b made"))
	run := agent.NewRun(nil)
	evs := events(t, s.a.Run(context.Background(), run, "go"))
	if len(evs[agent.EventNeedApproval]) != 2 {
		t.Fatalf("%d approvals asked", len(evs[agent.EventNeedApproval]))
	}
	evs = events(t, s.a.Resume(context.Background(), run, agent.Answer{CallID: "p1", Approve: true}, agent.Answer{CallID: "p2", Approve: true}))
	for _, p := range []string{a, b} {
		if got, _ := os.ReadFile(p); string(got) != "x\n" {
			t.Errorf("%s: %q", filepath.Base(p), got)
		}
	}
	var texts []string
	for _, ev := range evs[agent.EventToolResult] {
		texts = append(texts, ev.Result.Text())
	}
	slices.Sort(texts)
	if !slices.Equal(texts, []string{"a made", "b made"}) {
		t.Errorf("results %q", texts)
	}
}
