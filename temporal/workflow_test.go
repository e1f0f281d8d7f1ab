package temporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/temporal"
	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/tool/tooltest"
)

// scripted is a model that answers from a script, step by step: the step is
// the number of assistant messages so far. It keeps the requests.
type scripted struct {
	mu    sync.Mutex
	steps []step
	reqs  []agent.Request
}

func (m *scripted) Stream(ctx context.Context, req *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		m.mu.Lock()
		m.reqs = append(m.reqs, *req)
		m.mu.Unlock()
		n := 0
		for _, msg := range req.Messages {
			if msg.Role == agent.Assistant {
				n++
			}
		}
		if n >= len(m.steps) {
			yield(agent.ModelEvent{}, fmt.Errorf("no step %d in the script", n))
			return
		}
		s := m.steps[n]
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

// result is the result of call id the model last read.
func (m *scripted) result(id string) *tool.Result {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.reqs) == 0 {
		return nil
	}
	for _, msg := range m.reqs[len(m.reqs)-1].Messages {
		if msg.Result != nil && msg.Result.ID == id {
			return msg.Result
		}
	}
	return nil
}

// testEnv is the SDK's test environment (no server) with the workflow, the
// real activities of a workspace dir, and a scripted model.
func testEnv(t *testing.T, dir string, m agent.Model) (*testsuite.TestWorkflowEnvironment, *temporal.Tools) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger{})
	env := s.NewTestWorkflowEnvironment()
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: dir})})
	if err != nil {
		t.Fatal(err)
	}
	tools := &temporal.Tools{Toolkit: tk}
	env.RegisterWorkflowWithOptions(temporal.Agent, workflow.RegisterOptions{Name: temporal.WorkflowName})
	env.RegisterActivityWithOptions(tools.Prepare, activity.RegisterOptions{Name: temporal.PrepareActivity})
	env.RegisterActivityWithOptions(tools.Turn, activity.RegisterOptions{Name: temporal.TurnActivity})
	env.RegisterActivityWithOptions(tools.Covered, activity.RegisterOptions{Name: temporal.CoveredActivity})
	env.RegisterActivityWithOptions(tools.Prompt, activity.RegisterOptions{Name: temporal.PromptActivity})
	env.RegisterActivityWithOptions(tools.Stop, activity.RegisterOptions{Name: temporal.StopActivity})
	models := &temporal.Models{New: func(string) (agent.Model, error) { return m, nil }}
	env.RegisterActivityWithOptions(models.Model, activity.RegisterOptions{Name: temporal.ModelActivity})
	return env, tools
}

func runInput(prompt string, mode permission.Mode, allow ...string) temporal.RunInput {
	pc := &permission.Context{Mode: mode}
	for _, a := range allow {
		r, err := permission.ParseRule(a)
		if err != nil {
			panic(err)
		}
		r.Behavior = permission.Allow
		pc.AddRule(r)
	}
	return temporal.RunInput{Prompt: prompt, Permissions: pc, KeepMode: true}
}

// A call whose worker failed is retried only when the tool is read-only:
// Read is, Bash is not, and the model is told the Bash call did not run.
func TestRetryOnlyReadOnly(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	m := &scripted{steps: []step{
		{calls: [][3]string{
			{"r1", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "a.txt"))},
			{"b1", "Bash", `{"command":"echo x >> b.txt"}`},
		}},
		{text: "done"},
	}}
	env, tools := testEnv(t, dir, m)
	var mu sync.Mutex
	attempts := map[string]int{}
	env.RegisterActivityWithOptions(func(ctx context.Context, in temporal.CallInput) (*temporal.CallOutput, error) {
		mu.Lock()
		attempts[in.Call.Name]++
		n := attempts[in.Call.Name]
		mu.Unlock()
		if n == 1 {
			return nil, errors.New("the worker was lost") // a retryable failure
		}
		return tools.Call(ctx, in)
	}, activity.RegisterOptions{Name: temporal.CallActivity})
	env.ExecuteWorkflow(temporal.WorkflowName, runInput("go", permission.Default, "Bash"))
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if attempts["Read"] != 2 || attempts["Bash"] != 1 {
		t.Fatalf("attempts = %v, want Read retried once and Bash never", attempts)
	}
	if r := m.result("r1"); r == nil || r.Status != tool.StatusSuccess || !strings.Contains(r.Text(), "alpha") {
		t.Fatalf("Read's result: %+v", r)
	}
	if r := m.result("b1"); r == nil || r.Status != tool.StatusError || !strings.Contains(r.Text(), "could not run the call") {
		t.Fatalf("Bash's result: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Fatal("the Bash call ran")
	}
}

// Reads that run side by side each record what they read; the run's state
// has all of them, so that the edits after them pass read-before-write.
func TestParallelCallsMergeState(t *testing.T) {
	dir := t.TempDir()
	var reads, writes [][3]string
	for i, name := range []string{"a", "b", "c"} {
		p := filepath.Join(dir, name+".txt")
		os.WriteFile(p, []byte(name+"\n"), 0o644)
		reads = append(reads, [3]string{fmt.Sprint("r", i), "Read", fmt.Sprintf(`{"file_path":%q}`, p)})
		writes = append(writes, [3]string{fmt.Sprint("w", i), "Write", fmt.Sprintf(`{"file_path":%q,"content":"new %s\n"}`, p, name)})
	}
	m := &scripted{steps: []step{{calls: reads}, {calls: writes}, {text: "done"}}}
	env, tools := testEnv(t, dir, m)
	most := overlapping(env, tools, func(c agent.ToolCall) time.Duration {
		if c.Name == "Read" {
			return 50 * time.Millisecond // let the reads overlap
		}
		return 0
	})
	env.ExecuteWorkflow(temporal.WorkflowName, runInput("go", permission.AcceptEdits))
	var out temporal.RunOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	if *most < 2 {
		t.Errorf("the reads ran one at a time (at most %d at once)", *most)
	}
	for i, name := range []string{"a", "b", "c"} {
		if r := m.result(fmt.Sprint("w", i)); r == nil || r.Status != tool.StatusSuccess {
			t.Fatalf("Write %s: %+v", name, r)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, name+".txt")); string(b) != "new "+name+"\n" {
			t.Fatalf("%s.txt = %q", name, b)
		}
		p, _ := filepath.EvalSymlinks(filepath.Join(dir, name+".txt"))
		if _, ok := builtin.DataOf(out.Run.State).LastRead(p); !ok {
			t.Fatalf("the final state has no record of %s", p)
		}
	}
}

// An approval that does not come within ApprovalTimeout refuses the call.
func TestApprovalTimeout(t *testing.T) {
	dir := t.TempDir()
	m := &scripted{steps: []step{
		{calls: [][3]string{{"c1", "Bash", `{"command":"touch t.txt"}`}}},
		{text: "nobody answered"},
	}}
	env, tools := testEnv(t, dir, m)
	env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
	in := runInput("go", permission.Default)
	in.ApprovalTimeout = 24 * time.Hour
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if r := m.result("c1"); r == nil || r.Status != tool.StatusDenied || r.Text() != agent.DeniedText("Bash") {
		t.Fatalf("the timed-out call: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "t.txt")); err == nil {
		t.Fatal("the call ran without an approval")
	}
}

// A call that needs approval holds back the calls after it: they need no
// answer (one is refused), and are judged when the first is answered.
// Answers to calls that do not wait are refused and change nothing.
func TestHeldBackCalls(t *testing.T) {
	dir := t.TempDir()
	m := &scripted{steps: []step{
		{calls: [][3]string{{"c1", "Bash", `{"command":"touch a.txt"}`}, {"c2", "Bash", `{"command":"touch b.txt"}`}}},
		{text: "done"},
	}}
	env, tools := testEnv(t, dir, m)
	env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
	answer, rejected := answerer(env)
	var pending []agent.Waiting
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(temporal.PendingQuery)
		if err != nil {
			t.Error(err)
			return
		}
		v.Get(&pending)
		answer(temporal.Answer{CallID: "c2", Approve: true})   // held back
		answer(temporal.Answer{CallID: "nope", Approve: true}) // not a call
		answer(temporal.Answer{CallID: "c1", Approve: true})
	}, time.Minute)
	env.RegisterDelayedCallback(func() {
		answer(temporal.Answer{CallID: "c2", Approve: true})
	}, 2*time.Minute)
	env.ExecuteWorkflow(temporal.WorkflowName, runInput("go", permission.Default))
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(pending) != 2 || pending[0].Status != tool.StatusAsking || pending[1].Status != tool.StatusPending {
		t.Fatalf("waiting after the first turn: %+v", pending)
	}
	// Each waiting call has its tool's title and annotations, from the
	// schemas the workflow offered the model.
	for _, w := range pending {
		if a := w.Annotations; w.Title != "Run a shell command" || a == nil || a.DestructiveHint == nil || !*a.DestructiveHint || a.ReadOnlyHint == nil || *a.ReadOnlyHint {
			t.Errorf("waiting call %s: title %q, annotations %+v", w.Call.ID, w.Title, a)
		}
	}
	if len(*rejected) != 2 || !strings.Contains((*rejected)[0], "held back") || !strings.Contains((*rejected)[1], `no call "nope" waits`) {
		t.Fatalf("rejected answers: %q", *rejected)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
}

// The workspace's mode wins over the mode a run asks for: a run that asks
// for bypass on a workspace held to default still asks, and with no
// answer in time the call is refused.
func TestWorkspaceModeWins(t *testing.T) {
	dir := t.TempDir()
	m := &scripted{steps: []step{
		{calls: [][3]string{{"c1", "Bash", `{"command":"touch t.txt"}`}}},
		{text: "done"},
	}}
	env, tools := testEnv(t, dir, m)
	tools.Mode = permission.Default
	env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
	in := runInput("go", permission.Bypass)
	in.ApprovalTimeout = time.Hour
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	var out temporal.RunOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	if out.Run.State.Permissions().Mode != permission.Default {
		t.Fatalf("the run's mode is %q", out.Run.State.Permissions().Mode)
	}
	if r := m.result("c1"); r == nil || r.Status != tool.StatusDenied {
		t.Fatalf("c1: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "t.txt")); err == nil {
		t.Fatal("the call ran in the mode the run asked for")
	}
}

// An External tool's call waits for its result, which comes as an answer;
// an approval without a result is refused.
func TestExternalResult(t *testing.T) {
	dir := t.TempDir()
	m := &scripted{steps: []step{{calls: [][3]string{{"d1", "deploy", `{}`}}}, {text: "deployed"}}}
	env, tools := testEnv(t, dir, m)
	if err := tools.Toolkit.Add(tool.BasicGroup, tooltest.External{Name: "deploy"}); err != nil {
		t.Fatal(err)
	}
	env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
	answer, rejected := answerer(env)
	env.RegisterDelayedCallback(func() {
		answer(temporal.Answer{CallID: "d1", Approve: true})
		answer(temporal.Answer{CallID: "d1", Result: &tool.Result{Status: tool.StatusSuccess, Content: []tool.Block{tool.TextBlock("v2 is live")}}})
	}, time.Hour)
	env.ExecuteWorkflow(temporal.WorkflowName, runInput("go", permission.Default))
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(*rejected) != 1 || !strings.Contains((*rejected)[0], "answer it with its result") {
		t.Fatalf("rejected: %q", *rejected)
	}
	if r := m.result("d1"); r == nil || r.Text() != "v2 is live" || r.Name != "deploy" {
		t.Fatalf("the model read %+v", r)
	}
}

// answerer returns a function that sends an answer to the run of env, and
// the errors of the answers the run refused.
func answerer(env *testsuite.TestWorkflowEnvironment) (func(temporal.Answer), *[]string) {
	var rejected []string
	return func(a temporal.Answer) {
		env.UpdateWorkflow(temporal.AnswerUpdate, "", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { rejected = append(rejected, err.Error()) },
			OnAccept: func() {}, OnComplete: func(any, error) {},
		}, a)
	}, &rejected
}

// A run that continues as new after every two turns carries its
// conversation, state and pause count over, and ends as one run would.
func TestContinueAsNew(t *testing.T) {
	dir := t.TempDir()
	var steps []step
	for i := range 5 {
		p := filepath.Join(dir, fmt.Sprint(i, ".txt"))
		os.WriteFile(p, []byte(fmt.Sprint("file ", i, "\n")), 0o644)
		steps = append(steps, step{calls: [][3]string{{fmt.Sprint("r", i), "Read", fmt.Sprintf(`{"file_path":%q}`, p)}}})
	}
	m := &scripted{steps: append(steps, step{text: "read them all"})}
	in := runInput("go", permission.Default)
	in.ContinueAfter = 2
	legs := 0
	for {
		legs++
		if legs > 5 {
			t.Fatal("the run does not end")
		}
		env, tools := testEnv(t, dir, m)
		env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
		env.ExecuteWorkflow(temporal.WorkflowName, in)
		var can *workflow.ContinueAsNewError
		if err := env.GetWorkflowError(); errors.As(err, &can) {
			in = temporal.RunInput{}
			if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &in); err != nil {
				t.Fatal(err)
			}
			if in.Run == nil || in.Prompt != "" {
				t.Fatalf("the next run's input: %+v", in)
			}
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		var out temporal.RunOutput
		if err := env.GetWorkflowResult(&out); err != nil {
			t.Fatal(err)
		}
		if out.Answer != "read them all" {
			t.Fatalf("answer %q", out.Answer)
		}
		// One user message, six assistant messages, five results.
		if n := len(out.Run.Messages); n != 12 {
			t.Fatalf("%d messages in the transcript", n)
		}
		for i := range 5 {
			p, _ := filepath.EvalSymlinks(filepath.Join(dir, fmt.Sprint(i, ".txt")))
			if _, ok := builtin.DataOf(out.Run.State).LastRead(p); !ok {
				t.Fatalf("the state lost the read of %s", p)
			}
		}
		break
	}
	if legs != 3 {
		t.Fatalf("the run went on as %d runs, want 3 (turns 1-2, 3-4, 5-6)", legs)
	}
}

// Calls of one answer that share an id get ids of their own: an approval
// of one is not an approval of the other.
func TestDistinctCallIDs(t *testing.T) {
	dir := t.TempDir()
	m := &scripted{steps: []step{
		{calls: [][3]string{{"x", "Bash", `{"command":"touch a.txt"}`}, {"x", "Bash", `{"command":"touch b.txt"}`}}},
		{text: "done"},
	}}
	env, tools := testEnv(t, dir, m)
	env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
	answer, rejected := answerer(env)
	env.RegisterDelayedCallback(func() { answer(temporal.Answer{CallID: "x", Approve: true}) }, time.Minute)
	env.RegisterDelayedCallback(func() { answer(temporal.Answer{CallID: "x~2"}) }, 2*time.Minute)
	env.ExecuteWorkflow(temporal.WorkflowName, runInput("go", permission.Default))
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(*rejected) > 0 {
		t.Fatalf("rejected: %q", *rejected)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal("the approved call did not run")
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Fatal("the denied call, which shared the approved call's id, ran")
	}
	if r := m.result("x~2"); r == nil || r.Status != tool.StatusDenied {
		t.Fatalf("x~2: %+v", r)
	}
}

// A run cannot widen the workspace: the working directories it names are
// dropped, so an edit outside the workspace still asks in accept_edits.
func TestRunDirsDropped(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	target := filepath.Join(other, "outside.txt")
	m := &scripted{steps: []step{
		{calls: [][3]string{{"w1", "Write", fmt.Sprintf(`{"file_path":%q,"content":"x"}`, target)}}},
		{text: "done"},
	}}
	env, tools := testEnv(t, dir, m)
	env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
	in := runInput("go", permission.AcceptEdits)
	in.Permissions.WorkingDirs = []string{"/", other}
	in.ApprovalTimeout = time.Hour
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if r := m.result("w1"); r == nil || r.Status != tool.StatusDenied {
		t.Fatalf("w1: %+v", r)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the run wrote outside the workspace without asking")
	}
}

// Past the transcript budget the outputs of the oldest calls are replaced
// by a note; the last turn's stay whole, and the run goes on.
func TestTranscriptCompaction(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	os.WriteFile(big, []byte(strings.Repeat("a line of the big file\n", 800)), 0o644) // 18 KB
	var steps []step
	for i := range 4 {
		steps = append(steps, step{calls: [][3]string{{fmt.Sprint("r", i), "Read", fmt.Sprintf(`{"file_path":%q}`, big)}}})
	}
	m := &scripted{steps: append(steps, step{text: "done"})}
	env, tools := testEnv(t, dir, m)
	env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
	in := runInput("go", permission.Default)
	in.TranscriptBudget = 40 << 10
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	var out temporal.RunOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	// The last request: r0 and r1 elided, r3 (the last turn's) whole.
	for id, elided := range map[string]bool{"r0": true, "r1": true, "r3": false} {
		r := m.result(id)
		if r == nil || strings.Contains(r.Text(), "output elided") != elided {
			t.Fatalf("%s in the last request (elided: want %v): %.100q", id, elided, r.Text())
		}
	}
	b, _ := json.Marshal(out.Run.Messages)
	if len(b) > 60<<10 {
		t.Fatalf("the transcript is %d bytes", len(b))
	}
}

// The workspace's PreCompact hooks are told each time a run's transcript
// is compacted (trigger auto), and only then.
func TestPreCompactHook(t *testing.T) {
	for _, budget := range []int{40 << 10, 4 << 20} {
		dir := t.TempDir()
		big := filepath.Join(dir, "big.txt")
		os.WriteFile(big, []byte(strings.Repeat("a line of the big file\n", 800)), 0o644)
		var steps []step
		for i := range 4 {
			steps = append(steps, step{calls: [][3]string{{fmt.Sprint("r", i), "Read", fmt.Sprintf(`{"file_path":%q}`, big)}}})
		}
		m := &scripted{steps: append(steps, step{text: "done"})}
		env, tools := testEnv(t, dir, m)
		var mu sync.Mutex
		var triggers []string
		tools.PreCompactHook = func(_ context.Context, trigger string) {
			mu.Lock()
			defer mu.Unlock()
			triggers = append(triggers, trigger)
		}
		env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
		env.RegisterActivityWithOptions(tools.PreCompact, activity.RegisterOptions{Name: temporal.PreCompactActivity})
		in := runInput("go", permission.Default)
		in.TranscriptBudget = budget
		env.ExecuteWorkflow(temporal.WorkflowName, in)
		if err := env.GetWorkflowError(); err != nil {
			t.Fatal(err)
		}
		compacts := budget < 1<<20
		if compacts && (len(triggers) == 0 || triggers[0] != "auto") || !compacts && len(triggers) != 0 {
			t.Errorf("budget %d: PreCompact told %q", budget, triggers)
		}
	}
}

// A call whose input is too large to pass through Temporal is refused with
// a message the model can act on; the run goes on.
func TestCallInputTooLarge(t *testing.T) {
	dir := t.TempDir()
	content, _ := json.Marshal(strings.Repeat("x", 1<<20+10))
	m := &scripted{steps: []step{
		{calls: [][3]string{{"w1", "Write", fmt.Sprintf(`{"file_path":%q,"content":%s}`, filepath.Join(dir, "big.txt"), content)}}},
		{text: "I will write it in parts."},
	}}
	env, tools := testEnv(t, dir, m)
	env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
	in := runInput("go", permission.AcceptEdits)
	in.TranscriptBudget = 8 << 20
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if r := m.result("w1"); r == nil || r.Status != tool.StatusError || !strings.Contains(r.Text(), "smaller calls") {
		t.Fatalf("w1: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.txt")); err == nil {
		t.Fatal("the oversized call ran")
	}
}

// A result too large for Temporal becomes an error the model can act on,
// instead of a call that looks lost.
func TestResultTooLarge(t *testing.T) {
	dir := t.TempDir()
	m := &scripted{steps: []step{{calls: [][3]string{{"d1", "dump", `{}`}}}, {text: "too much"}}}
	env, tools := testEnv(t, dir, m)
	dump, err := tool.NewFunction("Dump a lot.", func(context.Context, struct{}) (string, error) {
		return strings.Repeat("x", 2<<20), nil
	}, &tool.FunctionOptions{Name: "dump", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.Toolkit.Add(tool.BasicGroup, dump); err != nil {
		t.Fatal(err)
	}
	env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
	env.ExecuteWorkflow(temporal.WorkflowName, runInput("go", permission.Default))
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if r := m.result("d1"); r == nil || r.Status != tool.StatusError || !strings.Contains(r.Text(), "more than a durable run carries") {
		t.Fatalf("d1: %.200q", r.Text())
	}
}

// An approval cannot carry a call past the deny rules: an edited input
// that a deny rule matches is refused. "Always" on a bypass-immune call
// adds no rule: the same call asks again.
func TestApprovalLimits(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "build"), 0o755)
	m := &scripted{steps: []step{
		{calls: [][3]string{{"c1", "Bash", `{"command":"touch a.txt"}`}}},
		{calls: [][3]string{{"c2", "Bash", `{"command":"rm -rf build"}`}}},
		{calls: [][3]string{{"c3", "Bash", `{"command":"rm -rf build"}`}}},
		{text: "done"},
	}}
	env, tools := testEnv(t, dir, m)
	env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
	answer, rejected := answerer(env)
	env.RegisterDelayedCallback(func() {
		answer(temporal.Answer{CallID: "c1", Approve: true, Input: json.RawMessage(`{"command":"curl -o x http://127.0.0.1:1/"}`)})
	}, time.Minute)
	env.RegisterDelayedCallback(func() { answer(temporal.Answer{CallID: "c2", Approve: false, Always: true}) }, 2*time.Minute)
	var pending []agent.Waiting
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(temporal.PendingQuery)
		if err == nil {
			v.Get(&pending)
		}
		answer(temporal.Answer{CallID: "c3", Approve: true, Always: true})
	}, 3*time.Minute)
	in := runInput("go", permission.Default)
	in.Permissions.AddRule(permission.Rule{Tool: "Bash", Content: "curl:*", Behavior: permission.Deny})
	env.ExecuteWorkflow(temporal.WorkflowName, in)
	var out temporal.RunOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	if len(*rejected) > 0 {
		t.Fatalf("rejected: %q", *rejected)
	}
	if allow := out.Run.State.Permissions().Allow; len(allow) > 0 {
		t.Fatalf("always on a bypass-immune call added %v", allow)
	}
	if r := m.result("c1"); r == nil || r.Status != tool.StatusDenied {
		t.Fatalf("the edited input a deny rule matches: %+v", r)
	}
	if len(pending) != 1 || pending[0].Call.ID != "c3" || pending[0].Decision == nil || !pending[0].Decision.BypassImmune {
		t.Fatalf("c3 did not ask again as bypass-immune: %+v", pending)
	}
	if _, err := os.Stat(filepath.Join(dir, "build")); err == nil {
		t.Fatal("the approved rm -rf did not run")
	}
}

// Task calls of one turn lose nothing on Temporal: creates get distinct
// ids (TaskCreate runs one at a time), and updates that ran side by side
// from one state are merged task by task and field by field, by the same
// rules as the toolscope command's shared state file.
func TestTaskCallsMergeState(t *testing.T) {
	dir := t.TempDir()
	creates := [][3]string{
		{"c1", "TaskCreate", `{"subject":"one","description":"d"}`},
		{"c2", "TaskCreate", `{"subject":"two","description":"d"}`},
		{"c3", "TaskCreate", `{"subject":"three","description":"d"}`},
	}
	updates := [][3]string{
		{"u1", "TaskUpdate", `{"task_id":"1","status":"in_progress"}`},
		{"u2", "TaskUpdate", `{"task_id":"1","owner":"alice"}`},
		{"u3", "TaskUpdate", `{"task_id":"2","status":"completed"}`},
		{"u4", "TaskUpdate", `{"task_id":"3","metadata":{"k":"v"}}`},
	}
	m := &scripted{steps: []step{{calls: creates}, {calls: updates}, {text: "done"}}}
	env, tools := testEnv(t, dir, m)
	most := overlapping(env, tools, func(agent.ToolCall) time.Duration { return 30 * time.Millisecond }) // let what may overlap overlap
	env.ExecuteWorkflow(temporal.WorkflowName, runInput("go", permission.Default))
	var out temporal.RunOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	if *most < 2 {
		t.Errorf("the updates ran one at a time (at most %d at once)", *most)
	}
	for _, c := range append(creates, updates...) {
		if r := m.result(c[0]); r == nil || r.Status != tool.StatusSuccess {
			t.Fatalf("%s %s: %+v", c[1], c[2], r)
		}
	}
	tasks := builtin.DataOf(out.Run.State).Tasks()
	got := map[string]builtin.Task{}
	for _, tk := range tasks {
		got[tk.ID] = tk
	}
	if len(tasks) != 3 || got["1"].Subject != "one" || got["2"].Subject != "two" || got["3"].Subject != "three" {
		t.Fatalf("tasks: %+v", tasks)
	}
	if got["1"].Status != "in_progress" || got["1"].Owner != "alice" || got["2"].Status != "completed" || got["3"].Metadata["k"] != "v" {
		t.Fatalf("an update was lost: %+v", tasks)
	}
}

// As in a run in one process (agent's TestBatchAsksOnceForCoveredCalls):
// two reads of one outside directory in one turn ask once; the second is
// held back, runs without a prompt after "always", and is asked after a
// plain "yes".
func TestHoldBackOnTemporal(t *testing.T) {
	for _, always := range []bool{true, false} {
		t.Run(fmt.Sprintf("always=%v", always), func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			a1, a2 := filepath.Join(outside, "a.txt"), filepath.Join(outside, "b.txt")
			os.WriteFile(a1, []byte("one\n"), 0o644)
			os.WriteFile(a2, []byte("two\n"), 0o644)
			m := &scripted{steps: []step{
				{calls: [][3]string{{"1", "Read", fmt.Sprintf(`{"file_path":%q}`, a1)}, {"2", "Read", fmt.Sprintf(`{"file_path":%q}`, a2)}}},
				{text: "both read"},
			}}
			env, tools := testEnv(t, dir, m)
			env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
			answer, _ := answerer(env)
			var first, second []agent.Waiting
			env.RegisterDelayedCallback(func() {
				v, _ := env.QueryWorkflow(temporal.PendingQuery)
				v.Get(&first)
				answer(temporal.Answer{CallID: "1", Approve: true, Always: always})
			}, time.Minute)
			env.RegisterDelayedCallback(func() {
				v, _ := env.QueryWorkflow(temporal.PendingQuery)
				v.Get(&second)
				if len(second) > 0 {
					answer(temporal.Answer{CallID: second[0].Call.ID, Approve: true})
				}
			}, 2*time.Minute)
			env.ExecuteWorkflow(temporal.WorkflowName, runInput("go", permission.Default))
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			if len(first) != 2 || first[0].Status != tool.StatusAsking || first[1].Status != tool.StatusPending {
				t.Fatalf("waiting after the first turn: %+v", first)
			}
			if always && len(second) != 0 {
				t.Errorf("after always, the held-back read asked again: %+v", second)
			}
			if !always && (len(second) != 1 || second[0].Call.ID != "2" || second[0].Status != tool.StatusAsking) {
				t.Errorf("after a plain yes, the second read should be asked: %+v", second)
			}
			for _, id := range []string{"1", "2"} {
				if r := m.result(id); r == nil || r.Status != tool.StatusSuccess {
					t.Errorf("read %s: %+v", id, r)
				}
			}
		})
	}
}

// As in a run in one process (agent's TestPromptAndStopHooks): the
// workspace's prompt hook adds context to the prompt, and its Stop hook
// keeps the reply going once (it sees that it did through the run).
func TestHooksOnTemporal(t *testing.T) {
	dir := t.TempDir()
	m := &scripted{steps: []step{{text: "first answer"}, {text: "second answer"}}}
	env, tools := testEnv(t, dir, m)
	env.RegisterActivityWithOptions(tools.Call, activity.RegisterOptions{Name: temporal.CallActivity})
	tools.PromptHook = func(_ context.Context, in string) (string, error) { return in + "\n\ncontext from a hook", nil }
	var stops []bool
	tools.StopHook = func(_ context.Context, r *agent.Run, answer string) string {
		stops = append(stops, agent.StopHookActive(r))
		if agent.StopHookActive(r) {
			return ""
		}
		return "check your answer"
	}
	env.ExecuteWorkflow(temporal.WorkflowName, runInput("go", permission.Default))
	var out temporal.RunOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	if out.Answer != "second answer" || len(stops) != 2 || stops[0] || !stops[1] {
		t.Fatalf("answer %q, stop hook saw active=%v", out.Answer, stops)
	}
	if len(m.reqs) != 2 || m.reqs[0].Messages[0].Text != "go\n\ncontext from a hook" {
		t.Fatalf("the model's first request: %+v", m.reqs)
	}
	last := m.reqs[1].Messages[len(m.reqs[1].Messages)-1]
	if last.Role != agent.User || last.Text != "check your answer" || last.Hook != "Stop" {
		t.Fatalf("the model's second request ends with %+v", last)
	}
	// A refused prompt fails the run.
	env2, tools2 := testEnv(t, dir, &scripted{steps: []step{{text: "x"}}})
	tools2.PromptHook = func(context.Context, string) (string, error) { return "", fmt.Errorf("no secrets here") }
	env2.ExecuteWorkflow(temporal.WorkflowName, runInput("go", permission.Default))
	if err := env2.GetWorkflowError(); err == nil || !strings.Contains(err.Error(), "no secrets here") {
		t.Fatalf("a refused prompt: %v", err)
	}
}

// overlapping registers the call activity, each call taking at least
// pause(call) longer, and returns where the most calls that ran at once is
// counted.
func overlapping(env *testsuite.TestWorkflowEnvironment, tools *temporal.Tools, pause func(agent.ToolCall) time.Duration) *int {
	var mu sync.Mutex
	running, most := 0, new(int)
	env.RegisterActivityWithOptions(func(ctx context.Context, in temporal.CallInput) (*temporal.CallOutput, error) {
		mu.Lock()
		running++
		*most = max(*most, running)
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		time.Sleep(pause(in.Call))
		return tools.Call(ctx, in)
	}, activity.RegisterOptions{Name: temporal.CallActivity})
	return most
}
