package tool

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime/debug"
	"time"

	"github.com/toolscope/toolscope/permission"
)

// Call runs one call to the end and returns its accumulated result. The error
// is non-nil only when the infrastructure failed (a tool's stream returned an
// error); the result then still says what happened, as an error result.
// Everything the model did wrong (an unknown tool, bad JSON, an input that
// breaks the schema) and every permission outcome is a result, not an error.
func (tk *Toolkit) Call(ctx context.Context, call *Call) (*Result, error) {
	return tk.call(ctx, call, nil)
}

// CallObserved is Call, showing every chunk to observe as it comes: the
// progress a tool reports on its way (Chunk.Progress), which the result
// leaves out, and what the result is made of. An MCP server forwards the
// progress to its client with it. observe runs on the caller's goroutine
// and must not keep the chunk.
func (tk *Toolkit) CallObserved(ctx context.Context, call *Call, observe func(*Chunk)) (*Result, error) {
	return tk.call(ctx, call, observe)
}

// call is Call, showing every chunk to observe (when not nil) as it comes.
func (tk *Toolkit) call(ctx context.Context, call *Call, observe func(*Chunk)) (*Result, error) {
	r := &Result{ID: call.ID, Name: call.Name, Input: call.Input}
	for c, err := range tk.Stream(ctx, call) {
		if observe != nil && c != nil {
			observe(c)
		}
		if err != nil {
			_ = r.Append(Errorf("Tool '%s' failed: %v", call.Name, err))
			r.Finish()
			return r, err
		}
		if err := r.Append(c); err != nil {
			_ = r.Append(Errorf("Tool '%s' produced malformed output: %v", call.Name, err))
			r.Finish()
			return r, err
		}
	}
	if r.Decision != nil && len(r.Decision.UpdatedInput) > 0 {
		r.Input = r.Decision.UpdatedInput
	}
	r.Finish()
	return r, nil
}

// InterruptedText is what the model reads when a call was cancelled.
const InterruptedText = "<system-reminder>The tool call has been interrupted by the user.</system-reminder>"

// Stream runs one call and yields its chunks as they come: first any chunk of
// the toolkit itself (an error for a call that cannot run, a denied, asking or
// submitted chunk carrying the permission Decision, or, for an allowed call, an
// empty chunk carrying it), then the tool's own chunks. A call whose ctx is
// cancelled ends with an interrupted chunk. A tool that panics ends with an
// error chunk instead of crashing the agent.
func (tk *Toolkit) Stream(ctx context.Context, call *Call) iter.Seq2[*Chunk, error] {
	if h := tk.handler(call.Name); h != nil {
		return h.Handle(ctx, call)
	}
	return tk.stream(ctx, call)
}

// stream is Stream without the middlewares: the Toolkit's own handler.
func (tk *Toolkit) stream(ctx context.Context, call *Call) iter.Seq2[*Chunk, error] {
	return func(yield func(*Chunk, error) bool) {
		p, err := tk.prepare(ctx, call)
		if err != nil {
			yield(Errorf("%s", err.Error()), nil)
			return
		}
		st := p.st
		ctx = WithState(ctx, st)
		d, fp, err := tk.decide(ctx, p, call)
		// What runs is the call the decision is about: p, or the call a
		// hook rewrote it into, with its one judgment.
		e, input := fp.e, fp.input
		if err != nil {
			yield(Errorf("Permission check failed for tool '%s', so it was not run: %v", call.Name, err), nil)
			return
		}
		judgment := fp.subject(ctx).j
		if (d.Behavior == permission.Ask || d.Behavior == permission.Passthrough) && tk.asker != nil {
			d.Behavior = permission.Ask
			// The user is asked about what will run (a hook's rewrite),
			// with the tool's judgment of it.
			asked := *call
			asked.Judgment = judgment
			if len(d.UpdatedInput) > 0 {
				asked.Input = d.UpdatedInput
			}
			var (
				approve bool
				rules   []permission.Rule
				ans     Approval
			)
			if aa, ok := tk.asker.(ApprovalAsker); ok {
				ans, err = aa.AskApproval(ctx, &asked, d)
				approve, rules = ans.Approve, ans.Rules
			} else {
				approve, rules, err = tk.asker.Ask(ctx, &asked, d)
			}
			if err == nil && approve && len(ans.Input) > 0 && string(ans.Input) != string(asked.Input) {
				// The user approved another input: that call is judged
				// (deny rules, hooks, schema) and run in its own right.
				for _, r := range rules {
					st.AddRule(r)
				}
				again := &Call{ID: call.ID, Name: call.Name, Input: ans.Input, State: call.State, Approved: true}
				for c, err := range tk.stream(ctx, again) {
					if !yield(c, err) {
						return
					}
				}
				return
			}
			switch {
			case errors.Is(err, ErrNotAsked):
				// Comes back asking, below.
			case err != nil:
				yield(Errorf("Could not ask the user about tool '%s', so it was not run: %v", call.Name, err), nil)
				return
			case !approve:
				d = permission.Decision{Behavior: permission.Deny, Message: "The user doesn't want to proceed with this tool use. The tool use was rejected.", Reason: "Denied by the user"}
				if ans.Message != "" {
					d.Message += "\nThe user says: " + ans.Message
				}
			default:
				for _, r := range rules {
					st.AddRule(r)
				}
				d = permission.Decision{Behavior: permission.Allow, Message: "Permission granted for " + call.Name + " (approved by the user)", Reason: "User approval", UpdatedInput: d.UpdatedInput}
			}
		}
		// The decision the call carries is stamped with its time (the
		// user's answer's, when asked): the transcript says when.
		d.At = time.Now()
		switch d.Behavior {
		case permission.Deny:
			yield(&Chunk{Content: []Block{TextBlock(d.Message)}, Status: StatusDenied, Decision: &d}, nil)
			return
		case permission.Ask, permission.Passthrough:
			d.Behavior = permission.Ask
			yield(&Chunk{Status: StatusAsking, Decision: &d}, nil)
			return
		}
		if len(d.UpdatedInput) > 0 && string(d.UpdatedInput) != string(input) {
			schema, err := e.compiled()
			var m map[string]any
			if err == nil {
				m, err = decodeInput(call.Name, d.UpdatedInput, decodesInGo(e.info))
			}
			if err == nil {
				err = schema.validate(call.Name, m)
			}
			if err == nil && decodesInGo(e.info) {
				err = schema.checkIntegerRange(call.Name, d.UpdatedInput)
			}
			if err != nil {
				yield(Errorf("Permission check of tool '%s' rewrote the input into an invalid one: %v", call.Name, err), nil)
				return
			}
			if u := schema.integerLiterals(d.UpdatedInput); string(u) != string(input) {
				// The tool's own check rewrote its input: the judgment
				// was of another input, and the tool judges this one.
				input, judgment = u, nil
			}
		}
		if e.info.External {
			yield(&Chunk{Status: StatusSubmitted, Decision: &d}, nil)
			return
		}
		if !yield(&Chunk{Decision: &d}, nil) {
			return
		}
		if ctx.Err() != nil {
			yield(&Chunk{Content: []Block{TextBlock(InterruptedText)}, Status: StatusInterrupted}, nil)
			return
		}
		tc := &Call{ID: call.ID, Name: call.Name, Input: input, Approved: call.Approved, Judgment: judgment}
		if e.info.StateInjected {
			tc.State = st
		} else {
			// Only StateInjected tools see the State while they run, in
			// Call.State and in the context alike.
			ctx = WithState(ctx, nil)
		}
		tk.run(ctx, e, tc, yield)
	}
}

// run streams the tool's chunks to yield, converting a panic of the tool into
// an error chunk. A panic of the consumer (inside yield) is not the tool's and
// propagates.
func (tk *Toolkit) run(ctx context.Context, e *entry, tc *Call, yield func(*Chunk, error) bool) {
	// flags are in one struct so that the closures share one allocation.
	var f struct{ inYield, stopped bool }
	defer func() {
		if f.inYield || f.stopped {
			return
		}
		if v := recover(); v != nil {
			tk.logger.Error("toolkit: tool panicked", "tool", e.info.Name, "panic", v, "stack", string(debug.Stack()))
			yield(Errorf("Tool '%s' failed with an internal error (panic: %v). This is a bug in the tool, not in your input; try another approach.", e.info.Name, v), nil)
		}
	}()
	interrupted := false
	for c, err := range e.tool.Call(ctx, tc) {
		if err != nil {
			f.stopped = true
			yield(nil, fmt.Errorf("tool %s: %w", e.info.Name, err))
			return
		}
		if c == nil {
			continue
		}
		interrupted = interrupted || c.Status == StatusInterrupted
		f.inYield = true
		ok := yield(c, nil)
		f.inYield = false
		if !ok {
			f.stopped = true
			return
		}
	}
	if ctx.Err() != nil && !interrupted {
		yield(&Chunk{Content: []Block{TextBlock(InterruptedText)}, Status: StatusInterrupted}, nil)
	}
}
