package temporal_test

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
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/subagent"
	"github.com/toolscope/toolscope/temporal"
	"github.com/toolscope/toolscope/tool"
)

// byAgent answers from one script per system prompt (the parent's, each
// sub-agent's), the step being the number of assistant messages so far.
type byAgent struct {
	mu      sync.Mutex
	scripts map[string][]step
	reqs    map[string][]agent.Request
}

func (m *byAgent) key(system string) string {
	key := ""
	for k := range m.scripts {
		if strings.HasPrefix(system, k) && len(k) > len(key) {
			key = k
		}
	}
	return key
}

func (m *byAgent) Stream(_ context.Context, req *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		m.mu.Lock()
		key := m.key(req.System)
		m.reqs[key] = append(m.reqs[key], *req)
		steps := m.scripts[key]
		m.mu.Unlock()
		n := 0
		for _, msg := range req.Messages {
			if msg.Role == agent.Assistant {
				n++
			}
		}
		if n >= len(steps) {
			yield(agent.ModelEvent{}, fmt.Errorf("no step %d in the script of %q", n, key))
			return
		}
		s := steps[n]
		if s.text != "" && !yield(agent.ModelEvent{Text: s.text}, nil) {
			return
		}
		for _, c := range s.calls {
			if !yield(agent.ModelEvent{ToolCall: &agent.ToolCall{ID: c[0], Name: c[1], Input: json.RawMessage(c[2])}}, nil) {
				return
			}
		}
	}
}

func (m *byAgent) last(key string) *agent.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.reqs[key]; len(r) > 0 {
		return &r[len(r)-1]
	}
	return nil
}

func subEnv(t *testing.T, dir string, m *byAgent, defs ...subagent.Definition) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	env, tools := testEnv(t, dir, m)
	if err := tools.EnableSubagents(defs); err != nil {
		t.Fatal(err)
	}
	env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
	env.RegisterActivityWithOptions(tools.Subagent, activity.RegisterOptions{Name: temporal.SubagentActivity})
	return env
}

const parentSystem = "PARENT."

func agentInput(kind, prompt string) string {
	b, _ := json.Marshal(map[string]string{"description": "a task", "prompt": prompt, "subagent_type": kind})
	return string(b)
}

// An Agent call of a durable run is a child workflow: a run of the
// sub-agent's kind, with its prompt and only its tools, whose answer is
// the call's result.
func TestSubagentChildWorkflow(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main // the needle\n"), 0o644)
	m := &byAgent{reqs: map[string][]agent.Request{}, scripts: map[string][]step{
		parentSystem: {
			{calls: [][3]string{{"p1", "Agent", agentInput("Explore", "Where is the needle?")}}},
			{text: "Found."},
		},
		subagent.Explore.Prompt: {
			{calls: [][3]string{{"s1", "Grep", `{"pattern":"needle","output_mode":"files_with_matches"}`}, {"s2", "Write", `{"file_path":"x","content":"x"}`}}},
			{text: "In main.go."},
		},
	}}
	env := subEnv(t, dir, m)
	in := runInput("go", permission.Bypass)
	in.System = parentSystem
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var out temporal.RunOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	if out.Answer != "Found." {
		t.Errorf("answer %q", out.Answer)
	}
	p := m.last(parentSystem)
	res := p.Messages[len(p.Messages)-1].Result
	if res == nil || res.Status != tool.StatusSuccess || res.Text() != "In main.go." || res.Metadata["subagent_type"] != "Explore" {
		t.Fatalf("the parent read %+v", res)
	}
	s := m.last(subagent.Explore.Prompt)
	var offered []string
	for _, sc := range m.reqs[subagent.Explore.Prompt][0].Tools {
		offered = append(offered, sc.Name)
	}
	slices.Sort(offered)
	if !slices.Equal(offered, []string{"Bash", "Glob", "Grep", "Read"}) {
		t.Errorf("the sub-agent was offered %v", offered)
	}
	if first := m.reqs[subagent.Explore.Prompt][0].Messages; len(first) != 1 || first[0].Text != "Where is the needle?" {
		t.Errorf("the sub-agent began with %+v", first)
	}
	var grep, write *tool.Result
	for _, msg := range s.Messages {
		if msg.Result != nil && msg.Result.ID == "s1" {
			grep = msg.Result
		}
		if msg.Result != nil && msg.Result.ID == "s2" {
			write = msg.Result
		}
	}
	if grep == nil || !strings.Contains(grep.Text(), "main.go") {
		t.Errorf("the sub-agent's Grep: %+v", grep)
	}
	if write == nil || write.Status != tool.StatusError || !strings.Contains(write.Text(), "not available to this agent") {
		t.Errorf("the sub-agent's Write (not its tool, even in bypass): %+v", write)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("a tool the sub-agent was not given ran")
	}
}

// A sub-agent's call that needs approval makes its run wait: the parent
// waits for it, refusing answers with the name of the run to answer, and
// the sub-agent's run answered as any run's, its call runs once and its
// answer is the parent's result.
func TestSubagentChildPauses(t *testing.T) {
	dir := t.TempDir()
	m := &byAgent{reqs: map[string][]agent.Request{}, scripts: map[string][]step{
		parentSystem: {
			{calls: [][3]string{{"p1", "Agent", agentInput("general-purpose", "make the file")}}},
			{text: "Done."},
		},
		subagent.GeneralPurpose.Prompt: {
			{calls: [][3]string{{"s1", "Bash", `{"command":"echo x >> made.txt"}`}}},
			{text: "made"},
		},
	}}
	env := subEnv(t, dir, m)
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "parent-run"})
	var rejected, childRejected []string
	var pending []agent.Waiting
	env.RegisterDelayedCallback(func() {
		if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
			t.Error("the sub-agent's call ran before its approval")
		}
		env.UpdateWorkflow(temporal.AnswerUpdate, "", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { rejected = append(rejected, err.Error()) },
			OnAccept: func() {}, OnComplete: func(any, error) {},
		}, temporal.Answer{CallID: "p1", Approve: true})
		if v, err := env.QueryWorkflowByID("parent-run/agent/p1", temporal.PendingQuery); err != nil {
			t.Error(err)
		} else {
			v.Get(&pending)
		}
		err := env.UpdateWorkflowByID("parent-run/agent/p1", temporal.AnswerUpdate, "a1", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { childRejected = append(childRejected, err.Error()) },
			OnAccept: func() {}, OnComplete: func(any, error) {},
		}, temporal.Answer{CallID: "s1", Approve: true})
		if err != nil {
			t.Error(err)
		}
	}, time.Minute)
	in := runInput("go", permission.Default)
	in.System = parentSystem
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(rejected) != 1 || !strings.Contains(rejected[0], "waits for its sub-agent, whose run parent-run/agent/p1 has the calls to answer") {
		t.Errorf("the parent's answer: %q", rejected)
	}
	if len(childRejected) != 0 {
		t.Errorf("the sub-agent's answer was refused: %q", childRejected)
	}
	if len(pending) != 1 || pending[0].Call.ID != "s1" || pending[0].Call.Name != "Bash" {
		t.Errorf("the sub-agent's run waited on %+v", pending)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "made.txt")); string(got) != "x\n" {
		t.Errorf("made.txt: %q", got)
	}
	var out temporal.RunOutput
	env.GetWorkflowResult(&out)
	p := m.last(parentSystem)
	if res := p.Messages[len(p.Messages)-1].Result; res == nil || res.Text() != "made" || out.Answer != "Done." {
		t.Errorf("the parent read %+v and answered %q", res, out.Answer)
	}
}

// A sub-agent asking for a wider mode than its parent's runs in its
// parent's; rules deny kinds of sub-agent, as locally.
func TestSubagentChildModeAndRules(t *testing.T) {
	dir := t.TempDir()
	m := &byAgent{reqs: map[string][]agent.Request{}, scripts: map[string][]step{
		parentSystem: {
			{calls: [][3]string{{"p1", "Agent", agentInput("wild", "make it")}, {"p2", "Agent", agentInput("Explore", "look")}}},
			{text: "Done."},
		},
		"WILD.": {
			{calls: [][3]string{{"w1", "Bash", `{"command":"touch wild.txt"}`}}},
			{text: "tried"},
		},
	}}
	env := subEnv(t, dir, m, subagent.Definition{Name: "wild", Description: "d", Prompt: "WILD.", Mode: permission.Bypass})
	in := runInput("go", permission.Explore)
	deny, _ := permission.ParseRule("Agent(Explore)")
	deny.Behavior = permission.Deny
	in.Permissions.AddRule(deny)
	in.System = parentSystem
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "wild.txt")); err == nil {
		t.Error("a sub-agent ran in a mode wider than its parent's")
	}
	w := m.last("WILD.")
	if res := w.Messages[len(w.Messages)-1].Result; res == nil || res.Status != tool.StatusDenied {
		t.Errorf("the wild sub-agent's Bash: %+v", res)
	}
	p := m.last(parentSystem)
	for _, msg := range p.Messages {
		if msg.Result != nil && msg.Result.ID == "p2" && msg.Result.Status != tool.StatusDenied {
			t.Errorf("Agent(Explore) denied nothing: %+v", msg.Result)
		}
	}
	if len(m.reqs[subagent.Explore.Prompt]) != 0 {
		t.Error("a denied sub-agent ran")
	}
}
