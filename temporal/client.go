package temporal

import (
	"context"
	"fmt"
	"github.com/toolscope/toolscope/agent"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// Start starts a run of [Agent] with the workflow id id ("" lets the server
// choose) on the workspace's task queue. An id that a running run has is
// refused: the prompt would be lost otherwise.
func Start(ctx context.Context, c client.Client, id, taskQueue string, in RunInput) (client.WorkflowRun, error) {
	return c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue,
		WorkflowExecutionErrorWhenAlreadyStarted: true}, WorkflowName, in)
}

// AnswerCall answers a waiting call of the run workflowID. It returns once
// the run has recorded the answer (the call runs after), with the number
// of the pause it answered. An answer to a call that does not wait is an
// error, and nothing is recorded.
func AnswerCall(ctx context.Context, c client.Client, workflowID string, a Answer) (int, error) {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: workflowID, UpdateName: AnswerUpdate, Args: []any{a},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return 0, err
	}
	var pause int
	if err := h.Get(ctx, &pause); err != nil {
		return 0, err
	}
	return pause, nil
}

// Status is where a run stands.
type Status struct {
	WorkflowID string
	RunID      string
	// State is the workflow's status as Temporal names it: Running,
	// Completed, Failed, Canceled, Terminated, ContinuedAsNew, TimedOut.
	State string
	// Waiting are the calls the run waits on (from its memo); Pause counts
	// its pauses.
	Waiting []WaitingCall
	Pause   int
	// Output is a completed run's; Err a failed one's failure.
	Output *RunOutput
	Err    error
	// Start is when it started.
	Start time.Time
	// Subagent is the run of the sub-agent this run waits for ("" when
	// none): its calls are the ones to answer. Parent, for a
	// sub-agent's run, names the run and call that started it.
	Subagent string
	Parent   *ParentRef
}

// Closed reports whether the run is over.
func (s *Status) Closed() bool { return s.State != "Running" }

// Describe returns where the run workflowID stands, and the output of a
// finished one.
func Describe(ctx context.Context, c client.Client, workflowID string) (*Status, error) {
	d, err := c.DescribeWorkflowExecution(ctx, workflowID, "")
	if err != nil {
		return nil, err
	}
	info := d.GetWorkflowExecutionInfo()
	st := statusOf(info.GetExecution().GetWorkflowId(), info.GetExecution().GetRunId(), info.GetStatus(), info.GetMemo())
	if t := info.GetStartTime(); t != nil {
		st.Start = t.AsTime()
	}
	if st.Closed() {
		var out RunOutput
		if err := c.GetWorkflow(ctx, workflowID, st.RunID).Get(ctx, &out); err != nil {
			st.Err = err
		} else {
			st.Output = &out
		}
	}
	return st, nil
}

func statusOf(id, runID string, s enumspb.WorkflowExecutionStatus, memo *commonpb.Memo) *Status {
	st := &Status{WorkflowID: id, RunID: runID, State: s.String()}
	dc := converter.GetDefaultDataConverter()
	if p := memo.GetFields()[memoWaiting]; p != nil {
		_ = dc.FromPayload(p, &st.Waiting)
	}
	if p := memo.GetFields()[memoPause]; p != nil {
		_ = dc.FromPayload(p, &st.Pause)
	}
	if p := memo.GetFields()[memoSubagent]; p != nil {
		_ = dc.FromPayload(p, &st.Subagent)
	}
	if p := memo.GetFields()[memoParent]; p != nil {
		_ = dc.FromPayload(p, &st.Parent)
	}
	return st
}

// Wait waits until the run workflowID is over, or waits on calls at a pause
// later than after (0 for the first pause), and returns where it stands;
// or, while the run waits for a sub-agent whose run waits on calls, that
// run's status (its WorkflowID is the sub-agent's: answer its calls
// there).
func Wait(ctx context.Context, c client.Client, workflowID string, after int) (*Status, error) {
	closed := make(chan struct{})
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(closed)
		_ = c.GetWorkflow(gctx, workflowID, "").Get(gctx, nil)
	}()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := Describe(ctx, c, workflowID)
		if err != nil {
			return nil, err
		}
		if st.Closed() || st.Pause > after && len(st.Waiting) > 0 {
			return st, nil
		}
		if sub, err := waitingSubagent(ctx, c, st); err != nil {
			return nil, err
		} else if sub != nil {
			return sub, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-closed:
		case <-tick.C:
		}
	}
}

// waitingSubagent follows a running run's sub-agents (their runs) to the
// one that waits on calls, if any.
func waitingSubagent(ctx context.Context, c client.Client, st *Status) (*Status, error) {
	for depth := 0; st.Subagent != "" && depth < 8; depth++ {
		sub, err := Describe(ctx, c, st.Subagent)
		if err != nil {
			return nil, nil // not started yet, or gone: the parent goes on
		}
		if sub.Closed() {
			return nil, nil
		}
		if len(sub.Waiting) > 0 {
			return sub, nil
		}
		st = sub
	}
	return nil, nil
}

// ListWaiting lists the running runs of [Agent] with their waiting calls,
// newest first; with all unset, only those that wait on calls. It needs no
// worker: the runs keep their waiting calls in their memo.
func ListWaiting(ctx context.Context, c client.Client, namespace string, all bool) ([]*Status, error) {
	var out []*Status
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace:     namespace,
			Query:         fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", WorkflowName),
			NextPageToken: token,
		})
		if err != nil {
			return nil, err
		}
		for _, info := range resp.GetExecutions() {
			st := statusOf(info.GetExecution().GetWorkflowId(), info.GetExecution().GetRunId(), info.GetStatus(), info.GetMemo())
			if t := info.GetStartTime(); t != nil {
				st.Start = t.AsTime()
			}
			if all || len(st.Waiting) > 0 {
				out = append(out, st)
			}
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			return out, nil
		}
	}
}

// Pending returns the calls the run workflowID waits on, with their whole
// inputs and decisions (the memo that ListWaiting reads leaves large
// inputs out).
func Pending(ctx context.Context, c client.Client, workflowID string) ([]agent.Waiting, error) {
	v, err := c.QueryWorkflow(ctx, workflowID, "", PendingQuery)
	if err != nil {
		return nil, err
	}
	var w []agent.Waiting
	if err := v.Get(&w); err != nil {
		return nil, err
	}
	return w, nil
}
