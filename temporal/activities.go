package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/subagent"
	"github.com/toolscope/toolscope/tool"
)

// Tools are the activities of one workspace: they run on the machine where
// its files are, on the workspace's task queue.
type Tools struct {
	// Toolkit runs the calls.
	Toolkit *tool.Toolkit
	// Permissions, when set, adds the workspace's settings (mode, rules,
	// directories) to a run's permission context when the run starts.
	Permissions func(base *permission.Context) (*permission.Context, error)
	// Mode, when set, is the mode of every run on this workspace, whatever
	// mode the run asked for: the workspace's owner decides.
	Mode permission.Mode
	// Root is the workspace's project root, recorded in the runs it
	// prepares (their Meta "cwd", as the toolscope command records its
	// runs'): where the console shows a waiting call's files from.
	Root string
	// PromptHook and StopHook, when set, are the workspace's hooks, as
	// agent.Agent's: a run's prompt goes through PromptHook before the
	// model sees it, and StopHook may keep a reply going.
	PromptHook func(ctx context.Context, input string) (string, error)
	StopHook   func(ctx context.Context, r *agent.Run, answer string) (reason string)
	// PreCompactHook, when set, is told before a run's transcript is
	// compacted (trigger "auto"; see RunInput.TranscriptBudget).
	PreCompactHook func(ctx context.Context, trigger string)

	// shells are the background shells of this worker's runs, when
	// Serve runs it (see shells.go); without them no background shell
	// starts.
	shells *shellHost
	kinds  []subagent.Definition // the sub-agents' kinds, once enabled
}

// Covered reports whether one of the rules would allow the call
// ([CoveredActivity]): the hold-back of the agent loop (agent.Covered).
func (t *Tools) Covered(ctx context.Context, in CoveredInput) (*CoveredOutput, error) {
	st := in.State
	if st == nil {
		st = tool.NewState(nil)
	}
	return &CoveredOutput{Covered: agent.Covered(ctx, t.Toolkit, st, in.Call, in.Rules)}, nil
}

// Prompt runs the workspace's prompt hook on a run's prompt
// ([PromptActivity]); a refusal fails the run.
func (t *Tools) Prompt(ctx context.Context, in PromptInput) (*PromptOutput, error) {
	if t.PromptHook == nil {
		return &PromptOutput{Prompt: in.Prompt}, nil
	}
	p, err := t.PromptHook(ctx, in.Prompt)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("%v: %v", agent.ErrPromptRefused, err), "toolscope.PromptRefused", err)
	}
	return &PromptOutput{Prompt: p}, nil
}

// PreCompact runs the workspace's PreCompact hooks before a run's
// transcript is compacted ([PreCompactActivity]).
func (t *Tools) PreCompact(ctx context.Context, in PreCompactInput) (*PreCompactOutput, error) {
	if t.PreCompactHook != nil {
		t.PreCompactHook(ctx, in.Trigger)
	}
	return &PreCompactOutput{}, nil
}

// Stop runs the workspace's Stop hook when the model would end its reply
// ([StopActivity]).
func (t *Tools) Stop(ctx context.Context, in StopInput) (*StopOutput, error) {
	if t.StopHook == nil {
		return &StopOutput{}, nil
	}
	return &StopOutput{Reason: t.StopHook(ctx, in.Run, in.Answer)}, nil
}

// Prepare adds the workspace's settings to a new run's permissions
// ([PrepareActivity]). The run's working directories are dropped: they
// name places on the machine that started it; the workspace's are its
// root and its settings' additionalDirectories.
func (t *Tools) Prepare(ctx context.Context, in PrepareInput) (*PrepareOutput, error) {
	pc := in.Permissions.Clone()
	// Directories name places on the machine that started the run: the
	// workspace's own are the ones that count here.
	pc.WorkingDirs = nil
	merged := pc
	if t.Permissions != nil {
		var err error
		if merged, err = t.Permissions(pc.Clone()); err != nil {
			return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("the workspace's settings: %v", err), "toolscope.Settings", err)
		}
		if in.KeepMode {
			merged.Mode = pc.Mode
		}
	}
	if t.Mode != "" {
		merged.Mode = t.Mode
	}
	return &PrepareOutput{Permissions: merged, Root: t.Root, Hooks: &HookFlags{Prompt: t.PromptHook != nil, Stop: t.StopHook != nil, PreCompact: t.PreCompactHook != nil}}, nil
}

// Turn begins a model turn ([TurnActivity]): the tools of the active
// groups, unless they are the ones the workflow knows, and the skills'
// prompt.
func (t *Tools) Turn(ctx context.Context, in TurnInput) (*TurnOutput, error) {
	ctx = t.Toolkit.BeginTurn(ctx)
	schemas := t.Toolkit.Schemas(ctx, in.ActiveGroups)
	var flags []ToolFlags
	for _, x := range t.Toolkit.Tools(ctx, in.ActiveGroups) {
		info := x.Info()
		flags = append(flags, ToolFlags{Name: info.Name, ReadOnly: info.ReadOnly, ConcurrencySafe: info.ConcurrencySafe})
	}
	b, err := json.Marshal(struct {
		S []tool.Schema
		F []ToolFlags
	}{schemas, flags})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	out := &TurnOutput{Hash: hex.EncodeToString(sum[:]), SkillPrompt: t.Toolkit.SkillPrompt(ctx, in.ActiveGroups)}
	if out.Hash != in.Known {
		out.Schemas, out.Tools = schemas, flags
	}
	return out, nil
}

// Call makes one tool call through the Toolkit, permission engine
// included ([CallActivity]). It heartbeats while the call runs, and ends
// the call (its processes killed) when the run is cancelled.
func (t *Tools) Call(ctx context.Context, in CallInput) (*CallOutput, error) {
	st := in.State
	if st == nil {
		st = tool.NewState(nil)
	}
	// The state was decoded for this call: a background shell started
	// with it would belong to nobody. A shell tool's call shares the
	// run's shells on this worker instead; any other call gets a closed
	// runtime (Bash then refuses run_in_background, saying why).
	shared := false
	if t.shells != nil && activity.IsActivity(ctx) &&
		(startsShell(in.Call.Name, in.Call.Input) || readsShell(in.Call.Name, in.Call.Input) != "") {
		shared = t.shells.share(st, shellRun{activity.GetInfo(ctx).WorkflowExecution.ID, in.FirstRunID})
	}
	if !shared {
		st.Close()
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	if activity.IsActivity(ctx) {
		if hb := activity.GetInfo(ctx).HeartbeatTimeout; hb > 0 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tick := time.NewTicker(hb / 3)
				defer tick.Stop()
				for {
					select {
					case <-done:
						return
					case <-tick.C:
						activity.RecordHeartbeat(ctx)
					}
				}
			}()
		}
	}
	res, err := t.Toolkit.Call(ctx, &tool.Call{ID: in.Call.ID, Name: in.Call.Name, Input: in.Call.Input, State: st, Approved: in.Approved})
	close(done)
	wg.Wait()
	if err != nil {
		// Broken infrastructure, not the tool's failure: not retried
		// here (the workflow's policy decides), and the model is told.
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), "toolscope.Call", err)
	}
	if b, err := json.Marshal(res); err == nil && len(b) > maxResult {
		// Temporal would refuse to record it (2 MiB a payload), and the
		// call would look lost: the model is told what to do instead.
		*res = tool.Result{ID: res.ID, Name: res.Name, Input: res.Input, Status: tool.StatusError, Decision: res.Decision,
			Content: []tool.Block{tool.TextBlock(fmt.Sprintf("Error: the call ran, but its output is %d bytes, more than a durable run carries (%d); ask for less (a range of lines, a narrower search, a smaller image).", len(b), maxResult))}}
	}
	out := &CallOutput{Result: res, State: st}
	if shared {
		if id, _ := res.Metadata["bash_id"].(string); id != "" && res.Name == bashTool && res.Metadata["background"] == true {
			out.Shell = &ShellRoute{ID: id, Queue: t.shells.queue}
		}
		out.ShellEnded = shellEnded(res)
	}
	return out, nil
}

// EndShells kills the background shells a run has on this worker
// ([EndShellsActivity]): the last step of a run that had any.
func (t *Tools) EndShells(ctx context.Context, in EndShellsInput) (*EndShellsOutput, error) {
	if t.shells == nil {
		return &EndShellsOutput{}, nil
	}
	id := in.WorkflowID
	if id == "" && activity.IsActivity(ctx) {
		id = activity.GetInfo(ctx).WorkflowExecution.ID
	}
	return &EndShellsOutput{Ended: t.shells.end(shellRun{id, in.FirstRunID})}, nil
}

// maxResult bounds a call's result in JSON.
const maxResult = 3 << 19 // 1.5 MiB

// Models is the model activity ([ModelActivity]): it runs on the model
// queue, on any machine with the model's credentials.
type Models struct {
	// New returns the model a spec names ("" means the worker's
	// default). Models are made once per spec.
	New func(spec string) (agent.Model, error)

	mu     sync.Mutex
	models map[string]agent.Model
}

// Model answers one model turn; it heartbeats as the answer streams.
func (m *Models) Model(ctx context.Context, in ModelInput) (*ModelOutput, error) {
	mdl, err := m.model(in.Model)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), "toolscope.Model", err)
	}
	msg := agent.Message{Role: agent.Assistant}
	isAct := activity.IsActivity(ctx)
	for ev, err := range mdl.Stream(ctx, &in.Request) {
		if err != nil {
			return nil, err
		}
		msg.Text += ev.Text
		if ev.ToolCall != nil {
			msg.ToolCalls = append(msg.ToolCalls, *ev.ToolCall)
		}
		if isAct {
			activity.RecordHeartbeat(ctx)
		}
	}
	return &ModelOutput{Message: msg}, nil
}

func (m *Models) model(spec string) (agent.Model, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if mdl, ok := m.models[spec]; ok {
		return mdl, nil
	}
	if m.New == nil {
		return nil, errors.New("this worker has no model")
	}
	mdl, err := m.New(spec)
	if err != nil {
		return nil, err
	}
	if m.models == nil {
		m.models = map[string]agent.Model{}
	}
	m.models[spec] = mdl
	return mdl, nil
}
