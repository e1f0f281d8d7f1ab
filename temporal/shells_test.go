package temporal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/model/openai"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/temporal"
	"github.com/toolscope/toolscope/tool"
)

// shellID is the id a Bash call's background start gave, read from the
// result the model got for call.
func shellID(req chatRequest, call string) string {
	m := regexp.MustCompile(`with ID: (\S+)`).FindStringSubmatch(req.result(call))
	if m == nil {
		return "no-id-in-result"
	}
	return m[1]
}

// readCall is a step calling tool (BashOutput or KillShell) as call on
// the shell that call start started.
func readCall(call, tool, start string) step {
	key := "bash_id"
	if tool == "KillShell" {
		key = "shell_id"
	}
	return step{fn: func(req chatRequest) step {
		return step{calls: [][3]string{{call, tool, fmt.Sprintf(`{%q:%q}`, key, shellID(req, start))}}}
	}}
}

// waitFile waits (as a slow model would) until dir/name exists.
func waitFile(dir, name string) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// marker is a sleep duration no other process has: its command lines
// find the processes of a test's shell.
func marker(frac string) string { return fmt.Sprintf("%d.%s", 500+time.Now().UnixNano()%1000, frac) }

// A background shell on a real server: Bash returns its id at once;
// BashOutput, across model turns, gives the output new since the last
// read; KillShell kills it and everything it started; the run ends with
// none of its processes left.
func TestBackgroundShellOnTemporal(t *testing.T) {
	addr, model, dir, q := fixture(t)
	prompt := "a background shell"
	m := marker("125")
	t.Cleanup(func() { killProcessesWith(m) })
	cmd := fmt.Sprintf(`echo first; touch first.ok; while [ ! -e gate ]; do sleep 0.05; done; echo second; touch second.ok; sleep %s & sleep %s`, m, m)
	model.script(prompt,
		step{calls: [][3]string{{"c1", "Bash", fmt.Sprintf(`{"command":%q,"run_in_background":true}`, cmd)}}},
		step{fn: func(req chatRequest) step {
			waitFile(dir, "first.ok")
			return readCall("c2", "BashOutput", "c1").fn(req)
		}},
		step{fn: func(req chatRequest) step {
			os.WriteFile(filepath.Join(dir, "gate"), nil, 0o644)
			waitFile(dir, "second.ok")
			return readCall("c3", "BashOutput", "c1").fn(req)
		}},
		readCall("c4", "KillShell", "c1"),
		readCall("c5", "BashOutput", "c1"),
		step{calls: [][3]string{{"c6", "BashOutput", `{"bash_id":"bash_nope_9"}`}}},
		step{text: "all read"})
	startWorker(t, dir, q, model, nil)
	out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model",
		"--allow", "Bash", prompt)
	if code != 0 || !strings.Contains(out, "all read") {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	id := firstLine(out)
	reqs := model.requests(prompt)
	last := reqs[len(reqs)-1]
	sid := shellID(last, "c1")
	if !regexp.MustCompile(`^bash_[0-9a-f]{8}_1$`).MatchString(sid) {
		t.Fatalf("the shell id %q does not name its worker: %q", sid, last.result("c1"))
	}
	for _, c := range []struct{ call, want, not string }{
		{"c2", "<status>running</status>", ""},
		{"c2", "first", "second"},
		{"c3", "second", "first"},
		{"c4", "Successfully killed shell: " + sid, ""},
		{"c5", "<status>killed</status>", ""},
		{"c6", `No background shell with id "bash_nope_9". This run's shells: ` + sid + " (ended)", ""},
	} {
		got := last.result(c.call)
		if !strings.Contains(got, c.want) || c.not != "" && strings.Contains(got, c.not) {
			t.Errorf("%s: the model read %q; want %q in it, and not %q", c.call, got, c.want, c.not)
		}
	}
	if p := processesWith(m); len(p) > 0 {
		t.Fatalf("processes of the killed shell are alive: %v", p)
	}
	recordHistory(t, dial(t), id, "background-shell")
}

// A worker killed while its background shell runs takes the shell with
// it: the next BashOutput and KillShell for it read that it is gone with
// its worker (never run on another worker), the run goes on, starts a
// shell on the new worker, and the run's end kills that one.
func TestBackgroundShellWorkerLost(t *testing.T) {
	addr, model, dir, q := fixture(t)
	prompt := "a shell whose worker dies"
	m1, m2 := marker("375"), marker("625")
	t.Cleanup(func() { killProcessesWith(m1); killProcessesWith(m2) })
	ready, proceed := make(chan struct{}), make(chan struct{})
	model.script(prompt,
		step{calls: [][3]string{{"c1", "Bash", fmt.Sprintf(`{"command":"touch up.ok; sleep %s","run_in_background":true}`, m1)}}},
		step{fn: func(req chatRequest) step {
			close(ready)
			<-proceed // the worker that holds the shell is killed meanwhile
			return readCall("c2", "BashOutput", "c1").fn(req)
		}},
		readCall("c3", "KillShell", "c1"),
		step{calls: [][3]string{{"c4", "Bash", fmt.Sprintf(`{"command":"touch up2.ok; sleep %s","run_in_background":true}`, m2)}}},
		readCall("c5", "BashOutput", "c4"),
		step{text: "carried on"})
	// Model turns on a worker of their own, which lives through the test.
	startWorker(t, t.TempDir(), "none", model, []string{"--model-queue", q + "-model"})
	w1 := startWorker(t, dir, q, model, []string{"--model-queue", "none"})
	out, errOut, code := toolscope(t, "run", "--temporal", addr, "--task-queue", q, "--model-queue", q+"-model",
		"--allow", "Bash", "--heartbeat-timeout", "2s", "--shell-timeout", "3s", "--no-wait", prompt)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	id := firstLine(out)
	select {
	case <-ready:
	case <-time.After(time.Minute):
		t.Fatal("the run never came to its second model turn")
	}
	waitFor(t, "the shell's process", 10*time.Second, func() bool { return len(processesWith(m1)) > 0 })
	w1.kill()
	// The shell dies with its worker (package proc's helper ends it).
	waitFor(t, "the lost worker's shell to die", 10*time.Second, func() bool { return len(processesWith(m1)) == 0 })
	w2 := startWorker(t, dir, q, model, []string{"--model-queue", "none"})
	close(proceed)
	var res temporal.RunOutput
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := dial(t).GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil || res.Answer != "carried on" {
		t.Fatalf("the run: %v %q\nworker: %s", err, res.Answer, w2.logs)
	}
	reqs := model.requests(prompt)
	last := reqs[len(reqs)-1]
	sid := shellID(last, "c1")
	for _, c := range []string{"c2", "c3"} {
		if got := last.result(c); !strings.Contains(got, "Background shell "+sid+" is gone with its worker") {
			t.Errorf("%s: the model read %q", c, got)
		}
	}
	if sid2 := shellID(last, "c4"); sid2 == sid || !strings.HasSuffix(sid2, "_1") || !strings.Contains(last.result("c5"), "<status>running</status>") {
		t.Errorf("the new worker's shell %q: %q", sid2, last.result("c5"))
	}
	// The run ended: its shell on the new worker is killed.
	if p := processesWith(m2); len(p) > 0 {
		t.Fatalf("the ended run's shell is alive: %v", p)
	}
	recordHistory(t, dial(t), id, "background-shell-worker-lost")
}

// inProcessWorker serves the workspace dir on q in this process
// (temporal.Serve) with background shells, model turns from model, and
// the shell checks of opts; stop ends it and returns once Serve did.
func inProcessWorker(t *testing.T, dir, q string, model *modelServer, opts temporal.WorkerOptions) (stop func()) {
	t.Helper()
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: dir, Background: true})})
	if err != nil {
		t.Fatal(err)
	}
	opts.TaskQueue, opts.Tools = q, &temporal.Tools{Toolkit: tk}
	opts.ModelQueue = q + "-model"
	opts.Models = &temporal.Models{New: func(string) (agent.Model, error) {
		return openai.New("scripted", &openai.Options{BaseURL: model.url + "/v1", APIKey: "test"}), nil
	}}
	opts.Worker = worker.Options{WorkerStopTimeout: 5 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- temporal.Serve(ctx, dial(t), &opts) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(stop)
	return stop
}

// pausedWithShell starts a run on q that starts a background shell
// (sleep m) and then waits for the approval of a call; it returns the
// workflow id once the shell runs.
func pausedWithShell(t *testing.T, model *modelServer, q, prompt, m string) string {
	t.Helper()
	model.script(prompt,
		step{calls: [][3]string{{"c1", "Bash", fmt.Sprintf(`{"command":"sleep %s","run_in_background":true}`, m)}}},
		step{calls: [][3]string{{"c2", "Bash", `{"command":"touch asked.txt"}`}}},
		step{text: "unreachable"})
	pc := permissionsAllowing(t, "Bash(sleep:*)")
	c := dial(t)
	run, err := temporal.Start(context.Background(), c, "", q, temporal.RunInput{Prompt: prompt, Permissions: pc, KeepMode: true, ModelQueue: q + "-model"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := temporal.Wait(context.Background(), c, run.GetID(), 0)
	if err != nil || st.Closed() || len(st.Waiting) != 1 {
		t.Fatalf("the run did not pause: %v %+v", err, st)
	}
	if len(processesWith(m)) == 0 {
		t.Fatal("the run's background shell is not running")
	}
	return run.GetID()
}

func permissionsAllowing(t *testing.T, rules ...string) *permission.Context {
	t.Helper()
	return runInput("", permission.Default, rules...).Permissions
}

// A run's background shells end with it, however it ends: cancelled
// (its last step kills them), terminated (the worker finds the run
// closed), or left unread (the worker's idle limit); and a worker that
// stops kills the shells it holds.
func TestBackgroundShellsEndWithRun(t *testing.T) {
	_, model, dir, q := fixture(t)
	c := dial(t)

	t.Run("cancelled", func(t *testing.T) {
		// The worker's own check is far off: the run's last step kills.
		inProcessWorker(t, dir, q, model, temporal.WorkerOptions{})
		m := marker("0625")
		t.Cleanup(func() { killProcessesWith(m) })
		id := pausedWithShell(t, model, q, "cancel with a shell", m)
		if err := c.CancelWorkflow(context.Background(), id, ""); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.GetWorkflow(ctx, id, "").Get(ctx, nil); err == nil || !strings.Contains(err.Error(), "canceled") {
			t.Fatalf("the cancelled run ended with %v", err)
		}
		if p := processesWith(m); len(p) > 0 {
			t.Fatalf("the cancelled run's shell is alive: %v", p)
		}
		recordHistory(t, c, id, "background-shell-cancelled")
	})
	t.Run("terminated", func(t *testing.T) {
		q := q + "-terminated"
		inProcessWorker(t, dir, q, model, temporal.WorkerOptions{ShellCheck: 200 * time.Millisecond})
		m := marker("1875")
		t.Cleanup(func() { killProcessesWith(m) })
		id := pausedWithShell(t, model, q, "terminate with a shell", m)
		if err := c.TerminateWorkflow(context.Background(), id, "", "test"); err != nil {
			t.Fatal(err)
		}
		// No workflow code runs on termination: the worker's check finds it.
		waitFor(t, "the terminated run's shell to be killed", 20*time.Second, func() bool { return len(processesWith(m)) == 0 })
	})
}

// A run's shells that no call touched for the worker's ShellIdle are
// killed; a worker that stops kills its shells before Serve returns.
func TestBackgroundShellsIdleAndStop(t *testing.T) {
	_, model, dir, q := fixture(t)
	stop := inProcessWorker(t, dir, q, model, temporal.WorkerOptions{ShellCheck: 200 * time.Millisecond, ShellIdle: 2 * time.Second})
	m := marker("3125")
	t.Cleanup(func() { killProcessesWith(m) })
	pausedWithShell(t, model, q, "an idle shell", m)
	waitFor(t, "the idle shell to be killed", 20*time.Second, func() bool { return len(processesWith(m)) == 0 })
	stop()

	q2 := queueName(t) + "-2"
	stop = inProcessWorker(t, dir, q2, model, temporal.WorkerOptions{})
	m2 := marker("4375")
	t.Cleanup(func() { killProcessesWith(m2) })
	pausedWithShell(t, model, q2, "a shell of a stopping worker", m2)
	stop()
	if p := processesWith(m2); len(p) > 0 {
		t.Fatalf("Serve returned with its shell alive: %v", p)
	}
}

// The workflow bounds a run's shells, whatever worker holds them: with 8
// not known to have ended, a 9th start is refused without reaching a
// worker; a shell killed no longer counts; an unknown id is answered
// with the run's shells. (The SDK's test environment; the activities
// stand in for workers.)
func TestBackgroundShellBound(t *testing.T) {
	var steps []step
	for i := 1; i <= 9; i++ {
		steps = append(steps, step{calls: [][3]string{{fmt.Sprintf("c%d", i), "Bash", `{"command":"sleep 100","run_in_background":true}`}}})
	}
	steps = append(steps,
		step{calls: [][3]string{{"k1", "KillShell", `{"shell_id":"bash_w_1"}`}}},
		step{calls: [][3]string{{"c10", "Bash", `{"command":"sleep 100","run_in_background":true}`}}},
		step{calls: [][3]string{{"o1", "BashOutput", `{"bash_id":"bash_w_99"}`}}},
		step{text: "bounded"})
	m := &scripted{steps: steps}
	env, _ := testEnv(t, t.TempDir(), m)
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: t.TempDir(), Background: true})})
	if err != nil {
		t.Fatal(err)
	}
	tools := &temporal.Tools{Toolkit: tk}
	env.RegisterActivityWithOptions(tools.Turn, activity.RegisterOptions{Name: temporal.TurnActivity})
	var mu sync.Mutex
	var calls []string
	env.RegisterActivityWithOptions(func(ctx context.Context, in temporal.CallInput) (*temporal.CallOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, in.Call.ID)
		res := &tool.Result{ID: in.Call.ID, Name: in.Call.Name, Status: tool.StatusSuccess}
		out := &temporal.CallOutput{Result: res, State: in.State}
		if in.Call.Name == "Bash" {
			id := fmt.Sprintf("bash_w_%d", len(calls))
			res.Content = []tool.Block{tool.TextBlock("Command running in background with ID: " + id)}
			out.Shell = &temporal.ShellRoute{ID: id, Queue: "worker-w"}
		} else {
			out.ShellEnded = true
		}
		return out, nil
	}, activity.RegisterOptions{Name: temporal.CallActivity})
	env.RegisterActivityWithOptions(func(ctx context.Context, in temporal.EndShellsInput) (*temporal.EndShellsOutput, error) {
		return &temporal.EndShellsOutput{Ended: true}, nil
	}, activity.RegisterOptions{Name: temporal.EndShellsActivity})
	env.ExecuteWorkflow(temporal.WorkflowName, runInput("go", permission.Bypass))
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if r := m.result("c9"); r == nil || r.Status != tool.StatusError || !strings.Contains(r.Text(), "8 background shells of this run may still be running") {
		t.Fatalf("the 9th start: %+v", r)
	}
	if r := m.result("c10"); r == nil || r.Status != tool.StatusSuccess {
		t.Fatalf("the start after a kill: %+v", r)
	}
	if r := m.result("o1"); r == nil || !strings.Contains(r.Text(), `No background shell with id "bash_w_99". This run's shells: bash_w_1 (ended); bash_w_2 (may be running)`) {
		t.Fatalf("an unknown id: %+v", r)
	}
	if got := strings.Join(calls, ","); got != "c1,c2,c3,c4,c5,c6,c7,c8,k1,c10" {
		t.Fatalf("the calls that reached a worker: %s", got)
	}
}
