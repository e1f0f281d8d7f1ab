package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/internal/proc"
	"github.com/toolscope/toolscope/internal/spell"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// hookConfig is one entry of a settings file's hooks.EVENT list, as Claude
// Code writes it.
type hookConfig struct {
	Matcher string `json:"matcher"`
	Hooks   []struct {
		Type    string  `json:"type"`
		Command string  `json:"command"`
		Prompt  string  `json:"prompt"`  // type "prompt"
		Model   string  `json:"model"`   // type "prompt"; "" the hook model's default
		Timeout float64 `json:"timeout"` // seconds; 0 means 60 (a prompt hook's: 30)
	} `json:"hooks"`
}

// hook is one command or prompt hook, with where it was configured.
type hook struct {
	event   string
	matcher *regexp.Regexp // nil: every tool
	command string         // type "command"
	prompt  string         // type "prompt" (see prompthook.go)
	model   string         // type "prompt": the model it names, "" for none
	timeout time.Duration
	origin  string
}

// isPrompt reports whether h is a prompt hook (a model answers it) rather
// than a command.
func (h hook) isPrompt() bool { return h.prompt != "" }

// hooks are the command and prompt hooks of the settings, run as Claude
// Code runs them: PreToolUse before a call is judged, PostToolUse after it
// ran.
type hooks struct {
	list    []hook
	root    string
	session string
	warn    io.Writer
	// warnOnce says a line the first time only (a prompt hook that has
	// no model to ask is said once, not at every call).
	warnOnce io.Writer
	// model gives the prompt hooks their model (Options.HookModel); nil:
	// there is none, and prompt hooks cannot run (see prompthook.go).
	model  func(name string) (agent.Model, error)
	models modelCache
}

// runEvents are the hook events toolscope runs (Claude Code's names, as
// of its hooks reference for Claude Code 2.x); it has no moment for the
// others. PreCompact runs where a durable run (temporal/) compacts its
// transcript; toolscope compacts nothing else.
var runEvents = []string{"PreToolUse", "PostToolUse", "PermissionRequest", "UserPromptSubmit", "Stop", "SubagentStop", "SessionStart", "SessionEnd", "Notification", "PreCompact"}

// parseHooks reads the hooks of the runEvents
// of a file's raw "hooks" object. Hooks of other events are left out
// (other; the caller warns), and so are hooks of a type toolscope does not
// run (Claude Code's "agent", "http", ...) and prompt hooks of an event
// Claude Code runs none for (SessionStart, ...): skipped says which, one
// line each, for the caller's warning. A malformed entry is an error: a
// hook without a type, a "command" hook without a command, a "prompt" hook
// without a prompt, a type that is a misspelt "command" or "prompt", a
// matcher that is not a regular expression.
func parseHooks(raw map[string]json.RawMessage, origin string) (out []hook, other, skipped []string, err error) {
	for _, event := range slices.Sorted(maps.Keys(raw)) {
		v := raw[event]
		if !slices.Contains(runEvents, event) {
			other = append(other, event)
			continue
		}
		var entries []hookConfig
		if err := json.Unmarshal(v, &entries); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: hooks.%s: %v", origin, event, err)
		}
		for i, e := range entries {
			var re *regexp.Regexp
			if m := e.Matcher; m != "" && m != "*" {
				var err error
				if re, err = regexp.Compile("^(?:" + m + ")$"); err != nil {
					return nil, nil, nil, fmt.Errorf("%s: hooks.%s[%d].matcher %q: %v", origin, event, i, m, err)
				}
			}
			for j, h := range e.Hooks {
				where := fmt.Sprintf("%s: hooks.%s[%d].hooks[%d]", origin, event, i, j)
				matcher := "matcher " + strconv.Quote(e.Matcher)
				if e.Matcher == "" || e.Matcher == "*" {
					matcher = "every tool"
				}
				skip := func(why string) {
					skipped = append(skipped, fmt.Sprintf("hooks.%s[%d].hooks[%d] (%s, %s): a hook of type %q, %s; skipped", event, i, j, event, matcher, h.Type, why))
				}
				known := []string{"command", "prompt"}
				switch {
				case strings.TrimSpace(h.Type) == "":
					return nil, nil, nil, fmt.Errorf("%s: a hook needs a \"type\" (toolscope runs hooks of type \"command\" and \"prompt\")", where)
				case !slices.Contains(known, h.Type) && spell.Nearest(h.Type, known) != "":
					return nil, nil, nil, fmt.Errorf("%s: unknown hook type %q (did you mean %q?)", where, h.Type, spell.Nearest(h.Type, known))
				case !slices.Contains(known, h.Type):
					skip(`which toolscope does not run (it runs hooks of type "command" and "prompt")`)
					continue
				case h.Type == "prompt" && !slices.Contains(promptEvents, event):
					skip(fmt.Sprintf("which Claude Code runs for %s only (use a hook of type \"command\")", strings.Join(promptEvents, ", ")))
					continue
				case h.Type == "prompt" && strings.TrimSpace(h.Prompt) == "":
					return nil, nil, nil, fmt.Errorf("%s: a hook of type \"prompt\" needs a \"prompt\" for the model", where)
				case h.Type == "command" && strings.TrimSpace(h.Command) == "":
					return nil, nil, nil, fmt.Errorf("%s: a hook of type \"command\" needs a \"command\" to run", where)
				}
				t := time.Duration(h.Timeout * float64(time.Second))
				if t <= 0 {
					t = 60 * time.Second
					if h.Type == "prompt" {
						t = defaultPromptTimeout
					}
				}
				nh := hook{event: event, matcher: re, timeout: t, origin: where}
				if h.Type == "prompt" {
					nh.prompt, nh.model = h.Prompt, h.Model
				} else {
					nh.command = h.Command
				}
				out = append(out, nh)
			}
		}
	}
	return out, other, skipped, nil
}

// hookResult is what a hook run said.
type hookResult struct {
	code   int // exit status; -1 when it could not run or timed out
	stdout []byte
	stderr string
	err    error
}

// run runs h with the event on its standard input, in the project, with
// CLAUDE_PROJECT_DIR set, started as every helper is (proc.Command: its
// own process group, killed with it on timeout).
func (hs *hooks) run(ctx context.Context, h hook, event map[string]any) hookResult {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	in, _ := json.Marshal(event)
	cmd := proc.Command(ctx, "/bin/sh", "-c", h.command)
	cmd.Dir = hs.root
	cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR="+hs.root)
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := hookResult{stdout: out.Bytes(), stderr: strings.TrimSpace(errb.String())}
	var ee *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		r.code, r.err = -1, fmt.Errorf("timed out after %v", h.timeout)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		r.code, r.err = -1, err
	}
	return r
}

func (hs *hooks) matching(event, toolName string) []hook {
	var out []hook
	for _, h := range hs.list {
		if h.event == event && (h.matcher == nil || toolName == "" || h.matcher.MatchString(toolName)) {
			out = append(out, h)
		}
	}
	return out
}

type noHooksKey struct{}

// permissionHook runs the PreToolUse hooks of a call: exit 2, or a JSON
// permissionDecision "deny", denies it (the hook's words go to the model);
// "ask" asks even when the engine would allow; "allow" allows it, but a
// deny rule still wins (the Toolkit sees to that); an updatedInput
// replaces the input. Any other exit status is reported and changes
// nothing. A prompt hook's "ok": false denies the call with its reason,
// and so does a prompt hook that cannot answer (no model, a failure, a
// timeout, an answer that is not the documented JSON); its "ok": true
// leaves the call to the engine (see prompthook.go).
func (hs *hooks) permissionHook(ctx context.Context, call *tool.Call, engine func() (permission.Decision, error)) (permission.Decision, error) {
	list := hs.matching("PreToolUse", call.Name)
	if len(list) == 0 || ctx.Value(noHooksKey{}) != nil {
		return engine()
	}
	var input any
	json.Unmarshal(call.Input, &input)
	event := map[string]any{"session_id": hs.session, "cwd": hs.root, "hook_event_name": "PreToolUse", "tool_name": call.Name, "tool_input": input}
	var ask, allow *permission.Decision
	var updated json.RawMessage
	for _, h := range list {
		if h.isPrompt() {
			if d, denied := hs.preToolUsePrompt(ctx, h, event); denied {
				return d, nil
			}
			continue
		}
		r := hs.run(ctx, h, event)
		switch {
		case r.code == 2:
			msg := r.stderr
			if msg == "" {
				msg = "blocked by a hook"
			}
			return permission.Decision{Behavior: permission.Deny, Message: msg, Reason: "PreToolUse hook " + h.origin}, nil
		case r.code != 0:
			fmt.Fprintf(hs.warn, "toolscope: warning: PreToolUse hook %s failed (%s): %s; the call goes on\n", h.origin, hookFailure(r), r.stderr)
			continue
		}
		var out struct {
			Decision string `json:"decision"` // older form: "block" or "approve"
			Reason   string `json:"reason"`
			Specific struct {
				PermissionDecision       string          `json:"permissionDecision"`
				PermissionDecisionReason string          `json:"permissionDecisionReason"`
				UpdatedInput             json.RawMessage `json:"updatedInput"`
			} `json:"hookSpecificOutput"`
		}
		if len(bytes.TrimSpace(r.stdout)) == 0 || json.Unmarshal(r.stdout, &out) != nil {
			continue
		}
		why := out.Specific.PermissionDecisionReason
		if why == "" {
			why = out.Reason
		}
		switch {
		case out.Specific.PermissionDecision == "deny" || out.Decision == "block":
			if why == "" {
				why = "denied by a hook"
			}
			return permission.Decision{Behavior: permission.Deny, Message: why, Reason: "PreToolUse hook " + h.origin}, nil
		case out.Specific.PermissionDecision == "ask":
			ask = &permission.Decision{Behavior: permission.Ask, Message: cmpOr(why, "A hook asks for approval of this call"), Reason: "PreToolUse hook " + h.origin}
		case out.Specific.PermissionDecision == "allow" || out.Decision == "approve":
			allow = &permission.Decision{Behavior: permission.Allow, Message: cmpOr(why, "Allowed by a hook"), Reason: "PreToolUse hook " + h.origin}
		}
		if len(out.Specific.UpdatedInput) > 0 {
			updated = out.Specific.UpdatedInput
		}
	}
	var d permission.Decision
	var err error
	switch {
	case ask != nil:
		d = *ask
		if e, eerr := engine(); eerr == nil && e.Behavior == permission.Deny {
			d = e // a deny of the engine stands
		} else if eerr == nil {
			d.Suggestions = e.Suggestions
		}
	case allow != nil:
		d = *allow
	default:
		d, err = engine()
	}
	if len(updated) > 0 && err == nil {
		d.UpdatedInput = updated
	}
	return d, err
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// blocks reports whether a hook's answer stops what it was asked about, as
// Claude Code reads a PostToolUse, UserPromptSubmit or Stop hook: exit 2,
// or exit 0 with JSON "decision": "block"; reason is its words (stderr,
// else the JSON "reason").
func (r hookResult) blocks() (block bool, reason string) {
	var out struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	isJSON := json.Unmarshal(r.stdout, &out) == nil
	return r.code == 2 || r.code == 0 && isJSON && out.Decision == "block", cmpOr(r.stderr, out.Reason)
}

func hookFailure(r hookResult) string {
	if r.err != nil {
		return r.err.Error()
	}
	return fmt.Sprintf("exit status %d", r.code)
}

// postToolUse is a middleware that runs the PostToolUse hooks of a call
// once it ran, with its result: exit 2, or a JSON "decision": "block",
// gives the hook's words to the model after the result.
func (hs *hooks) postToolUse(next tool.Handler) tool.Handler {
	return tool.HandlerFunc(func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
		list := hs.matching("PostToolUse", c.Name)
		if len(list) == 0 {
			return next.Handle(ctx, c)
		}
		return func(yield func(*tool.Chunk, error) bool) {
			res := &tool.Result{ID: c.ID, Name: c.Name, Input: c.Input}
			for ch, err := range next.Handle(ctx, c) {
				if ch != nil {
					res.Append(ch)
				}
				if !yield(ch, err) || err != nil {
					return
				}
			}
			res.Finish()
			if res.Status != tool.StatusSuccess && res.Status != tool.StatusError {
				return // it did not run
			}
			var input any
			json.Unmarshal(c.Input, &input)
			event := map[string]any{"session_id": hs.session, "cwd": hs.root, "hook_event_name": "PostToolUse", "tool_name": c.Name,
				"tool_input": input, "tool_response": map[string]any{"status": res.Status, "text": res.Text()}}
			for _, h := range list {
				if h.isPrompt() {
					if ok, reason := hs.judge(ctx, h, event); !ok {
						if !yield(tool.Text("\n\nPostToolUse hook feedback: "+reason), nil) {
							return
						}
					}
					continue
				}
				r := hs.run(ctx, h, event)
				block, msg := r.blocks()
				switch {
				case block:
					if !yield(tool.Text("\n\nPostToolUse hook feedback: "+msg), nil) {
						return
					}
				case r.code != 0:
					fmt.Fprintf(hs.warn, "toolscope: warning: PostToolUse hook %s failed (%s): %s\n", h.origin, hookFailure(r), r.stderr)
				}
			}
		}
	})
}

// promptHook runs the UserPromptSubmit hooks (run and chat): exit 2, or a
// JSON "decision": "block", refuses the prompt with the hook's words; what
// a hook prints (or its additionalContext) is added to the prompt.
func (hs *hooks) promptHook(ctx context.Context, prompt string) (string, error) {
	event := map[string]any{"session_id": hs.session, "cwd": hs.root, "hook_event_name": "UserPromptSubmit", "prompt": prompt}
	for _, h := range hs.matching("UserPromptSubmit", "") {
		if h.isPrompt() {
			if ok, reason := hs.judge(ctx, h, event); !ok {
				return "", fmt.Errorf("UserPromptSubmit hook %s: %s", h.origin, reason)
			}
			continue
		}
		r := hs.run(ctx, h, event)
		var out struct {
			Specific struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		isJSON := json.Unmarshal(r.stdout, &out) == nil
		block, reason := r.blocks()
		switch {
		case block:
			return "", fmt.Errorf("UserPromptSubmit hook %s: %s", h.origin, reason)
		case r.code != 0:
			fmt.Fprintf(hs.warn, "toolscope: warning: UserPromptSubmit hook %s failed (%s): %s\n", h.origin, hookFailure(r), r.stderr)
		case isJSON && out.Specific.AdditionalContext != "":
			prompt += "\n\n" + out.Specific.AdditionalContext
		case !isJSON && len(bytes.TrimSpace(r.stdout)) > 0:
			prompt += "\n\n" + strings.TrimSpace(string(r.stdout))
		}
	}
	return prompt, nil
}

// stopHook runs the Stop hooks when the model would end its reply: exit
// 2, or a JSON "decision": "block", or a prompt hook's "ok": false, keeps
// it going with the hook's words. The event has the model's answer
// (last_assistant_message, as Claude Code's).
// stop_hook_active tells a hook that the reply already went on for one,
// so that it can let it end.
//
// Whether the reply already went on for one is read from the run (its
// last user message is the hook's: agent.StopHookActive), so one hook
// serves any number of runs, in this process or on a Temporal worker.
func (hs *hooks) stopHook() func(ctx context.Context, r *agent.Run, answer string) string {
	return func(ctx context.Context, r *agent.Run, answer string) string {
		event := map[string]any{"session_id": hs.session, "cwd": hs.root, "hook_event_name": "Stop", "stop_hook_active": agent.StopHookActive(r),
			"last_assistant_message": answer}
		for _, h := range hs.matching("Stop", "") {
			if h.isPrompt() {
				if ok, reason := hs.judge(ctx, h, event); !ok {
					return reason
				}
				continue
			}
			res := hs.run(ctx, h, event)
			block, reason := res.blocks()
			switch {
			case block:
				return cmpOr(reason, "A Stop hook asks you to go on.")
			case res.code != 0:
				fmt.Fprintf(hs.warn, "toolscope: warning: Stop hook %s failed (%s): %s\n", h.origin, hookFailure(res), res.stderr)
			}
		}
		return ""
	}
}

// sessionStart runs the SessionStart hooks (source: "startup" for a new
// conversation, "resume" for one continued from its file) and returns
// what they add to the model's context: their additionalContext, or what
// they print.
func (hs *hooks) sessionStart(ctx context.Context, source string) string {
	event := map[string]any{"session_id": hs.session, "cwd": hs.root, "hook_event_name": "SessionStart", "source": source}
	var added []string
	for _, h := range hs.matching("SessionStart", source) {
		if h.isPrompt() {
			continue // not loaded: Claude Code runs none for SessionStart
		}
		r := hs.run(ctx, h, event)
		var out struct {
			Specific struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		isJSON := json.Unmarshal(r.stdout, &out) == nil
		switch {
		case r.code != 0:
			fmt.Fprintf(hs.warn, "toolscope: warning: SessionStart hook %s failed (%s): %s\n", h.origin, hookFailure(r), r.stderr)
		case isJSON && out.Specific.AdditionalContext != "":
			added = append(added, out.Specific.AdditionalContext)
		case !isJSON && len(bytes.TrimSpace(r.stdout)) > 0:
			added = append(added, strings.TrimSpace(string(r.stdout)))
		}
	}
	return strings.Join(added, "\n\n")
}

// event runs the hooks of an event that decides nothing (SessionEnd,
// Notification) with the event's fields; matcher is what their matchers
// match (the reason, the notification's type).
func (hs *hooks) event(ctx context.Context, name, matcher string, fields map[string]any) {
	event := map[string]any{"session_id": hs.session, "cwd": hs.root, "hook_event_name": name}
	maps.Copy(event, fields)
	for _, h := range hs.matching(name, matcher) {
		if h.isPrompt() {
			continue // not loaded: Claude Code runs none for these events
		}
		if r := hs.run(ctx, h, event); r.code != 0 {
			fmt.Fprintf(hs.warn, "toolscope: warning: %s hook %s failed (%s): %s\n", name, h.origin, hookFailure(r), r.stderr)
		}
	}
}

// permissionRequest runs the PermissionRequest hooks of a call that needs
// the user's approval, as Claude Code runs them before its dialog: a hook
// that answers {"hookSpecificOutput": {"decision": {"behavior": "allow"}}}
// approves the call, "deny" refuses it (with its "message" for the model);
// no answer, a failed hook, or an answer that would change the input
// (updatedInput: what is approved must be what was judged) leaves the
// question to the user. decided is false then. A prompt hook's "ok": false
// refuses the call; its "ok": true leaves the question to the user.
func (hs *hooks) permissionRequest(ctx context.Context, call *tool.Call, d permission.Decision) (approve, decided bool, message string) {
	list := hs.matching("PermissionRequest", call.Name)
	if len(list) == 0 {
		return false, false, ""
	}
	var input any
	json.Unmarshal(call.Input, &input)
	var sugg []map[string]any
	for _, r := range d.Suggestions {
		sugg = append(sugg, map[string]any{"type": "addRules", "rules": []map[string]any{{"toolName": r.Tool, "ruleContent": r.Content}}, "behavior": "allow", "destination": "session"})
	}
	event := map[string]any{"session_id": hs.session, "cwd": hs.root, "hook_event_name": "PermissionRequest", "tool_name": call.Name, "tool_input": input, "permission_suggestions": sugg}
	for _, h := range list {
		if h.isPrompt() {
			// "ok": true approves nothing (as in Claude Code): the next
			// hook, or the user, decides.
			if ok, reason := hs.judge(ctx, h, event); !ok {
				return false, true, reason
			}
			continue
		}
		r := hs.run(ctx, h, event)
		if r.code != 0 {
			fmt.Fprintf(hs.warn, "toolscope: warning: PermissionRequest hook %s failed (%s): %s; the user is asked\n", h.origin, hookFailure(r), r.stderr)
			continue
		}
		var out struct {
			Specific struct {
				Decision struct {
					Behavior     string          `json:"behavior"`
					Message      string          `json:"message"`
					UpdatedInput json.RawMessage `json:"updatedInput"`
				} `json:"decision"`
			} `json:"hookSpecificOutput"`
		}
		if json.Unmarshal(r.stdout, &out) != nil {
			continue
		}
		dec := out.Specific.Decision
		if len(dec.UpdatedInput) > 0 && string(dec.UpdatedInput) != "null" {
			fmt.Fprintf(hs.warn, "toolscope: warning: PermissionRequest hook %s answered with an updatedInput, which toolscope does not take (what is approved is what was judged); the user is asked\n", h.origin)
			continue
		}
		switch dec.Behavior {
		case "allow":
			return true, true, ""
		case "deny":
			return false, true, cmpOr(dec.Message, "Denied by a PermissionRequest hook ("+h.origin+")")
		}
	}
	return false, false, ""
}

// hookAsker puts the PermissionRequest hooks before an Asker.
type hookAsker struct {
	hs   *hooks
	next tool.Asker
}

func (a hookAsker) Ask(ctx context.Context, call *tool.Call, d permission.Decision) (bool, []permission.Rule, error) {
	if approve, decided, msg := a.hs.permissionRequest(ctx, call, d); decided {
		if !approve {
			fmt.Fprintf(a.hs.warn, "toolscope: %s refused by a PermissionRequest hook: %s\n", call.Name, msg)
		}
		return approve, nil, nil
	}
	if a.next == nil {
		return false, nil, tool.ErrNotAsked
	}
	return a.next.Ask(ctx, call, d)
}
