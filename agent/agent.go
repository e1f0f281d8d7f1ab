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
}

// Run is an agent's conversation and where it stands; it marshals to JSON.
type Run struct {
	Messages []Message   `json:"messages"`
	State    *tool.State `json:"state"`
	// Waiting are the calls a paused run waits on, in call order.
	Waiting []Waiting `json:"waiting,omitempty"`
	// Iters counts the model steps of the current reply.
	Iters int `json:"iters,omitempty"`
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
		a.loop(ctx, r, yield)
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
		steps, still := Plan(r, byID)
		var run []*tool.Call
		for _, st := range steps {
			if st.Result != nil {
				if !a.emitResult(r, st.Call, st.Result, yield) {
					return
				}
				continue
			}
			run = append(run, a.call(r, st.Call, st.Approved))
		}
		r.Waiting = still
		if len(run) > 0 && !a.runCalls(ctx, r, run, yield) {
			return
		}
		if len(r.Waiting) > 0 {
			a.pause(r, yield)
			return
		}
		a.loop(ctx, r, yield)
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
			steps = append(steps, Step{Call: w.Call, Result: &tool.Result{ID: w.Call.ID, Name: w.Call.Name, Input: w.Call.Input,
				Status: tool.StatusDenied, Content: []tool.Block{tool.TextBlock(DeniedText(w.Call.Name))}}})
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

func (a *Agent) maxIters() int {
	if a.MaxIters > 0 {
		return a.MaxIters
	}
	return 50
}

// loop asks the model and runs its calls until it answers without tools,
// a call waits, or the steps run out.
func (a *Agent) loop(ctx context.Context, r *Run, yield func(Event, error) bool) {
	for {
		if ctx.Err() != nil {
			// Interrupted: the calls that ran are closed (interrupted); the
			// reply ends with AgentScope's words.
			msg := Message{Role: Assistant, Text: InterruptionMessage}
			r.Messages = append(r.Messages, msg)
			yield(Event{Kind: EventReplyEnd, Text: msg.Text, Run: r, Interrupted: true}, nil)
			return
		}
		final := r.Iters >= a.maxIters()
		r.Iters++
		tctx := a.Toolkit.BeginTurn(ctx)
		req := &Request{System: a.SystemPrompt, Messages: slices.Clone(r.Messages)}
		if p := a.Toolkit.SkillPrompt(tctx, r.State.ActiveGroups()); p != "" {
			req.System += "\n" + p
		}
		if final {
			req.Messages = append(req.Messages, Message{Role: User, Text: FinalReminder})
		} else {
			req.Tools = a.Toolkit.Schemas(tctx, r.State.ActiveGroups())
		}
		msg := Message{Role: Assistant}
		ids := map[string]bool{}
		for ev, err := range a.Model.Stream(ctx, req) {
			if err != nil {
				yield(Event{}, fmt.Errorf("agent: the model failed: %w", err))
				return
			}
			if ev.Text != "" {
				msg.Text += ev.Text
				if !yield(Event{Kind: EventText, Text: ev.Text}, nil) {
					return
				}
			}
			if ev.ToolCall != nil && !final {
				c := *ev.ToolCall
				c.ID = distinctID(ids, c.ID, len(msg.ToolCalls))
				if len(c.Input) == 0 {
					c.Input = json.RawMessage(`{}`)
				}
				msg.ToolCalls = append(msg.ToolCalls, c)
				if !yield(Event{Kind: EventToolCall, Call: &c}, nil) {
					return
				}
			}
		}
		r.Messages = append(r.Messages, msg)
		if len(msg.ToolCalls) == 0 {
			if a.StopHook != nil && !final {
				if why := a.StopHook(ctx, r, msg.Text); why != "" {
					r.Messages = append(r.Messages, Message{Role: User, Text: why})
					continue
				}
			}
			yield(Event{Kind: EventReplyEnd, Text: msg.Text, Run: r}, nil)
			return
		}
		calls := make([]*tool.Call, len(msg.ToolCalls))
		for i, c := range msg.ToolCalls {
			calls[i] = a.call(r, c, false)
		}
		if !a.runCalls(tctx, r, calls, yield) {
			return
		}
		if len(r.Waiting) > 0 {
			a.pause(r, yield)
			return
		}
	}
}

// runCalls runs calls as one batch (concurrency-safe neighbours in
// parallel), saving each result to the conversation and each call that
// waits to r.Waiting. It reports false when the consumer stopped.
func (a *Agent) runCalls(ctx context.Context, r *Run, calls []*tool.Call, yield func(Event, error) bool) bool {
	tc := func(i int) *ToolCall {
		return &ToolCall{ID: calls[i].ID, Name: calls[i].Name, Input: calls[i].Input}
	}
	results := make([]*tool.Result, len(calls))
	for ev := range a.Toolkit.StreamBatch(ctx, calls) {
		if ev.Chunk != nil {
			if !yield(Event{Kind: EventToolChunk, Call: tc(ev.Index), Chunk: ev.Chunk}, nil) {
				return false
			}
		}
		if ev.Result != nil {
			results[ev.Index] = ev.Result
		}
	}
	var suggested []permission.Rule // rules suggested by the earlier prompts of this batch
	for i, res := range results {
		c := *tc(i)
		if res != nil && res.Status == tool.StatusAsking && res.Decision != nil {
			if !res.Decision.BypassImmune && a.covered(ctx, r, c, suggested) {
				// "Always" for an earlier call of the batch would allow
				// this one: it waits, held back, and is judged again
				// after the answer, instead of a second prompt.
				res.Status = tool.StatusPending
			} else {
				suggested = append(suggested, res.Decision.Suggestions...)
			}
		}
		if res == nil {
			res = &tool.Result{ID: c.ID, Name: c.Name, Input: c.Input, Status: tool.StatusInterrupted,
				Content: []tool.Block{tool.TextBlock("<system-reminder>The tool call has been interrupted by the user.</system-reminder>")}}
		}
		switch res.Status {
		case tool.StatusAsking, tool.StatusSubmitted, tool.StatusPending:
			r.Waiting = append(r.Waiting, Waiting{Call: c, Status: res.Status, Decision: res.Decision})
			continue
		}
		if !a.emitResult(r, c, res, yield) {
			return false
		}
	}
	return true
}

// covered reports whether one of rules would allow call c.
func (a *Agent) covered(ctx context.Context, r *Run, c ToolCall, rules []permission.Rule) bool {
	if len(rules) == 0 {
		return false
	}
	var t tool.Tool
	for _, x := range a.Toolkit.Tools(ctx, r.State.ActiveGroups()) {
		if x.Info().Name == c.Name {
			t = x
			break
		}
	}
	if t == nil {
		return false
	}
	info := t.Info()
	sctx := tool.WithState(ctx, r.State)
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

// emitResult saves a call's result to the conversation and reports it.
func (a *Agent) emitResult(r *Run, c ToolCall, res *tool.Result, yield func(Event, error) bool) bool {
	r.Messages = append(r.Messages, Message{Role: ToolRole, Result: res})
	return yield(Event{Kind: EventToolResult, Call: &c, Result: res}, nil)
}

// pause reports the waiting calls and the paused run.
func (a *Agent) pause(r *Run, yield func(Event, error) bool) {
	for _, w := range r.Waiting {
		c := w.Call
		switch w.Status {
		case tool.StatusAsking:
			if !yield(Event{Kind: EventNeedApproval, Call: &c, Decision: w.Decision}, nil) {
				return
			}
		case tool.StatusSubmitted:
			if !yield(Event{Kind: EventNeedExternal, Call: &c}, nil) {
				return
			}
		}
	}
	yield(Event{Kind: EventPaused, Run: r}, nil)
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
