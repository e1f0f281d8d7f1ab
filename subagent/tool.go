package subagent

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/internal/inputview"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// Name is the sub-agent tool's name, Claude Code's since 2.1.63 (Task
// before: rules and hooks naming Task apply to it too).
const Name = "Agent"

// OldName is the tool's name before Claude Code 2.1.63; rules written
// for it (Task(Explore)) apply.
const OldName = "Task"

//go:embed agent.md
var description string

// Options configure the sub-agent tool.
type Options struct {
	// Definitions are the kinds of sub-agent the model may start, in
	// addition to the built-in [GeneralPurpose] and [Explore] (a
	// definition with one of their names replaces it).
	Definitions []Definition
	// Model is the parent's model: sub-agents use it unless their
	// definition names another. Required.
	Model agent.Model
	// Models, when set, returns the model a definition names ("inherit"
	// and "" never reach it). Nil, or an error, means the parent's model
	// (a Claude Code agent file naming "sonnet" still works with another
	// provider); the error is logged.
	Models func(name string) (agent.Model, error)
	// Toolkit runs the sub-agents' calls: the parent's, so that its
	// permission rules, hooks, sandbox and approval prompts apply to
	// them. Required.
	Toolkit *tool.Toolkit
	// MaxTurns bounds a sub-agent's model steps when its definition does
	// not; 0 means the agent's default.
	MaxTurns int
	// StopHook, when set, is asked when a sub-agent answers (Claude Code's
	// SubagentStop): a non-empty reason keeps it going, the reason given
	// to it as the next message.
	StopHook func(ctx context.Context, def Definition, r *agent.Run, answer string) (reason string)
	// Logger receives warnings (a model that could not be made); nil means
	// slog.Default().
	Logger *slog.Logger
}

// New returns the sub-agent tool: a call starts a sub-agent of the kind
// the model names, with the call's prompt, and its result is the
// sub-agent's final answer.
//
// A sub-agent uses a subset of its parent's tools (its definition's, never
// this tool: a sub-agent starts no sub-agent), in a permission mode no
// wider than its parent's ([NarrowMode]), with its parent's permission
// rules, on a state of its own (a fresh read cache: it reads before it
// edits, as its parent does). Its calls go through the parent's Toolkit,
// so they are judged, hooked, sandboxed and asked about exactly as the
// parent's are; the call streams each of them as progress.
//
// A sub-agent's call that needs approval where no one can be asked at
// once (a run that pauses) pauses the sub-agent: the sub-agent tool's own
// call comes back [tool.StatusAsking], its decision naming exactly the
// sub-agent's waiting calls. Approving it (the same call, the same
// input) resumes the sub-agent with those calls approved, and the
// approval's rules are the parent's from then on; refusing it refuses
// the sub-agent's work. The paused sub-agent is kept in the parent's
// state, so a paused run saved to a file resumes it.
func New(o *Options) (tool.Tool, error) {
	if o == nil || o.Model == nil || o.Toolkit == nil {
		return nil, errors.New("subagent: Options.Model and Options.Toolkit are required")
	}
	defs, err := Kinds(o.Definitions)
	if err != nil {
		return nil, err
	}
	t := &agentTool{o: *o, defs: defs}
	if t.o.Logger == nil {
		t.o.Logger = slog.Default()
	}
	var b strings.Builder
	b.WriteString(description)
	b.WriteString("\nThe kinds of sub-agent (subagent_type):\n")
	for _, d := range t.defs {
		fmt.Fprintf(&b, "- %s: %s", d.Name, d.Description)
		if d.Tools != nil {
			fmt.Fprintf(&b, " (tools: %s)", strings.Join(d.Tools, ", "))
		}
		b.WriteByte('\n')
	}
	t.desc = b.String()
	return t, nil
}

// Kinds returns the kinds of sub-agent a tool made with defs offers: the
// built-in [GeneralPurpose] and [Explore], then defs (one with a built-in's
// name replaces it). A definition with an invalid name is an error.
func Kinds(defs []Definition) ([]Definition, error) {
	out := []Definition{GeneralPurpose, Explore}
	for _, d := range defs {
		if !validName(d.Name) && d.Name != Explore.Name {
			return nil, fmt.Errorf("subagent: invalid name %q: use lower-case letters, digits and '-'", d.Name)
		}
		if i := slices.IndexFunc(out, func(x Definition) bool { return x.Name == d.Name }); i >= 0 {
			out[i] = d
		} else {
			out = append(out, d)
		}
	}
	return out, nil
}

// Task is what a call of the Agent tool asks for: its kind of sub-agent
// (Definition), the parent's description and the prompt.
type Task struct {
	Definition  Definition
	Description string
	Prompt      string
}

// Resolve reads a call's input against the kinds: the [Task], or an error
// the model can act on (an unknown kind, an empty prompt).
func Resolve(kinds []Definition, raw json.RawMessage) (Task, error) {
	in, err := decode(raw)
	if err != nil {
		return Task{}, err
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return Task{}, errors.New("The prompt is empty: give the sub-agent its whole task.")
	}
	i := slices.IndexFunc(kinds, func(d Definition) bool { return d.Name == in.SubagentType })
	if i < 0 {
		var names []string
		for _, d := range kinds {
			names = append(names, d.Name)
		}
		return Task{}, fmt.Errorf("There is no sub-agent of type %q. Use one of: %s.", in.SubagentType, strings.Join(names, ", "))
	}
	return Task{Definition: kinds[i], Description: in.Description, Prompt: in.Prompt}, nil
}

// Permissions returns the permission context of a sub-agent of kind def
// whose parent has pc: the parent's rules and directories, in the mode
// [NarrowMode] gives.
func Permissions(pc *permission.Context, def Definition) *permission.Context {
	out := pc.Clone()
	out.Mode = NarrowMode(out.Mode, def.Mode)
	return out
}

// ToolNames are the names of the tools of tk (with the active groups) a
// sub-agent of kind def may use: its definition's, never the sub-agent
// tool, never an External tool.
func ToolNames(ctx context.Context, tk *tool.Toolkit, activeGroups []string, def Definition) []string {
	out := []string{}
	for _, x := range tk.Tools(ctx, activeGroups) {
		info := x.Info()
		n := info.Name
		switch {
		case n == Name || info.External:
			// No sub-agent starts another; an External tool's call would
			// wait for a caller the sub-agent does not have.
		case def.Tools != nil && !slices.Contains(def.Tools, n):
		case slices.Contains(def.DisallowedTools, n):
		default:
			out = append(out, n)
		}
	}
	return out
}

type agentTool struct {
	o    Options
	defs []Definition
	desc string
}

var schema = json.RawMessage(`{"type":"object","properties":{` +
	`"description":{"type":"string","description":"A short (3-5 word) description of the task"},` +
	`"prompt":{"type":"string","description":"The task for the agent to perform"},` +
	`"subagent_type":{"type":"string","description":"The type of specialized agent to use for this task (default general-purpose)"}},` +
	`"required":["description","prompt"],"additionalProperties":false}`)

type input struct {
	Description  string `json:"description"`
	Prompt       string `json:"prompt"`
	SubagentType string `json:"subagent_type"`
}

func (t *agentTool) Info() tool.Info {
	return tool.Info{
		Name: Name, Title: "Start a sub-agent", Description: t.desc, InputSchema: schema,
		// Its own call changes nothing: every call the sub-agent makes is
		// judged on its own. Sub-agents work in parallel.
		ReadOnly: true, ConcurrencySafe: true, StateInjected: true,
		RuleNames: []string{OldName},
	}
}

// SchemaTested implements [tool.TestedSchema].
func (t *agentTool) SchemaTested() {}

func decode(raw json.RawMessage) (input, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, fmt.Errorf("the input is not valid: %v", err)
	}
	if in.SubagentType == "" {
		in.SubagentType = GeneralPurpose.Name
	}
	return in, nil
}

// CheckPermissions implements [tool.Tool]: starting a sub-agent is
// allowed (rules such as Agent(Explore) may deny or ask); its calls are
// judged one by one.
func (t *agentTool) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Passthrough}, nil
}

// MatchRule implements [tool.RuleMatcher]: Agent(NAME) and Task(NAME)
// name a kind of sub-agent, exactly.
func (t *agentTool) MatchRule(_ context.Context, rule permission.Rule, raw json.RawMessage) bool {
	in, err := decode(raw)
	if err != nil {
		return rule.Behavior != permission.Allow // fail closed
	}
	return rule.Content == in.SubagentType
}

// Suggestions implements [tool.Suggester]: allow this kind of sub-agent.
func (t *agentTool) Suggestions(_ context.Context, raw json.RawMessage) []permission.Rule {
	in, err := decode(raw)
	if err != nil {
		return nil
	}
	return []permission.Rule{{Tool: Name, Content: in.SubagentType, Behavior: permission.Allow, Source: "suggested"}}
}

// waitingSlot keeps, by call id, the sub-agents that wait for approvals.
var waitingSlot = tool.NewSlot[map[string]pausedRun]("toolscope/subagent.waiting")

// pausedRun is a sub-agent paused inside the call that started it: the
// call's input (an approval with another input starts afresh) and the
// sub-agent's run.
type pausedRun struct {
	Input json.RawMessage `json:"input"`
	Run   json.RawMessage `json:"run"`
}

// maxPaused bounds the paused sub-agents a state keeps: a refused call
// leaves its sub-agent behind, and the oldest go first.
const maxPaused = 16

type ctxKey struct{}

// Info is what [FromContext] tells of the sub-agent a call comes from.
type Info struct {
	Type        string // the kind of sub-agent
	Description string // the parent's description of its task
	CallID      string // the parent's call that started it
}

// FromContext reports the sub-agent whose tool call ctx belongs to, as a
// prompt asking the user about a call shows it.
func FromContext(ctx context.Context) (Info, bool) {
	in, ok := ctx.Value(ctxKey{}).(Info)
	return in, ok
}

func (t *agentTool) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		task, err := Resolve(t.defs, call.Input)
		if err != nil {
			yield(tool.Errorf("%v", err), nil)
			return
		}
		def, in := task.Definition, input{Description: task.Description, Prompt: task.Prompt, SubagentType: task.Definition.Name}
		parent := call.State
		if parent == nil {
			parent = tool.NewState(nil)
			defer parent.Close()
		}
		t.run(ctx, call, parent, def, in, yield)
	}
}

// run starts the sub-agent, or resumes the one this call paused.
func (t *agentTool) run(ctx context.Context, call *tool.Call, parent *tool.State, def Definition, in input, yield func(*tool.Chunk, error) bool) {
	pc := Permissions(parent.Permissions(), def)

	var (
		r       *agent.Run
		answers []agent.Answer
	)
	paused, err := t.takePaused(parent, call.ID)
	if err != nil {
		yield(tool.Errorf("The paused sub-agent of this call could not be read (%v); call the tool again to start afresh.", err), nil)
		return
	}
	if paused != nil && call.Approved && sameJSON(paused.Input, call.Input) {
		r = &agent.Run{}
		if err := json.Unmarshal(paused.Run, r); err != nil || r.State == nil {
			yield(tool.Errorf("The paused sub-agent of this call could not be read (%v); call the tool again to start afresh.", err), nil)
			return
		}
		// The approval's rules are the parent's now, and the mode is
		// judged again against the parent's.
		r.State.SetPermissions(pc)
		for _, w := range r.Waiting {
			if w.Status == tool.StatusAsking {
				answers = append(answers, agent.Answer{CallID: w.Call.ID, Approve: true})
			}
		}
	}
	if r == nil {
		st := tool.NewState(pc)
		st.SetActiveGroups(parent.ActiveGroups())
		r = agent.NewRun(st)
	}
	defer r.State.Close() // its background shells end with it

	model := t.o.Model
	if def.Model != "" && def.Model != "inherit" && t.o.Models != nil {
		if m, err := t.o.Models(def.Model); err != nil {
			t.o.Logger.Warn("subagent: the model of the definition cannot be used; the parent's is", "agent", def.Name, "model", def.Model, "error", err)
		} else {
			model = m
		}
	}
	maxTurns := def.MaxTurns
	if maxTurns == 0 {
		maxTurns = t.o.MaxTurns
	}
	a := &agent.Agent{Model: model, Toolkit: t.o.Toolkit, SystemPrompt: def.Prompt, MaxIters: maxTurns,
		OnlyTools: ToolNames(ctx, t.o.Toolkit, parent.ActiveGroups(), def)}
	if t.o.StopHook != nil {
		a.StopHook = func(ctx context.Context, r *agent.Run, answer string) string {
			return t.o.StopHook(ctx, def, r, answer)
		}
	}
	ctx = context.WithValue(ctx, ctxKey{}, Info{Type: def.Name, Description: in.Description, CallID: call.ID})

	var seq iter.Seq2[agent.Event, error]
	if answers != nil || len(r.Waiting) > 0 {
		seq = a.Resume(ctx, r, answers...)
	} else {
		seq = a.Run(ctx, r, in.Prompt)
	}
	calls := 0
	var waiting []agent.Event
	for ev, err := range seq {
		if err != nil {
			yield(tool.Errorf("The sub-agent %s failed: %v", def.Name, err), nil)
			return
		}
		switch ev.Kind {
		case agent.EventToolCall:
			calls++
			if !yield(progress(def, calls, fmt.Sprintf("%s %s", ev.Call.Name, inputview.Escape(string(ev.Call.Input)))), nil) {
				return
			}
		case agent.EventToolResult:
			if !yield(progress(def, calls, fmt.Sprintf("%s %s", ev.Call.Name, ev.Result.Status)), nil) {
				return
			}
		case agent.EventNeedApproval:
			waiting = append(waiting, ev)
		case agent.EventPaused:
			t.pause(ctx, yield, parent, call, def, in, r, waiting)
			return
		case agent.EventReplyEnd:
			if ev.Interrupted {
				yield(&tool.Chunk{Content: []tool.Block{tool.TextBlock(tool.InterruptedText)}, Status: tool.StatusInterrupted}, nil)
				return
			}
			text := strings.TrimSpace(ev.Text)
			if text == "" {
				text = "(The sub-agent ended without an answer.)"
			}
			yield(&tool.Chunk{Content: []tool.Block{tool.TextBlock(text)},
				Metadata: map[string]any{"subagent_type": def.Name, "tool_calls": calls}}, nil)
			return
		}
	}
}

// sameJSON reports whether a and b are the same JSON text but for the
// whitespace between tokens (a run file is saved indented).
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// progress is a progress chunk reporting a sub-agent's step.
func progress(def Definition, n int, what string) *tool.Chunk {
	return &tool.Chunk{Progress: &tool.Progress{Message: def.Name + ": " + what, Done: float64(n)}}
}

// takePaused removes and returns the sub-agent paused by call id, if any.
func (t *agentTool) takePaused(st *tool.State, id string) (*pausedRun, error) {
	var found *pausedRun
	err := waitingSlot.Update(st, func(m map[string]pausedRun) map[string]pausedRun {
		if p, ok := m[id]; ok {
			found = &p
			m = maps.Clone(m)
			delete(m, id)
		}
		return m
	})
	return found, err
}

// pause keeps the paused sub-agent in the parent's state and ends the
// call asking for approval of exactly its waiting calls.
func (t *agentTool) pause(ctx context.Context, yield func(*tool.Chunk, error) bool, parent *tool.State, call *tool.Call, def Definition, in input, r *agent.Run, waiting []agent.Event) {
	raw, err := json.Marshal(r)
	if err != nil {
		yield(tool.Errorf("The sub-agent %s waits for approval but could not be kept: %v", def.Name, err), nil)
		return
	}
	err = waitingSlot.Update(parent, func(m map[string]pausedRun) map[string]pausedRun {
		m = maps.Clone(m)
		if m == nil {
			m = map[string]pausedRun{}
		}
		for len(m) >= maxPaused {
			// Drop one (the map has no order; any will do: the
			// paused sub-agents past the bound are refused ones).
			for k := range m {
				delete(m, k)
				break
			}
		}
		m[call.ID] = pausedRun{Input: bytes.Clone(call.Input), Run: raw}
		return m
	})
	if err != nil {
		yield(tool.Errorf("The sub-agent %s waits for approval but could not be kept: %v", def.Name, err), nil)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Sub-agent %s (%s) asks to run:", def.Name, inputview.Escape(in.Description))
	d := permission.Decision{Behavior: permission.Ask}
	var reasons []string
	for _, ev := range waiting {
		fmt.Fprintf(&b, "\n- %s %s", inputview.Escape(ev.Call.Name), inputview.Escape(string(ev.Call.Input)))
		if sd := ev.Decision; sd != nil {
			if len(sd.UpdatedInput) > 0 && !sameJSON(sd.UpdatedInput, ev.Call.Input) {
				fmt.Fprintf(&b, "\n  (a hook rewrote it; what runs is %s)", inputview.Escape(string(sd.UpdatedInput)))
			}
			if sd.Message != "" {
				fmt.Fprintf(&b, "\n  %s", inputview.Escape(sd.Message))
			}
			if sd.Reason != "" && !slices.Contains(reasons, sd.Reason) {
				reasons = append(reasons, sd.Reason)
			}
			d.BypassImmune = d.BypassImmune || sd.BypassImmune
			for _, s := range sd.Suggestions {
				if !slices.Contains(d.Suggestions, s) {
					d.Suggestions = append(d.Suggestions, s)
				}
			}
		}
	}
	b.WriteString("\nApproving this call approves exactly these calls of the sub-agent; refusing it refuses the sub-agent's work.")
	d.Message = b.String()
	d.Reason = "Sub-agent " + def.Name + " waits for approval"
	if len(reasons) > 0 {
		d.Reason += ": " + strings.Join(reasons, "; ")
	}
	yield(&tool.Chunk{Status: tool.StatusAsking, Decision: &d}, nil)
}
