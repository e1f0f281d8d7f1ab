package temporal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/tool"
)

// Background shells on Temporal
//
// A background shell (Bash with run_in_background) is a process of the
// worker whose Call activity started it: it cannot move with the
// workflow. Each worker that [Serve] runs for a workspace therefore also
// polls a task queue of its own, "<task queue>-shells-<worker id>", and
// names its shells after itself ("bash_<worker id>_1"). The Call activity
// that starts a shell returns that queue ([CallOutput.Shell]); the
// workflow keeps the run's shells and their queues ([RunInput.Shells],
// carried over when the run continues as a new one), and schedules
// BashOutput and KillShell for a shell on its worker's queue alone, with
// a short schedule-to-start timeout ([RunInput.ShellTimeout]) and no
// retry: if that worker is gone, its queue is not polled, the call times
// out, and the model reads that the shell is gone with its worker (see
// goneText). A call is never given to another worker.
//
// The worker keeps each run's shells in a tool.State of its own (the
// owner), which the per-call states of that run's calls share
// (builtin.ShareShells). The owner is closed, killing the run's shells
// with their process groups, when
//   - the run ends (completes, fails or is cancelled): the workflow's last
//     step is an [EndShellsActivity] on each worker that holds its shells;
//   - the run vanished without that step (terminated, timed out, reset):
//     the worker looks every [WorkerOptions.ShellCheck] for runs that are
//     closed, or whose workflow id now belongs to another run;
//   - no call touched the run's shells for [WorkerOptions.ShellIdle];
//   - the worker stops ([Serve] returns).
// A worker killed with SIGKILL takes its shells with it: package proc's
// helper (or the sandbox's PID namespace) ends a command whose parent died.

// shellRun names a run whose shells a worker keeps: its workflow id and
// the first run id of the chain of runs it continues.
type shellRun struct{ workflowID, firstRunID string }

// runShells are the shells of one run on this worker.
type runShells struct {
	owner *tool.State
	last  time.Time // when a call last touched them
}

// shellHost keeps the background shells of the runs whose calls ran on
// this worker.
type shellHost struct {
	id, queue string

	mu     sync.Mutex
	runs   map[shellRun]*runShells
	closed bool
}

// newShellHost returns the shells of a new worker of taskQueue, with an
// id of its own.
func newShellHost(taskQueue string) *shellHost {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	id := hex.EncodeToString(b[:])
	return &shellHost{id: id, queue: taskQueue + "-shells-" + id, runs: map[shellRun]*runShells{}}
}

// share makes st use the shells of run on this worker; false once the
// worker stops.
func (h *shellHost) share(st *tool.State, run shellRun) bool {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return false
	}
	rs := h.runs[run]
	if rs == nil {
		rs = &runShells{owner: tool.NewState(nil)}
		h.runs[run] = rs
	}
	rs.last = time.Now()
	owner := rs.owner
	h.mu.Unlock()
	return builtin.ShareShells(st, owner, "bash_"+h.id+"_")
}

// end kills the shells of run with their process groups, and forgets
// the run; it reports whether the run had any here.
func (h *shellHost) end(run shellRun) bool { return h.endIdle(run, 0) }

// endIdle is end, for a run no call touched for idle (0: any run).
func (h *shellHost) endIdle(run shellRun, idle time.Duration) bool {
	h.mu.Lock()
	rs := h.runs[run]
	if rs == nil || idle > 0 && time.Since(rs.last) <= idle {
		h.mu.Unlock()
		return false
	}
	delete(h.runs, run)
	h.mu.Unlock()
	rs.owner.Close()
	return true
}

// close kills every shell, and lets none start after.
func (h *shellHost) close() {
	h.mu.Lock()
	h.closed = true
	runs := h.runs
	h.runs = map[shellRun]*runShells{}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, rs := range runs {
		wg.Go(func() { rs.owner.Close() })
	}
	wg.Wait()
}

// reap kills the shells of the runs that are over (closed, or their
// workflow id belongs to another run now, or unknown to the server), and
// of those no call touched for idle. A run the server cannot tell about
// (unreachable) keeps its shells until idle.
func (h *shellHost) reap(ctx context.Context, c client.Client, idle time.Duration) {
	h.mu.Lock()
	var runs, idled []shellRun
	for run, rs := range h.runs {
		if time.Since(rs.last) > idle {
			idled = append(idled, run)
		} else {
			runs = append(runs, run)
		}
	}
	h.mu.Unlock()
	for _, run := range idled {
		h.endIdle(run, idle)
	}
	for _, run := range runs {
		if ctx.Err() != nil {
			return
		}
		d, err := c.DescribeWorkflowExecution(ctx, run.workflowID, "")
		var nf *serviceerror.NotFound
		switch {
		case errors.As(err, &nf):
			h.end(run)
		case err != nil:
		default:
			info := d.GetWorkflowExecutionInfo()
			first := info.GetFirstRunId()
			if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING || first != "" && run.firstRunID != "" && first != run.firstRunID {
				h.end(run)
			}
		}
	}
}

// serveReaper runs reap every check until ctx is done.
func (h *shellHost) serveReaper(ctx context.Context, c client.Client, check, idle time.Duration) {
	tick := time.NewTicker(check)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			h.reap(ctx, c, idle)
		}
	}
}

// Shell tools' names, and the limits of a run's shells.
const (
	bashTool          = "Bash"
	bashOutputTool    = "BashOutput"
	killShellTool     = "KillShell"
	maxEndedRoutes    = 32 // ended shells a run keeps routes of
	defaultShellDelay = 10 * time.Second
)

// shellInput is what the workflow reads of a shell tool's input.
type shellInput struct {
	Background bool   `json:"run_in_background"`
	BashID     string `json:"bash_id"`
	ShellID    string `json:"shell_id"`
}

func readShellInput(in json.RawMessage) shellInput {
	var s shellInput
	_ = json.Unmarshal(in, &s) // a malformed input is the tool's to report
	return s
}

// startsShell reports whether a call of the tool name with input in is
// a Bash call that starts a background shell.
func startsShell(name string, in json.RawMessage) bool {
	return name == bashTool && readShellInput(in).Background
}

// readsShell returns the shell a BashOutput or KillShell call names ("" for
// another call).
func readsShell(name string, in json.RawMessage) string {
	switch name {
	case bashOutputTool:
		return readShellInput(in).BashID
	case killShellTool:
		return readShellInput(in).ShellID
	}
	return ""
}

// shellEnded reports whether a BashOutput or KillShell result says the
// shell no longer runs on its worker: it ended (completed, failed,
// killed), or the worker does not know it (its shells were killed when
// no call touched them for long).
func shellEnded(res *tool.Result) bool {
	if res == nil {
		return false
	}
	text := res.Text()
	switch res.Name {
	case bashOutputTool:
		if s, ok := res.Metadata["status"].(string); ok {
			return s != "running"
		}
		return res.Status == tool.StatusError && strings.HasPrefix(strings.TrimPrefix(text, "Error: "), "No background shell")
	case killShellTool:
		return res.Status == tool.StatusSuccess || res.Status == tool.StatusError &&
			(strings.Contains(text, "is not running") || strings.Contains(text, "No background shell"))
	}
	return false
}

// The workflow's side: routing the run's shell calls.

// offersShells reports whether the workspace offers background shells
// (its tool list has BashOutput).
func (w *wfRun) offersShells() bool {
	_, ok := w.tools[bashOutputTool]
	return ok
}

// shellCall reports whether c starts, reads or kills a background shell.
func (w *wfRun) shellCall(c agent.ToolCall) bool {
	return w.offersShells() && (startsShell(c.Name, c.Input) || readsShell(c.Name, c.Input) != "")
}

// route returns the route of the run's shell id, or nil.
func (w *wfRun) route(id string) *ShellRoute {
	for i := range w.shells {
		if w.shells[i].ID == id {
			return &w.shells[i]
		}
	}
	return nil
}

// routeOf returns the route of the shell a BashOutput or KillShell call
// names, when it is a shell of the run whose worker is not known gone:
// the call runs on that worker's queue.
func (w *wfRun) routeOf(c agent.ToolCall) *ShellRoute {
	if !w.offersShells() {
		return nil
	}
	if id := readsShell(c.Name, c.Input); id != "" {
		if r := w.route(id); r != nil && !r.Gone {
			return r
		}
	}
	return nil
}

// shellEnded records that the shell id no longer runs; gone: its worker
// is lost.
func (w *wfRun) shellEnded(id string, gone bool) {
	if r := w.route(id); r != nil {
		r.Ended = true
		r.Gone = r.Gone || gone
	}
}

// addShell records a shell a call started; the oldest ended routes go
// beyond maxEndedRoutes.
func (w *wfRun) addShell(r ShellRoute) {
	w.shells = append(w.shells, r)
	ended := 0
	for _, s := range w.shells {
		if s.Ended {
			ended++
		}
	}
	w.shells = slices.DeleteFunc(w.shells, func(s ShellRoute) bool {
		if s.Ended && ended > maxEndedRoutes {
			ended--
			return true
		}
		return false
	})
}

// shellRefusal is the result of a shell call the workflow answers
// itself: a background shell beyond the run's bound, a shell the run
// does not have, or one whose worker is gone. nil lets the call run.
func (w *wfRun) shellRefusal(c agent.ToolCall) *tool.Result {
	if !w.offersShells() {
		return nil
	}
	if startsShell(c.Name, c.Input) {
		var live []string
		for _, s := range w.shells {
			if !s.Ended {
				live = append(live, s.ID)
			}
		}
		if len(live) < builtin.MaxBackgroundShells {
			return nil
		}
		return errorResult(c, fmt.Sprintf("Command not run: %d background shells of this run may still be running, the most one run may have: %s. Stop one with KillShell, or read them with BashOutput (a shell read as ended no longer counts).",
			len(live), strings.Join(live, ", ")))
	}
	id := readsShell(c.Name, c.Input)
	if id == "" {
		return nil // no id: the tool reports the input error
	}
	r := w.route(id)
	switch {
	case r == nil:
		if len(w.shells) == 0 {
			return errorResult(c, fmt.Sprintf("No background shell with id %q: this run has none (start one with Bash and run_in_background: true)", id))
		}
		var list []string
		for _, s := range w.shells {
			what := "may be running"
			switch {
			case s.Gone:
				what = "gone with its worker"
			case s.Ended:
				what = "ended"
			}
			list = append(list, fmt.Sprintf("%s (%s)", s.ID, what))
		}
		return errorResult(c, fmt.Sprintf("No background shell with id %q. This run's shells: %s", id, strings.Join(list, "; ")))
	case r.Gone:
		return w.goneResult(c, id)
	}
	return nil
}

// goneResult is what the model reads for a shell whose worker is lost.
func (w *wfRun) goneResult(c agent.ToolCall, id string) *tool.Result {
	return errorResult(c, fmt.Sprintf("Background shell %s is gone with its worker: the worker process that ran it did not take this call within %s (it was stopped, killed, or its machine lost). A background shell belongs to the worker that started it, and its processes end with that worker: its output is lost and it runs no more. Start the command again if you still need it.",
		id, w.shellTimeout()))
}

func errorResult(c agent.ToolCall, text string) *tool.Result {
	return &tool.Result{ID: c.ID, Name: c.Name, Input: c.Input, Status: tool.StatusError,
		Content: []tool.Block{tool.TextBlock(text)}}
}

func (w *wfRun) shellTimeout() time.Duration {
	if w.in.ShellTimeout > 0 {
		return w.in.ShellTimeout
	}
	return defaultShellDelay
}

// endShells kills the run's shells on each worker that may hold running
// ones (an EndShells activity on its queue), even when the run was
// cancelled; a worker that does not take it in time is lost, and its
// shells with it.
func (w *wfRun) endShells(ctx workflow.Context) {
	var queues []string
	for _, s := range w.shells {
		if !s.Ended && !s.Gone && !slices.Contains(queues, s.Queue) {
			queues = append(queues, s.Queue)
		}
	}
	if len(queues) == 0 {
		return
	}
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	info := workflow.GetInfo(ctx)
	futures := make([]workflow.Future, len(queues))
	for i, q := range queues {
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			TaskQueue: q, ScheduleToStartTimeout: w.shellTimeout(), StartToCloseTimeout: time.Minute,
			RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
		futures[i] = workflow.ExecuteActivity(actx, EndShellsActivity, EndShellsInput{WorkflowID: info.WorkflowExecution.ID, FirstRunID: info.FirstRunID})
	}
	for _, f := range futures {
		_ = f.Get(ctx, nil) // a lost worker took its shells with it
	}
}
