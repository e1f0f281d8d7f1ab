package agent

import (
	"errors"
	"slices"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// Driver is where the agent loop runs. The loop ([Loop]) is one piece of
// code: what it asks of its driver is the model's answer, the tools, the
// calls' results, the user's answers and the hooks. [Agent] drives it in
// this process, streaming events to its caller; package temporal drives
// it from a durable workflow, whose driver runs each of these as an
// activity on the workspace's worker (and must stay deterministic: the
// loop itself does nothing else).
//
// A driver's error ends the loop and is returned by Loop; [ErrStopped]
// is for a consumer that stopped listening.
type Driver interface {
	// Interrupted reports that the run was cancelled: the reply ends with
	// [InterruptionMessage].
	Interrupted() bool
	// Tools returns the schemas of the tools the model may call (for the
	// state's active groups) and the skills' prompt fragment. tools is
	// false for the final step, which offers none.
	Tools(r *Run, tools bool) (schemas []tool.Schema, skillPrompt string, err error)
	// Model answers req: the assistant's message (its text and calls; the
	// driver may stream them to its consumer as they come).
	Model(req *Request, final bool) (Message, error)
	// Calls runs the calls of one answer (or of one resumption), in
	// order, and returns each call's result: [tool.StatusAsking] or
	// [tool.StatusSubmitted] for a call that waits, [tool.StatusPending]
	// for one held back behind it, nil for a call interrupted before it
	// ended.
	Calls(r *Run, calls []Step) ([]*tool.Result, error)
	// Covered reports whether one of rules would allow the call c: the
	// loop holds a call back, instead of asking twice, when an "always"
	// for an earlier call of the batch would allow it.
	Covered(r *Run, c ToolCall, rules []permission.Rule) (bool, error)
	// Stop is asked when the model answers without tools (Claude Code's
	// Stop hook): a non-empty reason keeps the reply going, the reason
	// given to the model as the next user message.
	Stop(r *Run, answer string) (reason string, err error)
	// Emit reports an event of the run (a result, a waiting call, the end
	// of the reply); false stops the loop with ErrStopped.
	Emit(ev Event) bool
	// Wait waits for answers to the waiting calls of r. ok is false when
	// the run pauses instead: Loop then returns, and the run is resumed
	// later with [Loop]'s answers.
	Wait(r *Run) (answers map[string]Answer, ok bool, err error)
}

// ErrStopped is returned by [Loop] when the driver's consumer stopped
// listening ([Driver.Emit] returned false).
var ErrStopped = errors.New("agent: the consumer stopped")

// LoopOptions are the loop's settings.
type LoopOptions struct {
	// System starts every request; the skills' prompt fragment follows it.
	System string
	// MaxIters bounds the model steps of one reply; 0 means 50.
	MaxIters int
}

// Loop runs the agent loop on r until the model answers without tools
// (an [EventReplyEnd] is emitted) or the run pauses on calls that need a
// human (an [EventPaused]): the model is asked, its calls run, their
// results given back, and so on. answers, when not nil, first act on the
// waiting calls of r, as [Agent.Resume] does (see [Plan]); the caller
// checks them first.
func Loop(d Driver, r *Run, answers map[string]Answer, o *LoopOptions) error {
	if o == nil {
		o = &LoopOptions{}
	}
	maxIters := o.MaxIters
	if maxIters <= 0 {
		maxIters = 50
	}
	if answers != nil {
		if err := resume(d, r, answers); err != nil {
			return err
		}
	}
	for {
		if len(r.Waiting) > 0 {
			ans, ok, err := d.Wait(r)
			if err != nil {
				return err
			}
			if !ok {
				return pause(d, r)
			}
			if err := resume(d, r, ans); err != nil {
				return err
			}
			continue
		}
		if d.Interrupted() {
			// Interrupted: the calls that ran are closed (interrupted); the
			// reply ends with AgentScope's words.
			msg := Message{Role: Assistant, Text: InterruptionMessage}
			r.Messages = append(r.Messages, msg)
			d.Emit(Event{Kind: EventReplyEnd, Text: msg.Text, Run: r, Interrupted: true})
			return nil
		}
		final := r.Iters >= maxIters
		r.Iters++
		schemas, skills, err := d.Tools(r, !final)
		if err != nil {
			return err
		}
		req := &Request{System: o.System, Messages: slices.Clone(r.Messages)}
		if skills != "" {
			req.System += "\n" + skills
		}
		if final {
			req.Messages = append(req.Messages, Message{Role: User, Text: FinalReminder})
		} else {
			req.Tools = schemas
		}
		msg, err := d.Model(req, final)
		if err != nil {
			return err
		}
		msg.Role = Assistant
		if final {
			msg.ToolCalls = nil
		}
		// Answers name calls by id: two calls of one answer never share one.
		DistinctIDs(msg.ToolCalls)
		for i := range msg.ToolCalls {
			if len(msg.ToolCalls[i].Input) == 0 {
				msg.ToolCalls[i].Input = []byte(`{}`)
			}
		}
		r.Messages = append(r.Messages, msg)
		if len(msg.ToolCalls) == 0 {
			if !final {
				why, err := d.Stop(r, msg.Text)
				if err != nil {
					return err
				}
				if why != "" {
					r.Messages = append(r.Messages, Message{Role: User, Text: why, Hook: "Stop"})
					continue
				}
			}
			if !d.Emit(Event{Kind: EventReplyEnd, Text: msg.Text, Run: r}) {
				return ErrStopped
			}
			return nil
		}
		steps := make([]Step, len(msg.ToolCalls))
		for i, c := range msg.ToolCalls {
			steps[i] = Step{Call: c}
		}
		if err := runSteps(d, r, steps, schemas, nil); err != nil {
			return err
		}
	}
}

// resume acts on answers to the waiting calls of r: answered calls run or
// are refused, held-back calls run once nothing before them waits.
func resume(d Driver, r *Run, answers map[string]Answer) error {
	before := r.Waiting
	steps, still := Plan(r, answers)
	r.Waiting = still
	return runSteps(d, r, steps, nil, before)
}

// runSteps records the known results of steps (refused calls, external
// results) and runs the others as one batch, saving each result to the
// conversation and each call that waits to r.Waiting. A call asking for
// approval that an "always" for an earlier call of the batch would allow
// waits held back, and is judged again after the answer, instead of a
// second prompt. A waiting call gets its tool's title and annotations
// from offered, the schemas of the model's step, or, when it waited
// before (a resumption), from before.
func runSteps(d Driver, r *Run, steps []Step, offered []tool.Schema, before []Waiting) error {
	var run []Step
	for _, st := range steps {
		if st.Result != nil {
			if !emitResult(d, r, st.Call, st.Result) {
				return ErrStopped
			}
			continue
		}
		run = append(run, st)
	}
	if len(run) == 0 {
		return nil
	}
	results, err := d.Calls(r, run)
	if err != nil {
		return err
	}
	var suggested []permission.Rule // rules suggested by the earlier prompts of this batch
	for i, st := range run {
		c := st.Call
		var res *tool.Result
		if i < len(results) {
			res = results[i]
		}
		if res != nil && res.Status == tool.StatusAsking && res.Decision != nil {
			covered := false
			if !res.Decision.BypassImmune && len(suggested) > 0 {
				if covered, err = d.Covered(r, c, suggested); err != nil {
					return err
				}
			}
			if covered {
				res.Status = tool.StatusPending
			} else {
				suggested = append(suggested, res.Decision.Suggestions...)
			}
		}
		if res == nil {
			res = &tool.Result{ID: c.ID, Name: c.Name, Input: c.Input, Status: tool.StatusInterrupted,
				Content: []tool.Block{tool.TextBlock(tool.InterruptedText)}}
		}
		switch res.Status {
		case tool.StatusAsking, tool.StatusSubmitted, tool.StatusPending:
			w := Waiting{Call: c, Status: res.Status, Decision: res.Decision}
			describe(&w, offered, before)
			r.Waiting = append(r.Waiting, w)
			continue
		}
		res.ID = c.ID
		if !emitResult(d, r, c, res) {
			return ErrStopped
		}
	}
	return nil
}

// describe sets the Title and Annotations of w: those it had when it
// waited before, or those of its tool's schema in offered.
func describe(w *Waiting, offered []tool.Schema, before []Waiting) {
	for i := range before {
		if before[i].Call.ID == w.Call.ID {
			w.Title, w.Annotations = before[i].Title, before[i].Annotations
			return
		}
	}
	for i := range offered {
		if s := &offered[i]; s.Name == w.Call.Name {
			w.Title = s.Title
			if s.Annotations != (tool.Annotations{}) {
				w.Annotations = cloneAnnotations(s.Annotations)
			}
			return
		}
	}
}

// cloneAnnotations is a copy of a that shares no hint with it: the run's
// record cannot change the toolkit's tool.
func cloneAnnotations(a tool.Annotations) *tool.Annotations {
	hint := func(p *bool) *bool {
		if p == nil {
			return nil
		}
		v := *p
		return &v
	}
	return &tool.Annotations{ReadOnlyHint: hint(a.ReadOnlyHint), DestructiveHint: hint(a.DestructiveHint),
		IdempotentHint: hint(a.IdempotentHint), OpenWorldHint: hint(a.OpenWorldHint)}
}

// emitResult saves a call's result to the conversation and reports it.
func emitResult(d Driver, r *Run, c ToolCall, res *tool.Result) bool {
	r.Messages = append(r.Messages, Message{Role: ToolRole, Result: res})
	return d.Emit(Event{Kind: EventToolResult, Call: &c, Result: res})
}

// pause reports the waiting calls and the paused run.
func pause(d Driver, r *Run) error {
	for _, w := range r.Waiting {
		c := w.Call
		switch w.Status {
		case tool.StatusAsking:
			if !d.Emit(Event{Kind: EventNeedApproval, Call: &c, Decision: w.Decision}) {
				return ErrStopped
			}
		case tool.StatusSubmitted:
			if !d.Emit(Event{Kind: EventNeedExternal, Call: &c}) {
				return ErrStopped
			}
		}
	}
	if !d.Emit(Event{Kind: EventPaused, Run: r}) {
		return ErrStopped
	}
	return nil
}
