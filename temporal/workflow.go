package temporal

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/subagent"
	"github.com/toolscope/toolscope/tool"
)

// The names the workflow, its activities, its update and its queries are
// registered under.
const (
	WorkflowName    = "toolscope.Agent"
	PrepareActivity = "toolscope.Prepare"
	TurnActivity    = "toolscope.Turn"
	CallActivity    = "toolscope.Call"
	ModelActivity   = "toolscope.Model"
	CoveredActivity = "toolscope.Covered"
	PromptActivity  = "toolscope.Prompt"
	StopActivity    = "toolscope.Stop"
	// PreCompactActivity runs the workspace's PreCompact hooks.
	PreCompactActivity = "toolscope.PreCompact"
	// EndShellsActivity kills a run's background shells on one worker.
	EndShellsActivity = "toolscope.EndShells"
	// AnswerUpdate answers a waiting call with an [Answer]; it returns the
	// pause (an int, see [Status.Pause]) it answered.
	AnswerUpdate = "toolscope.answer"
	// PendingQuery returns the waiting calls ([]agent.Waiting).
	PendingQuery = "toolscope.pending"
	// RunQuery returns the conversation and the agent's state (*agent.Run).
	RunQuery = "toolscope.run"
	// DefaultModelQueue is the task queue of model turns.
	DefaultModelQueue = "toolscope-model"
)

// The memo keys a run keeps its waiting calls under.
const (
	memoWaiting = "toolscope_waiting"
	memoPause   = "toolscope_pause"
)

// RunInput starts a run of [Agent].
type RunInput struct {
	// Prompt is the user's input.
	Prompt string `json:"prompt"`
	// System is the system prompt; the skills' prompt of the active groups
	// follows it.
	System string `json:"system,omitempty"`
	// Permissions are the run's mode and rules (nil: Default mode, none).
	// When the run starts, the workspace's settings are added to them; the
	// mode given here wins over the settings' when KeepMode is set.
	Permissions *permission.Context `json:"permissions,omitempty"`
	KeepMode    bool                `json:"keep_mode,omitempty"`
	// Run, when set, continues that conversation and state (Permissions
	// are then not used; the state has its own).
	Run *agent.Run `json:"run,omitempty"`
	// Model names the model for the model workers ("openai:NAME",
	// "anthropic:NAME"); "" means theirs.
	Model string `json:"model,omitempty"`
	// ToolQueue is the workspace's task queue, where the tool calls run;
	// "" means the workflow's own. ModelQueue is where model turns run;
	// "" means DefaultModelQueue.
	ToolQueue  string `json:"tool_queue,omitempty"`
	ModelQueue string `json:"model_queue,omitempty"`
	// MaxIters bounds the model steps of the reply, as agent.Agent's.
	MaxIters int `json:"max_iters,omitempty"`
	// ApprovalTimeout, when positive, refuses a call nobody answered in
	// that time; 0 waits for ever.
	ApprovalTimeout time.Duration `json:"approval_timeout,omitempty"`
	// HeartbeatTimeout is how soon a tool call whose worker stopped
	// heartbeating is given up as interrupted (default 10s). A running
	// call learns of the run's cancellation at its next heartbeat, within
	// about as long.
	HeartbeatTimeout time.Duration `json:"heartbeat_timeout,omitempty"`
	// ToolTimeout bounds one tool call (default 2h; Bash has its own,
	// shorter, timeout).
	ToolTimeout time.Duration `json:"tool_timeout,omitempty"`
	// ContinueAfter, when positive, continues the run as a new one (the
	// same workflow id, the conversation and state carried over, a new
	// history) after that many model turns; it does so anyway when
	// Temporal says the history grows large.
	ContinueAfter int `json:"continue_after,omitempty"`
	// PausesBefore counts the pauses of the runs this one continues.
	PausesBefore int `json:"pauses_before,omitempty"`
	// Hooks are the hooks of the workspace the run started on, carried to
	// the runs it continues as; the workflow sets them.
	Hooks *HookFlags `json:"hooks,omitempty"`
	// TranscriptBudget bounds the conversation's size in JSON (default 1
	// MiB): Temporal refuses payloads over 2 MiB, and the conversation
	// goes into every model turn. Past it, the outputs (and large inputs)
	// of the oldest calls are replaced by a note, as a long session's
	// context is compacted.
	TranscriptBudget int `json:"transcript_budget,omitempty"`
	// Shells are the run's background shells, each with the queue of the
	// worker that holds it, carried to the runs it continues as; the
	// workflow sets them.
	Shells []ShellRoute `json:"shells,omitempty"`
	// ShellTimeout is how long a BashOutput or KillShell call waits for
	// the worker that holds its shell to take it (default 10s); past it,
	// the worker is taken for lost, and the model reads that the shell
	// is gone with it.
	ShellTimeout time.Duration `json:"shell_timeout,omitempty"`
	// OnlyTools, when not nil, are the only tools the run may use (a
	// sub-agent's run: see [Tools.EnableSubagents]); Parent names the
	// run and call that started it.
	OnlyTools []string   `json:"only_tools,omitempty"`
	Parent    *ParentRef `json:"parent,omitempty"`
}

// RunOutput is a finished run.
type RunOutput struct {
	// Answer is the model's final answer.
	Answer string `json:"answer"`
	// Run is the conversation and the agent's state at the end.
	Run *agent.Run `json:"run"`
}

// Answer answers a waiting call (see [AnswerUpdate]).
type Answer struct {
	CallID string `json:"call_id"`
	// Approve runs a call that needs approval; false refuses it.
	Approve bool `json:"approve,omitempty"`
	// Always, with Approve, adds the rules the call's decision suggested,
	// so that calls like it run without asking (not for bypass-immune
	// calls, which ask every time).
	Always bool `json:"always,omitempty"`
	// Rules, with Approve, are more rules to add to the run's permissions.
	Rules []permission.Rule `json:"rules,omitempty"`
	// Input, with Approve, replaces the call's input (the user edited it).
	Input json.RawMessage `json:"input,omitempty"`
	// Message, with a refusal, is the user's word to the model.
	Message string `json:"message,omitempty"`
	// Result is an External tool's result.
	Result *tool.Result `json:"result,omitempty"`
}

// WaitingCall is a waiting call as a run's memo lists it.
type WaitingCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Input is the call's input, left out (InputSize says how large it
	// is) when larger than 4 KiB: the memo is small; the pending query
	// has it whole.
	Input        json.RawMessage `json:"input,omitempty"`
	InputSize    int             `json:"input_size,omitempty"`
	Status       tool.Status     `json:"status"`
	Message      string          `json:"message,omitempty"`
	Reason       string          `json:"reason,omitempty"`
	Suggestions  []string        `json:"suggestions,omitempty"`
	BypassImmune bool            `json:"bypass_immune,omitempty"`
}

// The activities' inputs and outputs.
type (
	PrepareInput struct {
		Permissions *permission.Context `json:"permissions"`
		KeepMode    bool                `json:"keep_mode,omitempty"`
	}
	PrepareOutput struct {
		Permissions *permission.Context `json:"permissions"`
		Hooks       *HookFlags          `json:"hooks,omitempty"`
		// Root is the workspace's project root ("": not told).
		Root string `json:"root,omitempty"`
	}
	// HookFlags say which of the agent's hooks the workspace has.
	HookFlags struct {
		Prompt     bool `json:"prompt,omitempty"`
		Stop       bool `json:"stop,omitempty"`
		PreCompact bool `json:"pre_compact,omitempty"`
	}
	CoveredInput struct {
		Call  agent.ToolCall    `json:"call"`
		Rules []permission.Rule `json:"rules"`
		State *tool.State       `json:"state"`
	}
	CoveredOutput struct {
		Covered bool `json:"covered,omitempty"`
	}
	PromptInput struct {
		Prompt string `json:"prompt"`
	}
	PromptOutput struct {
		Prompt string `json:"prompt"`
	}
	StopInput struct {
		Run    *agent.Run `json:"run"`
		Answer string     `json:"answer"`
	}
	PreCompactInput struct {
		Trigger string `json:"trigger"`
	}
	PreCompactOutput struct{}
	StopOutput       struct {
		Reason string `json:"reason,omitempty"`
	}
	// TurnInput begins a model turn on the workspace. Known is the hash
	// of the tool list the workflow has: an unchanged list is not sent
	// again.
	TurnInput struct {
		ActiveGroups []string `json:"active_groups,omitempty"`
		Known        string   `json:"known,omitempty"`
	}
	TurnOutput struct {
		Hash string `json:"hash"`
		// Schemas and Tools are nil when the list is the Known one.
		Schemas     []tool.Schema `json:"schemas,omitempty"`
		Tools       []ToolFlags   `json:"tools,omitempty"`
		SkillPrompt string        `json:"skill_prompt,omitempty"`
	}
	// ToolFlags are what the workflow needs to know of a tool to schedule
	// its calls.
	ToolFlags struct {
		Name            string `json:"name"`
		ReadOnly        bool   `json:"read_only,omitempty"`
		ConcurrencySafe bool   `json:"concurrency_safe,omitempty"`
	}
	CallInput struct {
		Call     agent.ToolCall `json:"call"`
		Approved bool           `json:"approved,omitempty"`
		State    *tool.State    `json:"state"`
		// FirstRunID names, with the workflow id, the run whose
		// background shells a shell tool's call reaches (the first run
		// of those a run continues).
		FirstRunID string `json:"first_run_id,omitempty"`
	}
	CallOutput struct {
		Result *tool.Result `json:"result"`
		State  *tool.State  `json:"state"`
		// Shell is the background shell the call started, and the queue
		// of the worker that holds it.
		Shell *ShellRoute `json:"shell,omitempty"`
		// ShellEnded says the shell a BashOutput or KillShell call named
		// no longer runs (it ended, was killed, or its worker dropped it).
		ShellEnded bool `json:"shell_ended,omitempty"`
	}
	// EndShellsInput names the run whose shells a worker kills.
	EndShellsInput struct {
		WorkflowID string `json:"workflow_id"`
		FirstRunID string `json:"first_run_id,omitempty"`
	}
	EndShellsOutput struct {
		// Ended says the run had shells (running or not) on the worker.
		Ended bool `json:"ended,omitempty"`
	}
	ModelInput struct {
		Model   string        `json:"model,omitempty"`
		Request agent.Request `json:"request"`
	}
	ModelOutput struct {
		Message agent.Message `json:"message"`
	}
)

// ShellRoute is a background shell of a run: its id, and the task queue
// of the worker that holds it (see [RunInput.Shells]).
type ShellRoute struct {
	ID    string `json:"id"`
	Queue string `json:"queue"`
	// Ended: the run knows the shell no longer runs (read as ended,
	// killed, or gone with its worker). Gone: its worker did not take a
	// call for it in time, and is taken for lost.
	Ended bool `json:"ended,omitempty"`
	Gone  bool `json:"gone,omitempty"`
}

// lostText is what the model reads for a call whose worker was lost.
const lostText = "<system-reminder>The tool call was interrupted: the worker running it stopped answering (killed, or its machine lost), so it may or may not have taken effect. It was not run again; check its effect before you run it again.</system-reminder>"

// wfRun is one run of the workflow.
type wfRun struct {
	in      RunInput
	r       *agent.Run
	answers []Answer // received, not yet acted on
	pause   int      // counts the pauses
	turns   int      // model turns of this run (not of those it continues)
	sizes   []int    // the JSON size of each message measured so far (compact)
	total   int      // their sum
	hash    string
	schemas []tool.Schema
	tools   map[string]ToolFlags
	answer  string // the final answer
	shells  []ShellRoute
	child   string // the run of the sub-agent the run waits on, if any

	ctx  workflow.Context // the workflow's
	mctx workflow.Context // with the model turns' activity options
}

// Agent is the agent loop as a workflow (registered as [WorkflowName]).
// A run that ends (not one that continues as a new one) kills its
// background shells on the workers that hold them.
func Agent(ctx workflow.Context, in RunInput) (*RunOutput, error) {
	w := &wfRun{in: in, tools: map[string]ToolFlags{}, pause: in.PausesBefore, shells: slices.Clone(in.Shells)}
	out, err := w.run(ctx)
	if !workflow.IsContinueAsNewError(err) {
		w.endShells(ctx)
	}
	return out, err
}

func (w *wfRun) run(ctx workflow.Context) (*RunOutput, error) {
	in := w.in
	if in.Run != nil {
		w.r = in.Run
		if w.r.State == nil {
			w.r.State = tool.NewState(nil)
		}
	} else {
		w.r = agent.NewRun(nil)
	}
	if err := w.handlers(ctx); err != nil {
		return nil, err
	}
	if in.Run == nil {
		var out PrepareOutput
		if err := w.quick(ctx, PrepareActivity, PrepareInput{Permissions: in.Permissions, KeepMode: in.KeepMode}, &out); err != nil {
			return nil, fmt.Errorf("preparing the run on the workspace: %w", err)
		}
		w.r.State.SetPermissions(out.Permissions)
		w.in.Hooks = out.Hooks
		if out.Root != "" {
			// Where the run's files are: the console shows them from there.
			if w.r.Meta == nil {
				w.r.Meta = map[string]string{}
			}
			w.r.Meta["cwd"] = out.Root
		}
	}
	if in.Prompt != "" {
		if len(w.r.Waiting) > 0 {
			return nil, temporal.NewNonRetryableApplicationError("the run waits for approvals; answer them before a new prompt", "toolscope.Waiting", nil)
		}
		prompt := in.Prompt
		if w.in.Hooks != nil && w.in.Hooks.Prompt {
			var out PromptOutput
			if err := w.quick(ctx, PromptActivity, PromptInput{Prompt: prompt}, &out); err != nil {
				return nil, err
			}
			prompt = out.Prompt
		}
		w.r.Messages = append(w.r.Messages, agent.Message{Role: agent.User, Text: prompt})
		w.r.Iters = 0
	}
	return w.loop(ctx)
}

func (w *wfRun) handlers(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, PendingQuery, func() ([]agent.Waiting, error) {
		return w.r.Waiting, nil
	}); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, RunQuery, func() (*agent.Run, error) {
		return w.r, nil
	}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, AnswerUpdate,
		func(ctx workflow.Context, a Answer) (int, error) {
			w.answers = append(w.answers, a)
			return w.pause, nil
		},
		workflow.UpdateHandlerOptions{Validator: w.validate})
}

// validate refuses an answer that answers nothing: it is never recorded.
func (w *wfRun) validate(a Answer) error {
	i := slices.IndexFunc(w.r.Waiting, func(x agent.Waiting) bool { return x.Call.ID == a.CallID })
	if i < 0 {
		var ids []string
		for _, x := range w.r.Waiting {
			if x.Status != tool.StatusPending {
				ids = append(ids, x.Call.ID)
			}
		}
		if w.child != "" {
			return fmt.Errorf("no call %q waits in this run: it waits for its sub-agent, whose run %s has the calls to answer (toolscope runs lists it)", a.CallID, w.child)
		}
		if len(ids) == 0 {
			return fmt.Errorf("no call %q waits in this run: it waits on nothing now", a.CallID)
		}
		return fmt.Errorf("no call %q waits in this run; the waiting calls are %v", a.CallID, ids)
	}
	if slices.ContainsFunc(w.answers, func(x Answer) bool { return x.CallID == a.CallID }) {
		return fmt.Errorf("call %q is answered already", a.CallID)
	}
	x := w.r.Waiting[i]
	switch {
	case x.Status == tool.StatusPending:
		return fmt.Errorf("call %q is held back behind another call and needs no answer: it runs when that one is answered", a.CallID)
	case x.Status == tool.StatusSubmitted && a.Result == nil:
		return fmt.Errorf("call %q is an external tool's: answer it with its result", a.CallID)
	case x.Status == tool.StatusAsking && a.Result != nil:
		return fmt.Errorf("call %q needs an approval, not a result", a.CallID)
	}
	if len(a.Input) > 0 {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(a.Input, &obj); err != nil || obj == nil {
			return fmt.Errorf("the edited input of call %q is not a JSON object", a.CallID)
		}
	}
	return nil
}

// quick runs one of the workspace's short, read-only activities (Prepare,
// Turn): as a local activity when the workspace is the workflow's own
// queue (its worker has the toolkit: no round trip through the server),
// else on the workspace's queue.
func (w *wfRun) quick(ctx workflow.Context, name string, in, out any) error {
	retry := &temporal.RetryPolicy{MaximumAttempts: 5}
	if w.in.ToolQueue == "" || w.in.ToolQueue == workflow.GetInfo(ctx).TaskQueueName {
		ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			ScheduleToCloseTimeout: 5 * time.Minute, StartToCloseTimeout: time.Minute, RetryPolicy: retry})
		return workflow.ExecuteLocalActivity(ctx, name, in).Get(ctx, out)
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue: w.in.ToolQueue, StartToCloseTimeout: time.Minute, RetryPolicy: retry})
	return workflow.ExecuteActivity(ctx, name, in).Get(ctx, out)
}

// loop runs the agent loop (agent.Loop, the same code as a run in one
// process) with the workflow as its driver.
func (w *wfRun) loop(ctx workflow.Context) (*RunOutput, error) {
	w.ctx = ctx
	modelQueue := w.in.ModelQueue
	if modelQueue == "" {
		modelQueue = DefaultModelQueue
	}
	w.mctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           modelQueue,
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    2 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
	})
	if err := agent.Loop(w, w.r, nil, &agent.LoopOptions{System: w.in.System, MaxIters: w.in.MaxIters}); err != nil {
		return nil, err
	}
	return &RunOutput{Answer: w.answer, Run: w.r}, nil
}

// Interrupted implements agent.Driver: a cancelled run ends by its
// activities' and timers' cancellation errors.
func (w *wfRun) Interrupted() bool { return false }

// Tools implements agent.Driver: the workspace's tools for the step (the
// Turn activity), after the run goes on as a new one if its history grew
// large, and its transcript is compacted.
func (w *wfRun) Tools(r *agent.Run, _ bool) ([]tool.Schema, string, error) {
	ctx := w.ctx
	if w.turns > 0 && (w.in.ContinueAfter > 0 && w.turns >= w.in.ContinueAfter || workflow.GetInfo(ctx).GetContinueAsNewSuggested()) {
		// Nothing waits and no answer is pending (answers are refused
		// when nothing waits): the run goes on as a new one, which takes
		// this step again.
		r.Iters--
		next := w.in
		next.Prompt, next.Run, next.PausesBefore, next.Shells = "", r, w.pause, w.shells
		return nil, "", workflow.NewContinueAsNewError(ctx, WorkflowName, next)
	}
	w.turns++
	if err := w.compact(); err != nil {
		return nil, "", err
	}
	var turn TurnOutput
	if err := w.quick(ctx, TurnActivity, TurnInput{ActiveGroups: r.State.ActiveGroups(), Known: w.hash}, &turn); err != nil {
		return nil, "", fmt.Errorf("listing the workspace's tools: %w", err)
	}
	if turn.Hash != w.hash {
		w.hash, w.schemas = turn.Hash, turn.Schemas
		w.tools = map[string]ToolFlags{}
		for _, f := range turn.Tools {
			w.tools[f.Name] = f
		}
	}
	return w.offered(w.schemas), turn.SkillPrompt, nil
}

// Model implements agent.Driver: a model turn on the model workers.
func (w *wfRun) Model(req *agent.Request, _ bool) (agent.Message, error) {
	var out ModelOutput
	if err := workflow.ExecuteActivity(w.mctx, ModelActivity, ModelInput{Model: w.in.Model, Request: *req}).Get(w.ctx, &out); err != nil {
		return agent.Message{}, fmt.Errorf("agent: the model failed: %w", err)
	}
	return out.Message, nil
}

// Calls implements agent.Driver: the calls in order, consecutive
// concurrency-safe calls in parallel (each an activity on the workspace's
// queue, from the same state; their states are merged). A call that
// waits (approval, external result) holds back the calls after it, as
// Toolkit.CallBatch does.
func (w *wfRun) Calls(r *agent.Run, steps []agent.Step) ([]*tool.Result, error) {
	ctx := w.ctx
	results := make([]*tool.Result, len(steps))
	held := false
	for i := 0; i < len(steps); {
		st := steps[i]
		if held {
			results[i] = &tool.Result{ID: st.Call.ID, Name: st.Call.Name, Input: st.Call.Input, Status: tool.StatusPending}
			i++
			continue
		}
		if w.in.OnlyTools != nil && !slices.Contains(w.in.OnlyTools, st.Call.Name) {
			results[i] = agent.NotOffered(st.Call, w.in.OnlyTools)
			i++
			continue
		}
		if st.Call.Name == subagent.Name && w.tools[st.Call.Name].Name != "" {
			res, err := w.subagent(ctx, r, st)
			if err != nil {
				return nil, err
			}
			res.ID = st.Call.ID
			results[i] = res
			held = res.Status == tool.StatusAsking || res.Status == tool.StatusSubmitted
			i++
			continue
		}
		if n := len(st.Call.Input); n > maxCallInput {
			results[i] = &tool.Result{ID: st.Call.ID, Name: st.Call.Name, Status: tool.StatusError, Content: []tool.Block{tool.TextBlock(fmt.Sprintf(
				"Error: the input of this call is %d bytes; a durable run passes at most %d bytes to one call. Do the work in smaller calls (write a large file in parts).", n, maxCallInput))}}
			i++
			continue
		}
		j := i + 1
		if w.parallel(st) {
			for j < len(steps) && w.parallel(steps[j]) && len(steps[j].Call.Input) <= maxCallInput {
				j++
			}
		}
		group := steps[i:j]
		futures := make([]workflow.Future, len(group))
		for k, g := range group {
			if res := w.shellRefusal(g.Call); res != nil {
				results[i+k] = res
				continue
			}
			in := CallInput{Call: g.Call, Approved: g.Approved, State: r.State}
			if w.shellCall(g.Call) {
				in.FirstRunID = workflow.GetInfo(ctx).FirstRunID
			}
			futures[k] = workflow.ExecuteActivity(w.callOptions(ctx, g), CallActivity, in)
		}
		var states []*tool.State
		for k, f := range futures {
			if f == nil {
				continue
			}
			var out CallOutput
			err := f.Get(ctx, &out)
			c := group[k].Call
			route := w.routeOf(c)
			var te *temporal.TimeoutError
			switch {
			case err != nil && (temporal.IsCanceledError(err) || ctx.Err() != nil):
				return nil, err
			case err != nil && route != nil && errors.As(err, &te):
				w.shellEnded(route.ID, true)
				results[i+k] = w.goneResult(c, route.ID)
			case err != nil:
				results[i+k] = failed(c, err)
			case out.Result == nil:
				results[i+k] = failed(c, errors.New("the worker returned no result"))
			default:
				results[i+k] = out.Result
				if out.State != nil {
					states = append(states, out.State)
				}
				if out.Shell != nil {
					w.addShell(*out.Shell)
				}
				if route != nil && out.ShellEnded {
					w.shellEnded(route.ID, false)
				}
			}
		}
		st2, err := mergeStates(r.State, states)
		if err != nil {
			return nil, err
		}
		r.State = st2
		for k := range group {
			res := results[i+k]
			res.ID = group[k].Call.ID
			if res.Status == tool.StatusAsking || res.Status == tool.StatusSubmitted {
				held = true
			}
		}
		i = j
	}
	return results, nil
}

// Covered implements agent.Driver: the workspace's tool judges whether
// one of rules would allow the call (a Covered activity). Runs recorded
// before the hold-back came to Temporal do without it.
func (w *wfRun) Covered(r *agent.Run, c agent.ToolCall, rules []permission.Rule) (bool, error) {
	if workflow.GetVersion(w.ctx, "toolscope.hold-back", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return false, nil
	}
	var out CoveredOutput
	if err := w.quick(w.ctx, CoveredActivity, CoveredInput{Call: c, Rules: rules, State: r.State}, &out); err != nil {
		return false, fmt.Errorf("asking the workspace whether a rule covers call %s: %w", c.ID, err)
	}
	return out.Covered, nil
}

// Stop implements agent.Driver: the workspace's Stop hooks, when it has
// any (a Stop activity).
func (w *wfRun) Stop(r *agent.Run, answer string) (string, error) {
	if w.in.Hooks == nil || !w.in.Hooks.Stop {
		return "", nil
	}
	var out StopOutput
	if err := w.quick(w.ctx, StopActivity, StopInput{Run: r, Answer: answer}, &out); err != nil {
		return "", fmt.Errorf("running the workspace's Stop hooks: %w", err)
	}
	return out.Reason, nil
}

// Emit implements agent.Driver: the conversation is the run's; the final
// answer is the workflow's result.
func (w *wfRun) Emit(ev agent.Event) bool {
	if ev.Kind == agent.EventReplyEnd {
		w.answer = ev.Text
	}
	return true
}

// Wait implements agent.Driver: it publishes the waiting calls, waits for
// answers (or the approval timeout) and returns them. Answers that came
// while calls ran are taken at once, without a pause: a client waiting
// for the pause after the one it answered never sees a call it answered
// as waiting.
func (w *wfRun) Wait(r *agent.Run) (map[string]agent.Answer, bool, error) {
	ctx := w.ctx
	if len(w.answers) == 0 {
		w.pause++
		if err := w.publish(ctx); err != nil {
			return nil, false, err
		}
		cond := func() bool { return len(w.answers) > 0 }
		if t := w.in.ApprovalTimeout; t > 0 {
			ok, err := workflow.AwaitWithTimeout(ctx, t, cond)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				w.expire(t)
			}
		} else if err := workflow.Await(ctx, cond); err != nil {
			return nil, false, err
		}
		if err := workflow.UpsertMemo(ctx, map[string]any{memoWaiting: []WaitingCall{}}); err != nil {
			return nil, false, err
		}
	}
	answers := w.answers
	w.answers = nil
	// As agent.Agent.Resume takes them (agent.Plan); Always adds the
	// rules the call's decision suggested, unless it was bypass-immune.
	byID := map[string]agent.Answer{}
	for _, a := range answers {
		ans := agent.Answer{CallID: a.CallID, Approve: a.Approve, Input: a.Input, Result: a.Result, Rules: a.Rules, Message: a.Message}
		if i := slices.IndexFunc(r.Waiting, func(x agent.Waiting) bool { return x.Call.ID == a.CallID }); a.Always && i >= 0 {
			if d := r.Waiting[i].Decision; d != nil && !d.BypassImmune {
				ans.Rules = append(slices.Clone(d.Suggestions), a.Rules...)
			}
		}
		byID[a.CallID] = ans
	}
	return byID, true, nil
}

func (w *wfRun) parallel(st agent.Step) bool {
	// A sub-agent is a child workflow, not an activity of a group.
	return !st.Approved && w.tools[st.Call.Name].ConcurrencySafe && st.Call.Name != subagent.Name
}

// callOptions: a read-only tool's call is retried; any other runs at most
// once.
func (w *wfRun) callOptions(ctx workflow.Context, it agent.Step) workflow.Context {
	hb := w.in.HeartbeatTimeout
	if hb <= 0 {
		hb = 10 * time.Second
	}
	timeout := w.in.ToolTimeout
	if timeout <= 0 {
		timeout = 2 * time.Hour
	}
	retry := &temporal.RetryPolicy{MaximumAttempts: 1}
	if w.tools[it.Call.Name].ReadOnly {
		retry = &temporal.RetryPolicy{MaximumAttempts: 3}
	}
	if route := w.routeOf(it.Call); route != nil {
		// On the worker that holds the shell, or nowhere: never
		// retried, and given up when that worker does not take it soon.
		return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			TaskQueue:              route.Queue,
			ScheduleToStartTimeout: w.shellTimeout(),
			StartToCloseTimeout:    timeout,
			HeartbeatTimeout:       hb,
			RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1},
			WaitForCancellation:    true,
		})
	}
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           w.in.ToolQueue,
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    hb,
		RetryPolicy:         retry,
		// Cancelling the run waits for the call to end (its processes
		// killed) before the workflow closes.
		WaitForCancellation: true,
	})
}

// failed is the result of a call whose activity failed.
func failed(c agent.ToolCall, err error) *tool.Result {
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		return &tool.Result{ID: c.ID, Name: c.Name, Input: c.Input, Status: tool.StatusInterrupted,
			Content: []tool.Block{tool.TextBlock(lostText)}}
	}
	return &tool.Result{ID: c.ID, Name: c.Name, Input: c.Input, Status: tool.StatusError,
		Content: []tool.Block{tool.TextBlock(fmt.Sprintf("Error: toolscope could not run the call: %v", err))}}
}

// expire answers the waiting calls no one answered within t: an approval
// is refused, an external call gets an error.
func (w *wfRun) expire(t time.Duration) {
	for _, x := range w.r.Waiting {
		switch x.Status {
		case tool.StatusAsking:
			w.answers = append(w.answers, Answer{CallID: x.Call.ID, Approve: false})
		case tool.StatusSubmitted:
			w.answers = append(w.answers, Answer{CallID: x.Call.ID, Result: &tool.Result{Status: tool.StatusError,
				Content: []tool.Block{tool.TextBlock(fmt.Sprintf("Error: no result came for this call within %s", t))}}})
		}
	}
}

// Limits that keep the workflow's payloads under Temporal's (2 MiB each).
const (
	maxMemoInput     = 4 << 10
	maxMemoText      = 1 << 10
	maxCallInput     = 1 << 20
	defaultBudget    = 1 << 20
	elideAbove       = 512 // a result or input smaller than this is kept
	elidedResultText = "[output elided: %d bytes of an earlier call's output were dropped to keep this durable run within Temporal's payload limit; run the call again if you need it]"
)

// clip bounds a text of the memo.
func clip(s string) string {
	if len(s) <= maxMemoText {
		return s
	}
	return s[:maxMemoText] + "…"
}

// publish puts the waiting calls in the memo, for clients that list runs.
func (w *wfRun) publish(ctx workflow.Context) error {
	list := []WaitingCall{}
	for _, x := range w.r.Waiting {
		if x.Status == tool.StatusPending {
			continue
		}
		wc := WaitingCall{ID: x.Call.ID, Name: x.Call.Name, Input: x.Call.Input, Status: x.Status}
		if len(wc.Input) > maxMemoInput {
			wc.Input, wc.InputSize = nil, len(x.Call.Input)
		}
		if d := x.Decision; d != nil {
			wc.Message, wc.Reason, wc.BypassImmune = clip(d.Message), clip(d.Reason), d.BypassImmune
			for _, s := range d.Suggestions {
				wc.Suggestions = append(wc.Suggestions, clip(s.String()))
			}
		}
		list = append(list, wc)
	}
	return workflow.UpsertMemo(ctx, map[string]any{memoWaiting: list, memoPause: w.pause})
}

// mergeStates returns base with the changes each of states made to it,
// applied in order: the states of calls that ran side by side, each from
// base, merged by the rules of [tool.MergeStateJSON] (the same rules as
// the toolscope command's shared state file: files read by path, tasks by
// id and field by field, slots one by one).
func mergeStates(base *tool.State, states []*tool.State) (*tool.State, error) {
	switch len(states) {
	case 0:
		return base, nil
	case 1:
		return states[0], nil
	}
	acc := base
	for _, s := range states {
		m, err := tool.MergeStates(base, s, acc)
		if err != nil {
			return nil, err
		}
		acc = m
	}
	return acc, nil
}

// compact keeps the conversation within RunInput.TranscriptBudget: past
// it, the outputs and large inputs of the oldest calls (never those of the
// last model turn) are replaced by a note, oldest first, until the
// conversation takes three quarters of the budget.
func (w *wfRun) compact() error {
	budget := w.in.TranscriptBudget
	if budget <= 0 {
		budget = defaultBudget
	}
	// The messages before len(w.sizes) were measured at an earlier turn
	// (the conversation only grows, and compact updates what it changes).
	for _, m := range w.r.Messages[len(w.sizes):] {
		b, _ := json.Marshal(m)
		w.sizes = append(w.sizes, len(b))
		w.total += len(b)
	}
	sizes, total := w.sizes, w.total
	if total <= budget {
		return nil
	}
	if w.in.Hooks != nil && w.in.Hooks.PreCompact {
		// The workspace's PreCompact hooks are told first (they cannot
		// stop it). Runs recorded before them had no such flag.
		if err := w.quick(w.ctx, PreCompactActivity, PreCompactInput{Trigger: "auto"}, &PreCompactOutput{}); err != nil {
			return fmt.Errorf("running the workspace's PreCompact hooks: %w", err)
		}
	}
	last := len(w.r.Messages)
	for last > 0 && w.r.Messages[last-1].Role != agent.Assistant {
		last--
	}
	last-- // the last model turn and what follows it stay
	for i := 0; i < last && total > budget*3/4; i++ {
		m := &w.r.Messages[i]
		switch {
		case m.Role == agent.ToolRole && m.Result != nil && sizes[i] > elideAbove:
			r := *m.Result
			r.Content = []tool.Block{tool.TextBlock(fmt.Sprintf(elidedResultText, sizes[i]))}
			r.StructuredContent, r.Metadata, r.Input = nil, nil, nil
			m.Result = &r
		case m.Role == agent.Assistant && sizes[i] > elideAbove:
			calls := slices.Clone(m.ToolCalls)
			for k := range calls {
				if n := len(calls[k].Input); n > elideAbove {
					note, _ := json.Marshal(fmt.Sprintf("%d bytes of input elided to keep the durable run within Temporal's payload limit", n))
					calls[k].Input = json.RawMessage(`{"elided":` + string(note) + `}`)
				}
			}
			m.ToolCalls = calls
		default:
			continue
		}
		b, _ := json.Marshal(*m)
		total += len(b) - sizes[i]
		sizes[i] = len(b)
	}
	w.total = total
	return nil
}
