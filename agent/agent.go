// Package agent runs the ReAct loop: it asks a model what to do, runs the
// tool calls of its answer through a tool.Toolkit, gives the results back,
// and repeats until the model answers without calling a tool.
//
// Calls that need a human (an approval, or an External tool's result)
// pause the run: [Agent.Run] ends with an [EventPaused] whose [Run] holds
// the conversation, the waiting calls and the agent's tool State, and
// marshals to JSON. [Agent.Resume] continues it with the answers, in this
// process or another one, hours later.
//
//	a := &agent.Agent{Model: m, Toolkit: tk, SystemPrompt: "You are a careful engineer."}
//	run := agent.NewRun(tool.NewState(nil))
//	for ev, err := range a.Run(ctx, run, "Fix the failing test.") {
//		...
//	}
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// Role is who wrote a message.
type Role string

// The roles.
const (
	User      Role = "user"
	Assistant Role = "assistant"
	ToolRole  Role = "tool"
)

// Message is one message of the conversation.
type Message struct {
	Role Role `json:"role"`
	// Text is a user's or the model's text.
	Text string `json:"text,omitempty"`
	// ToolCalls are the calls the model asked for (Assistant).
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Result is one call's result (ToolRole).
	Result *tool.Result `json:"result,omitempty"`
	// Hook names the hook that wrote a user message ("Stop": a Stop hook
	// kept the reply going); "" for the user's own.
	Hook string `json:"hook,omitempty"`
}

// StopHookActive reports whether the reply of r goes on because a Stop
// hook kept it going (Claude Code's stop_hook_active): its last user
// message is the hook's.
func StopHookActive(r *Run) bool {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if m := r.Messages[i]; m.Role == User {
			return m.Hook == "Stop"
		}
	}
	return false
}

// ToolCall is a call the model asked for.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// Request is what the agent sends the model at each step.
type Request struct {
	System   string
	Messages []Message
	Tools    []tool.Schema
}

// ModelEvent is a piece of the model's streamed answer: a text delta, or a
// complete tool call.
type ModelEvent struct {
	Text     string
	ToolCall *ToolCall
}

// Model is a language model. Stream answers one request, streaming text
// deltas and tool calls; an error ends the answer.
type Model interface {
	Stream(ctx context.Context, req *Request) iter.Seq2[ModelEvent, error]
}

// EventKind says what an [Event] reports.
type EventKind string

// The kinds of events of a run.
const (
	EventText         EventKind = "text"          // Text: a delta of the model's answer
	EventToolCall     EventKind = "tool_call"     // Call: the model asked for a call
	EventToolChunk    EventKind = "tool_chunk"    // Call and Chunk: a call's output as it streams
	EventToolResult   EventKind = "tool_result"   // Call and Result: a call ended
	EventNeedApproval EventKind = "need_approval" // Call and Decision: a call waits for the user
	EventNeedExternal EventKind = "need_external" // Call: an External tool's call waits for its result
	EventPaused       EventKind = "paused"        // Run: the run waits; resume it with Agent.Resume
	EventReplyEnd     EventKind = "reply_end"     // Text: the final answer; Run: the state
)

// Event is one step of a run, as it happens.
type Event struct {
	Kind     EventKind
	Text     string
	Call     *ToolCall
	Chunk    *tool.Chunk
	Result   *tool.Result
	Decision *permission.Decision
	Run      *Run
	// Interrupted marks the EventReplyEnd of a run whose context was
	// cancelled.
	Interrupted bool
}

// FinalReminder is the user message that asks the model for its answer
// when the reply's steps are used up.
const FinalReminder = "<system-reminder>You have used all your steps. Answer now with what you have, without calling tools.</system-reminder>"

// InterruptionMessage ends a reply whose context was cancelled.
const InterruptionMessage = "I notice the interruption. How can I help you?"

// Waiting is a call of a paused run.
type Waiting struct {
	Call ToolCall `json:"call"`
	// Status is tool.StatusAsking (needs approval), tool.StatusSubmitted
	// (an External tool: needs its result) or tool.StatusPending (held
	// back behind another; it runs once those are answered).
	Status   tool.Status          `json:"status"`
	Decision *permission.Decision `json:"decision,omitempty"`
	// Title and Annotations are those of the tool's schema the model was
	// offered ([tool.Schema]): a name for people, and hints about what
	// the tool does (for an MCP tool, what its server says of it, which
	// nothing checks). Empty when the tool has none, and in runs saved
	// before they were recorded.
	Title       string            `json:"title,omitempty"`
	Annotations *tool.Annotations `json:"annotations,omitempty"`
}

// Run is an agent's conversation and where it stands; it marshals to JSON.
type Run struct {
	Messages []Message   `json:"messages"`
	State    *tool.State `json:"state"`
	// Waiting are the calls a paused run waits on, in call order.
	Waiting []Waiting `json:"waiting,omitempty"`
	// Iters counts the model steps of the current reply.
	Iters int `json:"iters,omitempty"`
	// Meta is what the caller started the run with and needs again to
	// continue it (the toolscope command keeps its model and flags here,
	// so that a resumed run is the run that paused). The agent does not
	// read it.
	Meta map[string]string `json:"meta,omitempty"`
}

// NewRun starts a conversation with the agent state st (nil: a new one in
// Default mode).
func NewRun(st *tool.State) *Run {
	if st == nil {
		st = tool.NewState(nil)
	}
	return &Run{State: st}
}

// Agent is a ReAct agent.
type Agent struct {
	Model   Model
	Toolkit *tool.Toolkit
	// SystemPrompt starts every request; the skills' prompt fragment of
	// the active groups follows it.
	SystemPrompt string
	// MaxIters bounds the model steps of one reply; 0 means 50. When they
	// are used up the model is asked once more, without tools, for its
	// final answer.
	MaxIters int
	// PromptHook, when set, sees each user input before the model does
	// (Claude Code's UserPromptSubmit): it returns the input to send,
	// with any context it adds, or an error that refuses the input.
	PromptHook func(ctx context.Context, input string) (string, error)
	// StopHook, when set, is asked when the model answers without tools
	// (Claude Code's Stop): a non-empty reason keeps the reply going, the
	// reason given to the model as the next user message.
	StopHook func(ctx context.Context, r *Run, answer string) (reason string)
	// OnlyTools, when not nil, are the only tools of Toolkit this agent
	// may use: the model is offered no other, and a call to another is
	// refused with an error result (a sub-agent's subset of its parent's
	// tools; see package subagent).
	OnlyTools []string
}

// ErrPromptRefused wraps the error of a PromptHook that refused an input.
var ErrPromptRefused = errors.New("agent: the prompt was refused")

// ErrWaiting is returned by Run when the run waits on calls: answer them
// with Resume first.
var ErrWaiting = errors.New("agent: the run waits for approvals or external results; Resume it first")

// Run adds the user's input to r and runs the loop until the model answers
// without tools (EventReplyEnd) or a call needs a human (EventPaused).
func (a *Agent) Run(ctx context.Context, r *Run, input string) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		if len(r.Waiting) > 0 {
			yield(Event{}, ErrWaiting)
			return
		}
		if a.PromptHook != nil {
			in, err := a.PromptHook(ctx, input)
			if err != nil {
				yield(Event{}, fmt.Errorf("%w: %w", ErrPromptRefused, err))
				return
			}
			input = in
		}
		r.Messages = append(r.Messages, Message{Role: User, Text: input})
		r.Iters = 0
		a.drive(ctx, r, nil, yield)
	}
}

// drive runs the loop in this process, streaming its events to yield.
func (a *Agent) drive(ctx context.Context, r *Run, answers map[string]Answer, yield func(Event, error) bool) {
	d := &localDriver{a: a, ctx: ctx, turn: ctx, yield: yield}
	if err := Loop(d, r, answers, &LoopOptions{System: a.SystemPrompt, MaxIters: a.MaxIters}); err != nil && !errors.Is(err, ErrStopped) {
		yield(Event{}, err)
	}
}

// Answer is a human's answer to a waiting call.
type Answer struct {
	// CallID names the waiting call.
	CallID string
	// Approve runs a call that needs approval; false refuses it.
	Approve bool
	// Input, when set, replaces the call's input (the user edited it).
	Input json.RawMessage
	// Rules are added to the run's permission context, as for "always".
	Rules []permission.Rule
	// Result is an External tool's result.
	Result *tool.Result
	// Message, for a refused call, is the user's word to the model: it
	// follows the denied notice in the call's result.
	Message string
}

// DeniedText is what the model reads for a call the user refused: the
// reference's words.
func DeniedText(name string) string {
	return fmt.Sprintf("<system-reminder>The execution of tool \"%s\" is denied by user!</system-reminder>", name)
}

// Resume continues a paused run with answers to some or all of its waiting
// calls; the others keep waiting. An answer to a call that does not wait
// is an error, and nothing runs.
func (a *Agent) Resume(ctx context.Context, r *Run, answers ...Answer) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		if len(r.Waiting) == 0 {
			yield(Event{}, errors.New("agent: the run waits on nothing; start a new turn with Run"))
			return
		}
		byID := map[string]Answer{}
		for _, ans := range answers {
			i := slices.IndexFunc(r.Waiting, func(w Waiting) bool { return w.Call.ID == ans.CallID })
			switch {
			case i < 0:
				yield(Event{}, fmt.Errorf("agent: no waiting call has the id %q", ans.CallID))
				return
			case r.Waiting[i].Status == tool.StatusPending:
				yield(Event{}, fmt.Errorf("agent: call %q is held back behind another and needs no answer", ans.CallID))
				return
			case r.Waiting[i].Status == tool.StatusSubmitted && ans.Result == nil:
				yield(Event{}, fmt.Errorf("agent: call %q is an external tool's: answer it with its Result", ans.CallID))
				return
			}
			byID[ans.CallID] = ans
		}
		a.drive(ctx, r, byID, yield)
	}
}

// A Step is what an answer makes of a waiting call: a result to record
// (Result set: the call was refused, or is an External tool's), or a call
// to make (Approved when the user allowed it; Call.Input is the edited
// input, if any).
type Step struct {
	Call     ToolCall
	Approved bool
	Result   *tool.Result
}

// Plan works out, as Resume does, what answers (by call id) make of the
// waiting calls of r, in call order: an answered call becomes a Step (an
// approval's rules are added to r.State), a held-back call runs once no
// call before it still waits, and the calls still waiting are returned.
// The answers must answer waiting calls (Resume checks them first).
func Plan(r *Run, answers map[string]Answer) (steps []Step, still []Waiting) {
	blocked := false
	for _, w := range r.Waiting {
		ans, ok := answers[w.Call.ID]
		switch {
		case w.Status == tool.StatusPending && !blocked:
			steps = append(steps, Step{Call: w.Call})
		case !ok || blocked && w.Status == tool.StatusPending:
			still = append(still, w)
			blocked = true
		case w.Status == tool.StatusSubmitted:
			res := *ans.Result
			res.ID, res.Name = w.Call.ID, w.Call.Name
			steps = append(steps, Step{Call: w.Call, Result: &res})
		case !ans.Approve:
			text := DeniedText(w.Call.Name)
			if ans.Message != "" {
				text += "\nThe user says: " + ans.Message
			}
			steps = append(steps, Step{Call: w.Call, Result: &tool.Result{ID: w.Call.ID, Name: w.Call.Name, Input: w.Call.Input,
				Status: tool.StatusDenied, Content: []tool.Block{tool.TextBlock(text)}}})
		default:
			for _, rule := range ans.Rules {
				r.State.AddRule(rule)
			}
			c := w.Call
			if len(ans.Input) > 0 {
				c.Input = ans.Input
			}
			steps = append(steps, Step{Call: c, Approved: true})
		}
	}
	return steps, still
}

func (a *Agent) call(r *Run, c ToolCall, approved bool) *tool.Call {
	return &tool.Call{ID: c.ID, Name: c.Name, Input: c.Input, State: r.State, Approved: approved}
}

// localDriver drives the loop in this process: the model streams, the
// calls run through the Toolkit, and every event goes to the consumer; a
// run whose calls wait pauses (Resume continues it).
type localDriver struct {
	a     *Agent
	ctx   context.Context // the run's
	turn  context.Context // the current model step's (Toolkit.BeginTurn)
	yield func(Event, error) bool
}

func (d *localDriver) Interrupted() bool { return d.ctx.Err() != nil }

func (d *localDriver) Tools(r *Run, tools bool) ([]tool.Schema, string, error) {
	d.turn = d.a.Toolkit.BeginTurn(d.ctx)
	var schemas []tool.Schema
	if tools {
		schemas = d.a.Toolkit.Schemas(d.turn, r.State.ActiveGroups())
		if d.a.OnlyTools != nil {
			schemas = slices.DeleteFunc(schemas, func(s tool.Schema) bool { return !slices.Contains(d.a.OnlyTools, s.Name) })
		}
	}
	return schemas, d.a.Toolkit.SkillPrompt(d.turn, r.State.ActiveGroups()), nil
}

func (d *localDriver) Model(req *Request, final bool) (Message, error) {
	msg := Message{Role: Assistant}
	ids := map[string]bool{}
	for ev, err := range d.a.Model.Stream(d.ctx, req) {
		if err != nil {
			return msg, fmt.Errorf("agent: the model failed: %w", err)
		}
		if ev.Text != "" {
			msg.Text += ev.Text
			if !d.yield(Event{Kind: EventText, Text: ev.Text}, nil) {
				return msg, ErrStopped
			}
		}
		if ev.ToolCall != nil && !final {
			c := *ev.ToolCall
			c.ID = distinctID(ids, c.ID, len(msg.ToolCalls))
			if len(c.Input) == 0 {
				c.Input = json.RawMessage(`{}`)
			}
			msg.ToolCalls = append(msg.ToolCalls, c)
			if !d.yield(Event{Kind: EventToolCall, Call: &c}, nil) {
				return msg, ErrStopped
			}
		}
	}
	return msg, nil
}

// Calls runs the calls as one batch (concurrency-safe neighbours in
// parallel), streaming their chunks.
func (d *localDriver) Calls(r *Run, steps []Step) ([]*tool.Result, error) {
	results := make([]*tool.Result, len(steps))
	var (
		calls []*tool.Call
		index []int // calls[j] is steps[index[j]]
	)
	for i, st := range steps {
		if d.a.OnlyTools != nil && !slices.Contains(d.a.OnlyTools, st.Call.Name) {
			results[i] = NotOffered(st.Call, d.a.OnlyTools)
			continue
		}
		calls = append(calls, d.a.call(r, st.Call, st.Approved))
		index = append(index, i)
	}
	for ev := range d.a.Toolkit.StreamBatch(d.turn, calls) {
		i := index[ev.Index]
		if ev.Chunk != nil {
			c := steps[i].Call
			if !d.yield(Event{Kind: EventToolChunk, Call: &c, Chunk: ev.Chunk}, nil) {
				return nil, ErrStopped
			}
		}
		if ev.Result != nil {
			results[i] = ev.Result
		}
	}
	return results, nil
}

func (d *localDriver) Covered(r *Run, c ToolCall, rules []permission.Rule) (bool, error) {
	return Covered(d.turn, d.a.Toolkit, r.State, c, rules), nil
}

func (d *localDriver) Stop(r *Run, answer string) (string, error) {
	if d.a.StopHook == nil {
		return "", nil
	}
	return d.a.StopHook(d.ctx, r, answer), nil
}

func (d *localDriver) Emit(ev Event) bool { return d.yield(ev, nil) }

// Wait pauses: a run in this process is resumed with Resume.
func (d *localDriver) Wait(*Run) (map[string]Answer, bool, error) { return nil, false, nil }

// NotOffered is the result of a call to a tool outside an agent's
// [Agent.OnlyTools]: an error naming the tools it has.
func NotOffered(c ToolCall, only []string) *tool.Result {
	have := "none"
	if len(only) > 0 {
		have = strings.Join(only, ", ")
	}
	return &tool.Result{ID: c.ID, Name: c.Name, Input: c.Input, Status: tool.StatusError,
		Content: []tool.Block{tool.TextBlock(fmt.Sprintf("Tool '%s' is not available to this agent. Its tools are: %s.", c.Name, have))}}
}

// Covered reports whether one of rules would allow the call c with the
// state st, asking the tool's [tool.RuleMatcher] (found through wrappers)
// for a rule with content: the loop's hold-back (see [Driver.Covered]).
func Covered(ctx context.Context, tk *tool.Toolkit, st *tool.State, c ToolCall, rules []permission.Rule) bool {
	if len(rules) == 0 {
		return false
	}
	var t tool.Tool
	for _, x := range tk.Tools(ctx, st.ActiveGroups()) {
		if x.Info().Name == c.Name {
			t = x
			break
		}
	}
	if t == nil {
		return false
	}
	info := t.Info()
	sctx := tool.WithState(ctx, st)
	for _, rule := range rules {
		if rule.Tool != info.Name && !slices.Contains(info.RuleNames, rule.Tool) {
			continue
		}
		if rule.Content == "" {
			return true
		}
		var m tool.RuleMatcher
		for x := t; x != nil; {
			if rm, ok := x.(tool.RuleMatcher); ok {
				m = rm
				break
			}
			w, ok := x.(tool.Wrapper)
			if !ok {
				break
			}
			x = w.Unwrap()
		}
		if m != nil && m.MatchRule(sctx, rule, c.Input) {
			return true
		}
	}
	return false
}

// DistinctIDs gives each call of one answer an id of its own, in place: a
// missing id becomes "call_N" (N its place), a repeated one gets "~K"
// added. Answers name calls by id, so two calls must never share one: an
// approval of one would approve the other.
func DistinctIDs(calls []ToolCall) {
	seen := make(map[string]bool, len(calls))
	for i := range calls {
		calls[i].ID = distinctID(seen, calls[i].ID, i)
	}
}

// distinctID is id, or an id made from it (or from i, the call's place)
// that seen does not hold; it is added to seen.
func distinctID(seen map[string]bool, id string, i int) string {
	base := id
	if base == "" {
		base = fmt.Sprintf("call_%d", i+1)
	}
	id = base
	for k := 2; seen[id]; k++ {
		id = fmt.Sprintf("%s~%d", base, k)
	}
	seen[id] = true
	return id
}

// ResultText is a tool result as the text of a protocol whose tool results
// hold text only (Chat Completions' tool messages, Messages' tool_result
// blocks as the providers send them): its text, data blocks named, the
// structured content when there is no text, and the status when the call
// did not succeed and its text does not say so already (an error's
// "Error: ...", the reference's system reminders of a denied or an
// interrupted call, which reach the model word for word).
func ResultText(r *tool.Result) string {
	var b strings.Builder
	for _, bl := range r.Content {
		switch {
		case bl.Kind == tool.KindText:
			b.WriteString(bl.Text)
		case bl.URL != "":
			fmt.Fprintf(&b, "[%s at %s]", bl.MediaType, bl.URL)
		default:
			fmt.Fprintf(&b, "[%s, %d bytes, not shown]", bl.MediaType, len(bl.Data))
		}
	}
	if b.Len() == 0 && len(r.StructuredContent) > 0 {
		b.Write(r.StructuredContent)
	}
	if r.Status != tool.StatusSuccess && r.Status != "" && !strings.HasPrefix(b.String(), "Error") && !strings.HasPrefix(b.String(), "<system-reminder>") {
		return "[" + string(r.Status) + "] " + b.String()
	}
	return b.String()
}
