package tracing

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// The attribute keys of the GenAI semantic conventions (OpenTelemetry
// semantic conventions v1.41.0, docs/gen-ai) that toolscope sets, and its
// own, under toolscope.*.
const (
	AttrOperation     = "gen_ai.operation.name" // invoke_agent, chat, execute_tool
	AttrProvider      = "gen_ai.provider.name"  // openai, anthropic
	AttrRequestModel  = "gen_ai.request.model"
	AttrAgentName     = "gen_ai.agent.name"
	AttrConversation  = "gen_ai.conversation.id"
	AttrToolName      = "gen_ai.tool.name"
	AttrToolCallID    = "gen_ai.tool.call.id"
	AttrToolType      = "gen_ai.tool.type"           // function; extension for an MCP server's tool
	AttrToolArguments = "gen_ai.tool.call.arguments" // opt-in, redacted
	AttrToolResult    = "gen_ai.tool.call.result"    // opt-in, redacted
	AttrErrorType     = "error.type"

	// The permission engine's decision on a tool call.
	AttrDecision     = "toolscope.permission.behavior" // allow, deny, ask, passthrough
	AttrReason       = "toolscope.permission.reason"   // the rule, layer or sub-command that decided (redacted)
	AttrRules        = "toolscope.permission.rules"    // the user's rules that decided, in their string form
	AttrRuleSources  = "toolscope.permission.rule_sources"
	AttrBypassImmune = "toolscope.permission.bypass_immune"
	AttrApproved     = "toolscope.permission.approved" // the user approved the call before it ran
	AttrToolStatus   = "toolscope.tool.status"         // success, error, denied, asking, submitted, interrupted
	AttrChatCalls    = "toolscope.chat.tool_calls"     // the calls of a model's answer
	AttrRunOutcome   = "toolscope.run.outcome"         // reply_end, paused, interrupted, error, stopped
	AttrRunToolCalls = "toolscope.run.tool_calls"
)

// Model returns m with a span for each answer it streams: "chat MODEL",
// kind CLIENT, with gen_ai.provider.name provider ("openai",
// "anthropic") and gen_ai.request.model name. Its parent is the span of
// the ctx the agent passes (the run's, see [Tracer.InvokeAgent]). The
// nil *Tracer returns m itself.
func (t *Tracer) Model(m agent.Model, provider, name string) agent.Model {
	if t == nil || m == nil {
		return m
	}
	return &tracedModel{m: m, t: t, provider: provider, name: name}
}

type tracedModel struct {
	m              agent.Model
	t              *Tracer
	provider, name string
}

func (tm *tracedModel) Stream(ctx context.Context, req *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		spanName := "chat"
		if tm.name != "" {
			spanName += " " + tm.name
		}
		ctx, sp := tm.t.Start(ctx, spanName, KindClient, String(AttrOperation, "chat"))
		if tm.provider != "" {
			sp.SetAttr(String(AttrProvider, tm.provider))
		}
		if tm.name != "" {
			sp.SetAttr(String(AttrRequestModel, tm.name))
		}
		defer sp.End()
		calls := 0
		for ev, err := range tm.m.Stream(ctx, req) {
			if err != nil {
				sp.SetError(errorType(err), err.Error())
			}
			if ev.ToolCall != nil {
				calls++
			}
			if !yield(ev, err) {
				break
			}
			if err != nil {
				break
			}
		}
		sp.SetAttr(Int(AttrChatCalls, int64(calls)))
	}
}

// errorType is error.type for a Go error: "timeout", "canceled", else its
// Go type ("*url.Error").
func errorType(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	for {
		name := fmt.Sprintf("%T", err)
		switch name {
		case "*fmt.wrapError", "*fmt.wrapErrors", "*errors.errorString", "*errors.joinError":
			// fmt's and errors' own say nothing of the class: the
			// innermost typed error does, else _OTHER.
			if u := errors.Unwrap(err); u != nil {
				err = u
				continue
			}
			return "_OTHER"
		}
		return name
	}
}

// Middleware returns a tool middleware that records each call as an
// "execute_tool TOOL" span, kind INTERNAL, with the tool's name, the
// call's id, the permission engine's decision (behaviour, reason, the
// rules that decided) and the result's status; an error result, an
// interrupted call or a failed handler set the span's status to error and
// error.type. Inputs and outputs are recorded only with
// [Options.CaptureContent], redacted. Put it first, outermost: the span
// then covers the other middlewares (the hooks). The nil *Tracer returns
// nil, which the Toolkit skips.
func (t *Tracer) Middleware() tool.Middleware {
	if t == nil {
		return nil
	}
	return func(next tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
			return t.traceCall(ctx, call, next)
		})
	}
}

func (t *Tracer) traceCall(ctx context.Context, call *tool.Call, next tool.Handler) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		typ := "function"
		if strings.HasPrefix(call.Name, "mcp__") {
			typ = "extension"
		}
		ctx, sp := t.Start(ctx, "execute_tool "+call.Name, KindInternal,
			String(AttrOperation, "execute_tool"), String(AttrToolName, call.Name), String(AttrToolType, typ))
		if call.ID != "" {
			sp.SetAttr(String(AttrToolCallID, call.ID))
		}
		if call.Approved {
			sp.SetAttr(Bool(AttrApproved, true))
		}
		if t.capture {
			sp.SetAttr(String(AttrToolArguments, RedactJSON(call.Input)))
		}
		o := outcome{capture: t.capture}
		defer func() {
			o.finish(sp, call)
			sp.End()
		}()
		for c, err := range next.Handle(ctx, call) {
			if err != nil {
				o.err = err
			} else {
				o.see(c)
			}
			if !yield(c, err) {
				o.stopped = true
				return
			}
		}
	}
}

// outcome follows a call's chunks as [tool.Result.Append] does, to tell
// the span how the call ended.
type outcome struct {
	status   tool.Status
	decision *permission.Decision
	err      error
	stopped  bool
	capture  bool
	text     strings.Builder
}

func (o *outcome) see(c *tool.Chunk) {
	if c == nil || c.Progress != nil {
		return
	}
	if c.Decision != nil && o.decision == nil {
		o.decision = c.Decision
	}
	switch c.Status {
	case "", tool.StatusRunning:
	case tool.StatusError:
		o.status = tool.StatusError
	default:
		if o.status != tool.StatusError {
			o.status = c.Status
		}
	}
	if o.capture && o.text.Len() < maxValue {
		for _, b := range c.Content {
			o.text.WriteString(b.Text)
		}
	}
}

func (o *outcome) finish(sp *Span, call *tool.Call) {
	if d := o.decision; d != nil {
		sp.SetAttr(String(AttrDecision, string(d.Behavior)))
		if d.Reason != "" {
			sp.SetAttr(String(AttrReason, Redact(d.Reason)))
		}
		if len(d.Rules) > 0 {
			rules, sources := make([]string, len(d.Rules)), make([]string, len(d.Rules))
			for i, r := range d.Rules {
				rules[i], sources[i] = Redact(r.String()), Redact(r.Source)
			}
			sp.SetAttr(Strings(AttrRules, rules), Strings(AttrRuleSources, sources))
		}
		if d.BypassImmune {
			sp.SetAttr(Bool(AttrBypassImmune, true))
		}
	}
	status := o.status
	switch {
	case o.err != nil:
		status = tool.StatusError
	case o.stopped && status == "":
		status = tool.StatusInterrupted
	case status == "":
		status = tool.StatusSuccess
	}
	sp.SetAttr(String(AttrToolStatus, string(status)))
	switch {
	case o.err != nil:
		sp.SetError(errorType(o.err), o.err.Error())
	case status == tool.StatusError:
		sp.SetError("tool_error", "the tool call ended in an error")
	case status == tool.StatusInterrupted:
		sp.SetError("canceled", "the tool call was interrupted")
	}
	if o.capture && status == tool.StatusSuccess {
		if NamesSecretFile(call.Input) {
			sp.SetAttr(String(AttrToolResult, "[WITHHELD: the call names a secret file]"))
		} else {
			sp.SetAttr(String(AttrToolResult, Redact(o.text.String())))
		}
	}
}

// InvokeAgent runs an agent's reply inside an "invoke_agent NAME" span
// (kind INTERNAL): run starts it (a.Run or a.Resume) with a context
// carrying the span, so that the model turns and tool calls of the reply
// are its children. The span ends with the reply, saying how it ended
// (toolscope.run.outcome: reply_end, paused, interrupted, error). The nil
// *Tracer returns run(ctx).
func (t *Tracer) InvokeAgent(ctx context.Context, name string, run func(ctx context.Context) iter.Seq2[agent.Event, error]) iter.Seq2[agent.Event, error] {
	if t == nil {
		return run(ctx)
	}
	return func(yield func(agent.Event, error) bool) {
		spanName := "invoke_agent"
		if name != "" {
			spanName += " " + name
		}
		ctx, sp := t.Start(ctx, spanName, KindInternal, String(AttrOperation, "invoke_agent"))
		if name != "" {
			sp.SetAttr(String(AttrAgentName, name))
		}
		outcome, calls := "stopped", 0
		defer func() {
			sp.SetAttr(String(AttrRunOutcome, outcome), Int(AttrRunToolCalls, int64(calls)))
			sp.End()
		}()
		for ev, err := range run(ctx) {
			switch {
			case err != nil:
				outcome = "error"
				sp.SetError(errorType(err), err.Error())
			case ev.Kind == agent.EventToolCall:
				calls++
			case ev.Kind == agent.EventPaused:
				outcome = "paused"
			case ev.Kind == agent.EventReplyEnd && ev.Interrupted:
				outcome = "interrupted"
			case ev.Kind == agent.EventReplyEnd:
				outcome = "reply_end"
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}
