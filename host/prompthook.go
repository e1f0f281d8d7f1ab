package host

// Prompt hooks ("type": "prompt"), as Claude Code runs them: its hooks
// reference of Claude Code 2.1 (prompt-based hooks; checked against the
// changelog up to 2.1.240). A model, not a command, answers the hook:
//
//   - the hook's "prompt" is sent with the event JSON in place of each
//     $ARGUMENTS, or after the prompt when it has none; the event is the
//     same JSON a command hook reads on its standard input;
//   - the model answers {"ok": true} or {"ok": false, "reason": "..."};
//   - "timeout" bounds the model's answer, 30 seconds by default;
//     "model" names the model (Options.HookModel makes it).
//
// What "ok": false does depends on the event:
//
//   - Stop: the reply goes on, the reason the model's next instruction;
//   - PreToolUse: the call is denied, with the reason (Claude Code 2.1.92
//     and later also ends the turn; toolscope's agent goes on, and the
//     model reads why the call was refused);
//   - PermissionRequest: the call is refused;
//   - UserPromptSubmit: the prompt is refused;
//   - PostToolUse: the reason follows the call's result, as a command
//     hook's "decision": "block" does.
//
// "ok": true grants nothing: it lets the event go on as if the hook were
// not there. As in Claude Code (whose prompt hooks cannot approve a call),
// a PreToolUse prompt hook's "ok" never allows a call that the engine
// would ask about, and a PermissionRequest one never approves: the engine,
// then the user, decide. A prompt hook's answer can only restrict.
//
// A prompt hook that cannot answer — there is no model (toolscope check,
// call, serve, hook: only run and chat have one), the model fails or
// takes longer than the timeout, its answer is not the JSON above — is a
// hook error. For PreToolUse it denies the call: a hook that guards a call
// and cannot judge it never lets it pass. Asking instead would not be
// narrower than the hook: an ask can be approved without a look (--yes, a
// PermissionRequest hook, an MCP client that approves everything). For
// the other events the error is a warning (said once when there is no
// model), and the event goes on as without the hook: the reply ends, the
// prompt is sent, the user is asked.
//
// Prompt hooks follow the trust rules of command hooks: those of a
// project's own .claude/settings.json apply once the project is trusted.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/permission"
)

// defaultPromptTimeout is a prompt hook's timeout when it gives none, as
// Claude Code's.
const defaultPromptTimeout = 30 * time.Second

// promptEvents are the events of runEvents that Claude Code runs prompt
// hooks for (it also runs them for PostToolUseFailure and TaskCompleted,
// which toolscope has no moment for); for SessionStart, SessionEnd and
// Notification it runs command hooks only. SubagentStop's, as Stop's,
// keep the sub-agent going on "ok": false.
var promptEvents = []string{"PreToolUse", "PostToolUse", "PermissionRequest", "UserPromptSubmit", "Stop", "SubagentStop"}

// maxPromptAnswer bounds the answer read from a hook's model: a verdict
// is a line; a model that goes on past this is not giving one.
const maxPromptAnswer = 64 << 10

// promptHookSystem is the system prompt of a prompt hook's request: the
// hook's own prompt, with the event, is the user message.
const promptHookSystem = `You decide a hook of a coding agent. The user message states a condition and gives the event it is about as JSON. Decide whether the condition is met.

Answer with one JSON object and nothing else:
{"ok": true} when it is met, or
{"ok": false, "reason": "..."} when it is not, the reason saying what is wrong or what is left to do.`

// noModelHint says where prompt hooks have a model.
const noModelHint = "prompt hooks are answered by the model of toolscope run and chat (--model, or $TOOLSCOPE_MODEL)"

// errNoModel is a prompt hook's error when nothing gives it a model.
var errNoModel = errors.New("there is no model to ask: " + noModelHint)

// modelCache keeps the model made for each name a prompt hook gives.
type modelCache struct {
	mu sync.Mutex
	m  map[string]agent.Model
}

// modelFor returns the model a prompt hook naming name asks.
func (hs *hooks) modelFor(name string) (agent.Model, error) {
	if hs.model == nil {
		return nil, errNoModel
	}
	hs.models.mu.Lock()
	defer hs.models.mu.Unlock()
	if m, ok := hs.models.m[name]; ok {
		return m, nil
	}
	m, err := hs.model(name)
	if err == nil && m == nil {
		err = errors.New("Options.HookModel returned no model")
	}
	if err != nil {
		if name == "" {
			return nil, fmt.Errorf("the hook model: %w", err)
		}
		return nil, fmt.Errorf("the hook's model %q: %w", name, err)
	}
	if hs.models.m == nil {
		hs.models.m = map[string]agent.Model{}
	}
	hs.models.m[name] = m
	return m, nil
}

// promptText is the user message of a prompt hook: its prompt with the
// event JSON in place of each $ARGUMENTS, or after it when it has none.
func promptText(prompt, input string) string {
	if strings.Contains(prompt, "$ARGUMENTS") {
		return strings.ReplaceAll(prompt, "$ARGUMENTS", input)
	}
	return prompt + "\n\n" + input
}

// ask asks h's model about event and returns its verdict. err is not nil
// when there is none: no model, a failure, a timeout, an answer that is
// not the documented JSON.
func (hs *hooks) ask(ctx context.Context, h hook, event map[string]any) (ok bool, reason string, err error) {
	m, err := hs.modelFor(h.model)
	if err != nil {
		return false, "", err
	}
	in, err := json.Marshal(event)
	if err != nil {
		return false, "", fmt.Errorf("the event: %v", err)
	}
	tctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	timedOut := func() bool { return ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) }
	req := &agent.Request{System: promptHookSystem, Messages: []agent.Message{{Role: agent.User, Text: promptText(h.prompt, string(in))}}}
	var answer strings.Builder
	for ev, err := range m.Stream(tctx, req) {
		switch {
		case err != nil && timedOut():
			return false, "", fmt.Errorf("the model did not answer within %v (the hook's timeout)", h.timeout)
		case err != nil:
			return false, "", fmt.Errorf("the model failed: %v", err)
		case ev.ToolCall != nil:
			return false, "", fmt.Errorf("the model asked for a tool (%s) instead of answering", ev.ToolCall.Name)
		case answer.Len()+len(ev.Text) > maxPromptAnswer:
			return false, "", fmt.Errorf("the model's answer is longer than %d KiB, which no verdict is", maxPromptAnswer>>10)
		}
		answer.WriteString(ev.Text)
	}
	switch {
	case timedOut():
		return false, "", fmt.Errorf("the model did not answer within %v (the hook's timeout)", h.timeout)
	case ctx.Err() != nil:
		return false, "", ctx.Err()
	}
	ok, reason, err = parseVerdict(answer.String())
	return ok, printable(reason), err
}

// printable is a model's reason without the control characters (but
// newline and tab) that would reach a terminal as escape sequences: the
// reason is shown to the user as well as to the agent's model.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r >= 0x20 && r != 0x7f && (r < 0x80 || r > 0x9f) {
			return r
		}
		return -1
	}, s)
}

// parseVerdict reads a prompt hook's answer strictly: one JSON object
// with "ok", a boolean, and optionally "reason", a string, each once, and
// nothing else; a Markdown fence around it (```json ... ```) is taken off.
// Anything else is an error that quotes the answer.
func parseVerdict(text string) (ok bool, reason string, err error) {
	fail := func(format string, args ...any) (bool, string, error) {
		quoted := text
		if len(quoted) > 200 {
			quoted = quoted[:200] + "…"
		}
		return false, "", fmt.Errorf("the model's answer is not a verdict ({\"ok\": true} or {\"ok\": false, \"reason\": \"...\"}): %s; it answered %s",
			fmt.Sprintf(format, args...), strconv.Quote(quoted))
	}
	s := strings.TrimSpace(text)
	if rest, fenced := strings.CutPrefix(s, "```"); fenced {
		lang, body, nl := strings.Cut(rest, "\n")
		body = strings.TrimSpace(body)
		if lang = strings.TrimSpace(lang); !nl || lang != "" && !strings.EqualFold(lang, "json") || !strings.HasSuffix(body, "```") {
			return fail("a fenced answer must be the object alone in a ```json fence")
		}
		s = strings.TrimSpace(strings.TrimSuffix(body, "```"))
	}
	if s == "" {
		return fail("it is empty")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fail("it is not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fail("%v", err)
		}
		key, _ := t.(string)
		if seen[key] {
			return fail("%q is given twice", key)
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fail("%v", err)
		}
		switch key {
		case "ok":
			switch string(raw) {
			case "true", "false":
				ok = string(raw) == "true"
			default:
				return fail(`"ok" is %s, not true or false`, raw)
			}
		case "reason":
			if !bytes.HasPrefix(raw, []byte(`"`)) || json.Unmarshal(raw, &reason) != nil {
				return fail(`"reason" is %s, not a string`, raw)
			}
		default:
			return fail("it has a field %q", key)
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail("%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail("there is more after the object")
	}
	if !seen["ok"] {
		return fail(`it has no "ok"`)
	}
	return ok, reason, nil
}

// preToolUsePrompt runs a PreToolUse prompt hook: denied is true when the
// call is denied (d says why), because the model said "ok": false or
// because the hook could not answer.
func (hs *hooks) preToolUsePrompt(ctx context.Context, h hook, event map[string]any) (d permission.Decision, denied bool) {
	ok, reason, err := hs.ask(ctx, h, event)
	deny := func(msg string) (permission.Decision, bool) {
		return permission.Decision{Behavior: permission.Deny, Message: msg, Reason: "PreToolUse prompt hook " + h.origin}, true
	}
	switch {
	case errors.Is(err, errNoModel):
		fmt.Fprintf(hs.onceWriter(), "toolscope: warning: PreToolUse prompt hook %s has no model to ask (%s); the calls it matches are refused\n", h.origin, noModelHint)
		return deny(fmt.Sprintf("A prompt hook guards this call (%s), and there is no model to ask it: %s. The call is refused.", h.origin, noModelHint))
	case err != nil:
		fmt.Fprintf(hs.warn, "toolscope: warning: PreToolUse prompt hook %s failed: %v; the call is refused\n", h.origin, err)
		return deny(fmt.Sprintf("A prompt hook guards this call (%s), and it could not answer: %v. The call is refused.", h.origin, err))
	case !ok:
		return deny(cmpOr(reason, "A prompt hook ("+h.origin+") refused this call."))
	}
	return permission.Decision{}, false
}

// judge runs a prompt hook of an event other than PreToolUse: ok is false
// when the model said "ok": false (reason says why). A hook that cannot
// answer is a warning, and ok is true: the event goes on as without it.
func (hs *hooks) judge(ctx context.Context, h hook, event map[string]any) (ok bool, reason string) {
	ok, reason, err := hs.ask(ctx, h, event)
	switch {
	case errors.Is(err, errNoModel):
		fmt.Fprintf(hs.onceWriter(), "toolscope: warning: %s prompt hook %s has no model to ask (%s); it is skipped\n", h.event, h.origin, noModelHint)
		return true, ""
	case err != nil:
		fmt.Fprintf(hs.warn, "toolscope: warning: %s prompt hook %s failed: %v\n", h.event, h.origin, err)
		return true, ""
	case !ok:
		return false, cmpOr(reason, "A "+h.event+" prompt hook ("+h.origin+") found its condition not met.")
	}
	return true, ""
}

func (hs *hooks) onceWriter() io.Writer {
	if hs.warnOnce != nil {
		return hs.warnOnce
	}
	return hs.warn
}
