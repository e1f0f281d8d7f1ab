package temporal

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/subagent"
	"github.com/toolscope/toolscope/tool"
)

// SubagentActivity judges and resolves a run's Agent call on the
// workspace (see [Tools.EnableSubagents]).
const SubagentActivity = "toolscope.Subagent"

// memoSubagent names, in a run's memo, the run of the sub-agent it waits
// on ("" when none); memoParent, in a sub-agent's run, the run and call
// that started it.
const (
	memoSubagent = "toolscope_subagent"
	memoParent   = "toolscope_parent"
)

type (
	// SubagentInput is a run's Agent call, with the run's state.
	SubagentInput struct {
		Call     agent.ToolCall `json:"call"`
		Approved bool           `json:"approved,omitempty"`
		State    *tool.State    `json:"state"`
	}
	// SubagentOutput is what the sub-agent's run starts with, or, when
	// the call does not start one (refused, waiting for approval, a bad
	// input), its Result.
	SubagentOutput struct {
		Result      *tool.Result        `json:"result,omitempty"`
		Kind        string              `json:"kind,omitempty"`
		System      string              `json:"system,omitempty"`
		Prompt      string              `json:"prompt,omitempty"`
		Model       string              `json:"model,omitempty"`
		MaxTurns    int                 `json:"max_turns,omitempty"`
		Tools       []string            `json:"tools,omitempty"`
		Permissions *permission.Context `json:"permissions,omitempty"`
	}
	// ParentRef names the run and the call that started a sub-agent's run.
	ParentRef struct {
		WorkflowID string `json:"workflow_id"`
		CallID     string `json:"call_id"`
		Kind       string `json:"kind"`
	}
)

// EnableSubagents lets the runs on this workspace start sub-agents: the
// Agent tool (package subagent) joins t.Toolkit, offering the built-in
// kinds and defs (the workspace's agent files: host.Workspace.Subagents).
//
// In a durable run a sub-agent is a child workflow: a run of its own
// (its id is the parent's, "/agent/" and the call's id), with its kind's
// system prompt, the tools its kind may use, a mode no wider than its
// parent's and its parent's rules, on the same workspace and model
// queues. It is durable as its parent is; its calls are judged and
// hooked as the parent's; the parent waits for its answer, which is the
// Agent call's result. When one of its calls needs approval, the
// sub-agent's run waits, listed by toolscope runs (with the run it
// belongs to) and answered as any run: toolscope approve SUBAGENT-RUN
// CALL. Cancelling the parent cancels it.
func (t *Tools) EnableSubagents(defs []subagent.Definition) error {
	kinds, err := subagent.Kinds(defs)
	if err != nil {
		return err
	}
	at, err := subagent.New(&subagent.Options{Definitions: defs, Model: childOnly{}, Toolkit: t.Toolkit})
	if err != nil {
		return err
	}
	if err := t.Toolkit.Add(tool.BasicGroup, at); err != nil {
		return err
	}
	t.kinds = kinds
	return nil
}

// childOnly is the model of the Agent tool on a worker: a durable run's
// sub-agents are child workflows, never a loop inside one activity.
type childOnly struct{}

func (childOnly) Stream(context.Context, *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		yield(agent.ModelEvent{}, errors.New("a durable run's sub-agents run as child workflows, not inside a tool call"))
	}
}

// Subagent judges a run's Agent call and resolves its kind
// ([SubagentActivity]): the sub-agent's run to start, or the call's
// result when it starts none.
func (t *Tools) Subagent(ctx context.Context, in SubagentInput) (*SubagentOutput, error) {
	st := in.State
	if st == nil {
		st = tool.NewState(nil)
	}
	c := in.Call
	result := func(status tool.Status, text string, d *permission.Decision) *SubagentOutput {
		r := &tool.Result{ID: c.ID, Name: c.Name, Input: c.Input, Status: status, Decision: d}
		if text != "" {
			r.Content = []tool.Block{tool.TextBlock(text)}
		}
		return &SubagentOutput{Result: r}
	}
	if t.kinds == nil {
		return result(tool.StatusError, "Sub-agents are not enabled on this workspace's worker.", nil), nil
	}
	if !in.Approved {
		v, err := t.Toolkit.Check(tool.WithState(ctx, st), &tool.Call{ID: c.ID, Name: c.Name, Input: c.Input, State: st})
		if err != nil {
			return nil, err
		}
		d := v.Decision
		switch d.Behavior {
		case permission.Deny:
			return result(tool.StatusDenied, d.Message, &d), nil
		case permission.Ask, permission.Passthrough:
			d.Behavior = permission.Ask
			return result(tool.StatusAsking, "", &d), nil
		}
	}
	task, err := subagent.Resolve(t.kinds, c.Input)
	if err != nil {
		return result(tool.StatusError, err.Error(), nil), nil
	}
	def := task.Definition
	out := &SubagentOutput{Kind: def.Name, System: def.Prompt, Prompt: task.Prompt, MaxTurns: def.MaxTurns,
		Tools:       subagent.ToolNames(ctx, t.Toolkit, st.ActiveGroups(), def),
		Permissions: subagent.Permissions(st.Permissions(), def)}
	if def.Model != "inherit" && strings.Contains(def.Model, ":") {
		out.Model = def.Model
	}
	return out, nil
}

// subagent makes a run's Agent call: the sub-agent's run as a child
// workflow, whose answer is the call's result.
func (w *wfRun) subagent(ctx workflow.Context, r *agent.Run, st agent.Step) (*tool.Result, error) {
	c := st.Call
	var out SubagentOutput
	if err := w.quick(ctx, SubagentActivity, SubagentInput{Call: c, Approved: st.Approved, State: r.State}, &out); err != nil {
		if temporal.IsCanceledError(err) || ctx.Err() != nil {
			return nil, err
		}
		return failed(c, err), nil
	}
	if out.Result != nil {
		return out.Result, nil
	}
	sub := tool.NewState(out.Permissions)
	sub.SetActiveGroups(r.State.ActiveGroups())
	model := out.Model
	if model == "" {
		model = w.in.Model
	}
	parent := workflow.GetInfo(ctx).WorkflowExecution.ID
	id := parent + "/agent/" + c.ID
	in := RunInput{
		System: out.System,
		Run:    &agent.Run{Messages: []agent.Message{{Role: agent.User, Text: out.Prompt}}, State: sub},
		Model:  model, ToolQueue: w.in.ToolQueue, ModelQueue: w.in.ModelQueue, MaxIters: out.MaxTurns,
		ApprovalTimeout: w.in.ApprovalTimeout, HeartbeatTimeout: w.in.HeartbeatTimeout, ToolTimeout: w.in.ToolTimeout,
		TranscriptBudget: w.in.TranscriptBudget, ContinueAfter: w.in.ContinueAfter,
		OnlyTools: out.Tools, Parent: &ParentRef{WorkflowID: parent, CallID: c.ID, Kind: out.Kind},
	}
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: id,
		// Cancelling the parent cancels the sub-agent, whose running
		// call ends (its processes killed) before it closes.
		ParentClosePolicy:   enumspb.PARENT_CLOSE_POLICY_REQUEST_CANCEL,
		WaitForCancellation: true,
		Memo:                map[string]any{memoParent: in.Parent},
	})
	if err := workflow.UpsertMemo(ctx, map[string]any{memoSubagent: id}); err != nil {
		return nil, err
	}
	w.child = id
	var res RunOutput
	err := workflow.ExecuteChildWorkflow(cctx, WorkflowName, in).Get(ctx, &res)
	w.child = ""
	if err2 := workflow.UpsertMemo(ctx, map[string]any{memoSubagent: ""}); err2 != nil {
		return nil, err2
	}
	if err != nil {
		if temporal.IsCanceledError(err) || ctx.Err() != nil {
			return nil, err
		}
		return &tool.Result{ID: c.ID, Name: c.Name, Input: c.Input, Status: tool.StatusError,
			Content: []tool.Block{tool.TextBlock(fmt.Sprintf("The sub-agent %s (run %s) failed: %v", out.Kind, id, err))}}, nil
	}
	text := strings.TrimSpace(res.Answer)
	if text == "" {
		text = "(The sub-agent ended without an answer.)"
	}
	return &tool.Result{ID: c.ID, Name: c.Name, Input: c.Input, Status: tool.StatusSuccess,
		Content:  []tool.Block{tool.TextBlock(text)},
		Metadata: map[string]any{"subagent_type": out.Kind, "run": id}}, nil
}

// offered filters schemas by the run's OnlyTools (a sub-agent's run).
func (w *wfRun) offered(schemas []tool.Schema) []tool.Schema {
	if w.in.OnlyTools == nil {
		return schemas
	}
	return slices.DeleteFunc(slices.Clone(schemas), func(s tool.Schema) bool { return !slices.Contains(w.in.OnlyTools, s.Name) })
}
