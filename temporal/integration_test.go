package temporal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/internal/testproc"
	"github.com/toolscope/toolscope/sandbox"
	"github.com/toolscope/toolscope/temporal"
)

// fixture returns what an integration test needs: the dev server's
// address, a scripted model server, a workspace directory and a task queue
// of the test's own.
func fixture(t *testing.T) (addr string, model *modelServer, dir, queue string) {
	return server(t), newModelServer(t), t.TempDir(), queueName(t)
}

// queueName is a task queue of this test alone.
func queueName(t testing.TB) string {
	return strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()) + fmt.Sprint("-", time.Now().UnixNano())
}

// firstLine is the workflow id run prints.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// listedRun is a run as runs --json lists it.
type listedRun struct {
	WorkflowID string                 `json:"workflow_id"`
	Waiting    []temporal.WaitingCall `json:"waiting"`
}

// A run pauses on an approval; its worker is killed (SIGKILL) and another
// started; the approval arrives; the run completes and the approved
// command ran exactly once.
func TestApprovalSurvivesWorkerKill(t *testing.T) {
	addr, model, dir, q := fixture(t)
	prompt := "append a line to ran.txt"
	model.script(prompt,
		step{text: "Appending.", calls: [][3]string{{"c1", "Bash", `{"command":"echo ran >> ran.txt"}`}}},
		step{text: "Done: the line is there."})

	w1 := startWorker(t, dir, q, model, nil)
	out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model", prompt)
	if code != 3 {
		t.Fatalf("run: exit %d, want 3 (waiting for approval)\nstdout: %s\nstderr: %s\nworker: %s", code, out, errOut, w1.logs)
	}
	id := firstLine(out)
	if !strings.Contains(errOut, "waiting for approval: call c1: Bash") || !strings.Contains(errOut, "toolscope approve --temporal "+addr+" "+id) {
		t.Fatalf("run's stderr does not say what waits and how to answer:\n%s", errOut)
	}
	if got := readFile(t, dir, "ran.txt"); got != "" {
		t.Fatalf("the command ran before its approval: %q", got)
	}

	// The waiting run is listed, with its call, without a worker.
	w1.kill()
	out, errOut, code = toolscope(t, "runs", "--temporal", addr)
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "c1") || !strings.Contains(out, "echo ran") {
		t.Fatalf("runs: exit %d\n%s%s", code, out, errOut)
	}

	out, _, _ = toolscope(t, "runs", "--temporal", addr, "--json")
	var listed []listedRun
	if err := json.Unmarshal([]byte(out), &listed); err != nil {
		t.Fatalf("runs --json: %v\n%s", err, out)
	}
	i := slices.IndexFunc(listed, func(r listedRun) bool { return r.WorkflowID == id })
	if i < 0 || len(listed[i].Waiting) != 1 || listed[i].Waiting[0].ID != "c1" || listed[i].Waiting[0].Status != "asking" ||
		len(listed[i].Waiting[0].Suggestions) == 0 {
		t.Fatalf("runs --json: %s", out)
	}

	w2 := startWorker(t, dir, q, model, nil)
	out, errOut, code = toolscope(t, "approve", "--temporal", addr, id, "c1")
	if code != 0 || !strings.Contains(out, "Done: the line is there.") {
		t.Fatalf("approve: exit %d\nstdout: %s\nstderr: %s\nworker: %s", code, out, errOut, w2.logs)
	}
	if got := readFile(t, dir, "ran.txt"); got != "ran\n" {
		t.Fatalf("ran.txt = %q, want the command run exactly once", got)
	}
	// Answering again is refused: nothing waits.
	_, errOut, code = toolscope(t, "approve", "--temporal", addr, id, "c1")
	if code != 1 || !strings.Contains(errOut, "no call \"c1\" waits") {
		t.Fatalf("a second approve: exit %d: %s", code, errOut)
	}
	if got := readFile(t, dir, "ran.txt"); got != "ran\n" {
		t.Fatalf("ran.txt = %q after a second approve", got)
	}
	recordHistory(t, dial(t), id, "approval-after-worker-kill")
}

// A denied call: the model reads the reference's denied text, and the
// command never runs.
func TestDeniedCall(t *testing.T) {
	addr, model, dir, q := fixture(t)
	prompt := "remove keep.txt"
	model.script(prompt,
		step{text: "Removing.", calls: [][3]string{{"c1", "Bash", `{"command":"rm keep.txt"}`}}},
		step{text: "As you wish."})
	writeFile(t, dir, "keep.txt", "keep\n")
	// The workspace's worker serves no model turns; a model-only worker,
	// with no workspace, does.
	startWorker(t, dir, q, model, []string{"--model-queue", "none"})
	startWorker(t, t.TempDir(), "none", model, []string{"--model-queue", q + "-model"})
	out, _, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model", "--id", "denied-"+q, prompt)
	if code != 3 {
		t.Fatalf("run: exit %d, want 3", code)
	}
	id := firstLine(out)
	if id != "denied-"+q {
		t.Fatalf("run --id printed %q", id)
	}
	// Another run with the same id is refused while this one runs.
	if _, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--id", id, "again"); code != 1 || !strings.Contains(errOut, "already") {
		t.Fatalf("a second run with the id: exit %d: %s", code, errOut)
	}
	out, errOut, code := toolscope(t, "deny", "--temporal", addr, id, "c1")
	if code != 0 || !strings.Contains(out, "As you wish.") {
		t.Fatalf("deny: exit %d\n%s%s", code, out, errOut)
	}
	got, ok := model.toolResult(prompt, "c1")
	if want := agent.DeniedText("Bash"); !ok || got != want {
		t.Fatalf("the model read %q for the denied call, want %q", got, want)
	}
	if readFile(t, dir, "keep.txt") != "keep\n" {
		t.Fatal("the denied command ran")
	}
	// The transcript, through the run query, has the denied result.
	var r agent.Run
	v, err := dial(t).QueryWorkflow(context.Background(), id, "", temporal.RunQuery)
	if err == nil {
		err = v.Get(&r)
	}
	if err != nil {
		t.Fatalf("the run query: %v", err)
	}
	if n := len(r.Messages); n < 4 || r.Messages[2].Result == nil || r.Messages[2].Result.Status != "denied" || r.Messages[n-1].Text != "As you wish." {
		t.Fatalf("the transcript: %+v", r.Messages)
	}
	recordHistory(t, dial(t), id, "denied")
}

func writeFile(t testing.TB, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Two workers on one workspace queue share a batch of runs: every run
// completes, each command runs once, and both workers ran some.
func TestTwoWorkersShareRuns(t *testing.T) {
	addr, model, dir, q := fixture(t)
	const n = 6
	for i := range n {
		model.script(fmt.Sprintf("share %d", i),
			step{calls: [][3]string{{"c1", "Bash", fmt.Sprintf(`{"command":"echo $WORKER >> who-%d.txt; sleep 0.4"}`, i)}}},
			step{text: fmt.Sprintf("done %d", i)})
	}
	startWorker(t, dir, q, model, []string{"--max-calls", "1"}, "WORKER=A")
	startWorker(t, dir, q, model, []string{"--max-calls", "1"}, "WORKER=B")
	var ids []string
	for i := range n {
		out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model",
			"--allow", "Bash", "--no-wait", fmt.Sprintf("share %d", i))
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, errOut)
		}
		ids = append(ids, firstLine(out))
	}
	c := dial(t)
	ran := map[string]int{}
	for i, id := range ids {
		var out temporal.RunOutput
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := c.GetWorkflow(ctx, id, "").Get(ctx, &out)
		cancel()
		if err != nil || out.Answer != fmt.Sprintf("done %d", i) {
			t.Fatalf("run %d: %v, answer %q", i, err, out.Answer)
		}
		who := strings.Fields(readFile(t, dir, fmt.Sprintf("who-%d.txt", i)))
		if len(who) != 1 {
			t.Fatalf("run %d's command ran %d times: %q", i, len(who), who)
		}
		ran[who[0]]++
	}
	if ran["A"] == 0 || ran["B"] == 0 {
		t.Fatalf("the calls ran on %v: one worker did all the work", ran)
	}
	t.Logf("calls per worker: %v", ran)
}

// A worker killed while a command runs: the call is not run again
// anywhere; the model reads that it was interrupted and may have taken
// effect, and the run goes on with another worker.
func TestWorkerLostMidCall(t *testing.T) {
	addr, model, dir, q := fixture(t)
	prompt := "a long command"
	marker := fmt.Sprintf("%d.5", 30+time.Now().UnixNano()%1000)
	model.script(prompt,
		step{calls: [][3]string{{"c1", "Bash", fmt.Sprintf(`{"command":"echo start >> m.txt; sleep %s; echo end >> m.txt"}`, marker)}}},
		step{text: "It was interrupted; I will check."})
	t.Cleanup(func() { killProcessesWith(marker) })
	w1 := startWorker(t, dir, q, model, nil)
	out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model",
		"--allow", "Bash", "--heartbeat-timeout", "2s", "--no-wait", prompt)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	id := firstLine(out)
	waitFor(t, "the command to start", time.Minute, func() bool { return readFile(t, dir, "m.txt") == "start\n" })
	w1.kill()
	killProcessesWith(marker) // what the killed worker left running
	startWorker(t, dir, q, model, nil)
	var res temporal.RunOutput
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := dial(t).GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	got, _ := model.toolResult(prompt, "c1")
	if !strings.Contains(got, "may or may not have taken effect") || !strings.Contains(got, "not run again") {
		t.Fatalf("the model read %q for the lost call", got)
	}
	if m := readFile(t, dir, "m.txt"); m != "start\n" {
		t.Fatalf("m.txt = %q: the call ran again", m)
	}
	recordHistory(t, dial(t), id, "worker-lost-mid-call")
}

// Cancelling a run cancels its running call, which kills the command's
// whole process group.
func TestCancelKillsProcessGroup(t *testing.T) {
	addr, model, dir, q := fixture(t)
	prompt := "a command to cancel"
	marker := fmt.Sprintf("%d.25", 300+time.Now().UnixNano()%1000)
	model.script(prompt,
		step{calls: [][3]string{{"c1", "Bash", fmt.Sprintf(`{"command":"sleep %s & sleep %s; echo end > end.txt"}`, marker, marker)}}},
		step{text: "unreachable"})
	t.Cleanup(func() { killProcessesWith(marker) })
	startWorker(t, dir, q, model, nil)
	out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model",
		"--allow", "Bash", "--heartbeat-timeout", "2s", "--no-wait", prompt)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	id := firstLine(out)
	waitFor(t, "the command's two processes", 20*time.Second, func() bool { return len(processesWith(marker)) >= 3 }) // bash and its two sleeps
	c := dial(t)
	if err := c.CancelWorkflow(context.Background(), id, ""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := c.GetWorkflow(ctx, id, "").Get(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("the cancelled run ended with %v", err)
	}
	// The workflow waited for the call to end: its processes are gone.
	if p := processesWith(marker); len(p) > 0 {
		t.Fatalf("processes left after the run was cancelled: %v", p)
	}
	if readFile(t, dir, "end.txt") != "" {
		t.Fatal("the command went on after the cancellation")
	}
}

// processesWith returns the live processes whose command line holds s.
func processesWith(s string) []int { return testproc.With(s) }

func killProcessesWith(s string) {
	for _, pid := range processesWith(s) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// Approving with an edited input runs the edited call; approving with
// --always adds the suggested rule, so the same command later runs without
// asking.
func TestApproveEditedAndAlways(t *testing.T) {
	addr, model, dir, q := fixture(t)
	prompt := "edits and always"
	model.script(prompt,
		step{calls: [][3]string{ // two reads side by side, then a call that asks
			{"r1", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "r1.txt"))},
			{"r2", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "r2.txt"))},
			{"c1", "Bash", `{"command":"echo model >> f.txt"}`}}},
		step{calls: [][3]string{{"c2", "Bash", `{"command":"touch g.txt"}`}}},
		step{calls: [][3]string{{"c3", "Bash", `{"command":"touch g.txt"}`}}},
		step{text: "all done"})
	writeFile(t, dir, "r1.txt", "one\n")
	writeFile(t, dir, "r2.txt", "two\n")
	startWorker(t, dir, q, model, nil)
	out, _, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model", prompt)
	if code != 3 {
		t.Fatalf("run: exit %d", code)
	}
	id := firstLine(out)
	// An edited input that is not an object is refused, and nothing is
	// recorded: the call still waits.
	_, errOut, code := toolscope(t, "approve", "--temporal", addr, "--input", `["echo"]`, id, "c1")
	if code != 1 || !strings.Contains(errOut, "not a JSON object") {
		t.Fatalf("approve with a bad input: exit %d: %s", code, errOut)
	}
	_, errOut, code = toolscope(t, "approve", "--temporal", addr, "--input", `{"command":"echo edited >> f.txt"}`, id, "c1")
	if code != 3 || !strings.Contains(errOut, "call c2") {
		t.Fatalf("approve c1: exit %d, want 3 waiting on c2: %s", code, errOut)
	}
	if got := readFile(t, dir, "f.txt"); got != "edited\n" {
		t.Fatalf("f.txt = %q, want the edited command's output", got)
	}
	out, errOut, code = toolscope(t, "approve", "--temporal", addr, "--always", id, "c2")
	if code != 0 || !strings.Contains(out, "all done") {
		t.Fatalf("approve --always c2: exit %d, want the run done without asking for c3\n%s%s", code, out, errOut)
	}
	if got, _ := model.toolResult(prompt, "c3"); strings.Contains(got, "denied") {
		t.Fatalf("c3: %q", got)
	}
	recordHistory(t, dial(t), id, "edited-and-always")
}

// The Temporal commands' usage errors name what is missing; they need no
// server.
func TestUsage(t *testing.T) {
	t.Setenv("TEMPORAL_ADDRESS", "")
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"worker", "--task-queue", "q"}, "--temporal ADDR is needed"},
		{[]string{"worker", "--temporal", "127.0.0.1:1"}, "worker needs --task-queue Q"},
		{[]string{"run", "--temporal", "127.0.0.1:1", "hello"}, "run --temporal needs --task-queue Q"},
		{[]string{"run", "--temporal", "127.0.0.1:1", "--task-queue", "q"}, "run --temporal needs one prompt"},
		{[]string{"run", "--temporal", "127.0.0.1:1", "--task-queue", "q", "--mode", "yolo", "hi"}, `unknown permission mode "yolo"`},
		{[]string{"approve", "--temporal", "127.0.0.1:1", "wf"}, "approve needs WORKFLOW_ID CALL_ID"},
		{[]string{"approve", "--temporal", "127.0.0.1:1", "--input", "{", "wf", "c1"}, "--input is not JSON"},
		{[]string{"deny", "--temporal", "127.0.0.1:1", "--always", "wf", "c1"}, "unknown flag --always"},
		{[]string{"runs", "--temporal", "127.0.0.1:1", "extra"}, "runs takes no arguments"},
	} {
		_, errOut, code := toolscope(t, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.msg) {
			t.Errorf("toolscope %q: exit %d, %q; want 2 and %q", tt.args, code, errOut, tt.msg)
		}
	}
	// Without --temporal, run is the local run.
	_, errOut, code := toolscope(t, "run", "--model", "nope:x", "hello")
	if code != 2 || !strings.Contains(errOut, `unknown model provider "nope"`) {
		t.Errorf("local run: exit %d: %s", code, errOut)
	}
}

// needSandbox skips a test where the OS sandbox cannot confine commands;
// in CI it must.
func needSandbox(t *testing.T) {
	sb, err := sandbox.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := sb.Status(context.Background()); err != nil || !st.Confines() {
		if os.Getenv("CI") != "" {
			t.Fatalf("the OS sandbox does not confine commands on this CI machine (%v): %s", err, st)
		}
		t.Skipf("the OS sandbox does not confine commands here (%v)", err)
	}
}

// worker --sandbox runs the workspace's commands in the OS sandbox: a
// command writes inside the workspace and cannot write outside.
func TestWorkerSandbox(t *testing.T) {
	needSandbox(t)
	addr, model, dir, q := fixture(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	prompt := "write inside and outside"
	model.script(prompt,
		step{calls: [][3]string{{"c1", "Bash", fmt.Sprintf(`{"command":"echo in > inside.txt; echo out > %s"}`, outside)}}},
		step{text: "tried"})
	startWorker(t, dir, q, model, []string{"--sandbox"})
	out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model", "--allow", "Bash", prompt)
	if code != 0 || !strings.Contains(out, "tried") {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	if readFile(t, dir, "inside.txt") != "in\n" {
		t.Fatal("the command could not write inside the workspace")
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("a sandboxed command wrote outside the workspace")
	}
	if got, _ := model.toolResult(prompt, "c1"); !strings.Contains(got, "Read-only file system") && !strings.Contains(got, "Permission denied") {
		t.Fatalf("the model read %q", got)
	}
}

// Answers that race for one call: exactly one is recorded, the others are
// refused, and the call runs at most once, as the recorded answer says.
func TestRacingAnswers(t *testing.T) {
	addr, model, dir, q := fixture(t)
	prompt := "racing answers"
	model.script(prompt,
		step{calls: [][3]string{{"c1", "Bash", `{"command":"echo ran >> ran.txt"}`}}},
		step{text: "over"})
	startWorker(t, dir, q, model, nil)
	out, _, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model", prompt)
	if code != 3 {
		t.Fatalf("run: exit %d", code)
	}
	id := firstLine(out)
	c := dial(t)
	answers := []temporal.Answer{
		{CallID: "c1", Approve: true}, {CallID: "c1"}, {CallID: "c1", Approve: true},
		{CallID: "c1"}, {CallID: "c1", Approve: true}, {CallID: "c1", Approve: true},
	}
	errs := make([]error, len(answers))
	var wg sync.WaitGroup
	for i, a := range answers {
		wg.Go(func() { _, errs[i] = temporal.AnswerCall(context.Background(), c, id, a) })
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		if err == nil {
			if won >= 0 {
				t.Fatalf("answers %d and %d were both recorded", won, i)
			}
			won = i
		} else if !strings.Contains(err.Error(), "answered already") && !strings.Contains(err.Error(), "waits") {
			t.Fatalf("answer %d: %v", i, err)
		}
	}
	if won < 0 {
		t.Fatal("no answer was recorded")
	}
	st, err := temporal.Wait(context.Background(), c, id, 1)
	if err != nil || st.Output == nil || st.Output.Answer != "over" {
		t.Fatalf("the run: %v %+v", err, st)
	}
	want := ""
	if answers[won].Approve {
		want = "ran\n"
	}
	if got := readFile(t, dir, "ran.txt"); got != want {
		t.Fatalf("ran.txt = %q, the recorded answer was %+v", got, answers[won])
	}
}

// A run that continued as new (a new history under the same workflow id)
// pauses, is listed, answered and completed through its workflow id.
func TestContinuedRunPauses(t *testing.T) {
	addr, model, dir, q := fixture(t)
	prompt := "continue, then ask"
	writeFile(t, dir, "a.txt", "a\n")
	model.script(prompt,
		step{calls: [][3]string{{"r1", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "a.txt"))}}},
		step{calls: [][3]string{{"c1", "Bash", `{"command":"echo ran >> ran.txt"}`}}},
		step{text: "finished"})
	startWorker(t, dir, q, model, nil)
	out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model", "--continue-after", "1", prompt)
	if code != 3 || !strings.Contains(errOut, "call c1") {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	id := firstLine(out)
	if out, _, _ := toolscope(t, "runs", "--temporal", addr); !strings.Contains(out, id) {
		t.Fatalf("runs does not list the continued run:\n%s", out)
	}
	out, errOut, code = toolscope(t, "approve", "--temporal", addr, id, "c1")
	if code != 0 || !strings.Contains(out, "finished") {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errOut)
	}
	if readFile(t, dir, "ran.txt") != "ran\n" {
		t.Fatal("the approved command did not run once")
	}
	recordHistory(t, dial(t), id, "continued-as-new")
}

// A waiting call with a large input is listed by its size: the memo stays
// small, and the approval runs the whole input.
func TestLargeInputWaits(t *testing.T) {
	addr, model, dir, q := fixture(t)
	prompt := "write a large file"
	content := strings.Repeat("line of text\n", 1000)
	in, _ := json.Marshal(map[string]string{"file_path": filepath.Join(t.TempDir(), "large.txt"), "content": content})
	model.script(prompt, step{calls: [][3]string{{"w1", "Write", string(in)}}}, step{text: "written"})
	startWorker(t, dir, q, model, nil)
	out, _, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model", prompt)
	if code != 3 {
		t.Fatalf("run: exit %d", code)
	}
	id := firstLine(out)
	out, _, _ = toolscope(t, "runs", "--temporal", addr, "--json")
	var listed []listedRun
	json.Unmarshal([]byte(out), &listed)
	i := slices.IndexFunc(listed, func(r listedRun) bool { return r.WorkflowID == id })
	if i < 0 || len(listed[i].Waiting) != 1 || listed[i].Waiting[0].Input != nil || listed[i].Waiting[0].InputSize != len(in) {
		t.Fatalf("runs --json: %s", out)
	}
	if out, _, _ := toolscope(t, "runs", "--temporal", addr); !strings.Contains(out, fmt.Sprintf("(%d bytes of input", len(in))) {
		t.Fatalf("runs: %s", out)
	}
	if out, errOut, code := toolscope(t, "approve", "--temporal", addr, id, "w1"); code != 0 || !strings.Contains(out, "written") {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errOut)
	}
}

// A sandboxed worker killed with SIGKILL leaves none of its command's
// processes behind, even those that left the shell's process group: the
// command's PID namespace dies with its init, which dies with the worker.
func TestSandboxedWorkerKillLeavesNothing(t *testing.T) {
	needSandbox(t)
	addr, model, dir, q := fixture(t)
	prompt := "a long sandboxed command"
	marker := fmt.Sprintf("%d.75", 300+time.Now().UnixNano()%1000)
	model.script(prompt,
		step{calls: [][3]string{{"c1", "Bash", fmt.Sprintf(`{"command":"setsid sleep %s & sleep %s; echo end > end.txt"}`, marker, marker)}}},
		step{text: "interrupted"})
	t.Cleanup(func() { killProcessesWith(marker) })
	w1 := startWorker(t, dir, q, model, []string{"--sandbox"})
	out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model",
		"--allow", "Bash", "--heartbeat-timeout", "2s", "--no-wait", prompt)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	id := firstLine(out)
	waitFor(t, "the command's processes", time.Minute, func() bool { return len(processesWith(marker)) >= 3 })
	w1.kill()
	waitFor(t, "the command's processes to die with the worker", 10*time.Second, func() bool { return len(processesWith(marker)) == 0 })
	startWorker(t, dir, q, model, []string{"--sandbox"})
	var res temporal.RunOutput
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := dial(t).GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil || res.Answer != "interrupted" {
		t.Fatalf("the run: %v %q", err, res.Answer)
	}
	if readFile(t, dir, "end.txt") != "" {
		t.Fatal("the command went on after its worker died")
	}
}
