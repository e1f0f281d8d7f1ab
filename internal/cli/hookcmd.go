package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/internal/inputview"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// hookUsage is the usage of toolscope hook.
const hookUsage = `usage: toolscope hook AGENT [--config FILE] [--cwd DIR] [--mode M] [--allow R]... [--deny R]... [--ask R]...
       toolscope hook install AGENT [--user | --project | --local] [--command CMD]
       toolscope hook uninstall AGENT [--user | --project | --local]
AGENT: claude-code (PreToolUse, PermissionRequest), cursor (beforeShellExecution,
beforeReadFile), gemini (BeforeTool). The event comes on standard input, the
answer goes to standard output in the agent's format.`

// maxHookEvent bounds the event a hook reads: a Write's content is in it.
const maxHookEvent = 64 << 20

// runHook is `toolscope hook`: the permission layer for agents that run a
// command before each tool call and obey its answer.
func runHook(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageErr("%s", hookUsage)
	}
	switch args[0] {
	case "install", "uninstall":
		return runHookInstall(args[0], args[1:], stdout, stderr)
	}
	ad, ok := hookAdapters[args[0]]
	if !ok {
		return usageErr("toolscope hook: unknown agent %q (want claude-code, cursor or gemini)\n%s", args[0], hookUsage)
	}
	c := newFlags("hook "+args[0], stdout, true)
	if err := c.parse(args[1:]); err != nil {
		return err
	}
	if len(c.args) > 0 {
		return usageErr("toolscope hook %s takes no arguments (the event comes on standard input), got %q", args[0], c.args[0])
	}
	raw, err := io.ReadAll(io.LimitReader(stdin, maxHookEvent+1))
	if err != nil {
		return fmt.Errorf("reading the hook event: %w", err)
	}
	if len(raw) > maxHookEvent {
		return usageErr("the hook event is over %d MiB", maxHookEvent>>20)
	}
	ev, err := ad.parse(raw)
	if err != nil {
		return usageErr("toolscope hook %s: %v", args[0], err)
	}
	if ev == nil {
		return nil // an event toolscope has no part in: no answer
	}
	v := judgeHookEvent(ctx, c, ev, stderr)
	out := ad.answer(ev, v)
	if out == nil {
		return nil
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// hookEvent is an agent's tool call, in toolscope's terms.
type hookEvent struct {
	Kind  string          // the agent's event name
	Tool  string          // toolscope's tool name ("Bash", "mcp__s__t")
	Input json.RawMessage // toolscope's input
	Cwd   string          // where the agent runs the call
	Root  string          // the project root, when the agent says
	Mode  string          // the agent's permission mode, when it says
}

// hookVerdict is toolscope's answer to an event: none (Known false) when
// toolscope has no opinion (a tool it does not know).
type hookVerdict struct {
	Known        bool
	Behavior     permission.Behavior
	BypassImmune bool
	Text         string // why, for the user and the model
	readOnly     bool   // the call only reads
}

// hookAdapter reads one agent's events and writes its answers.
type hookAdapter struct {
	// parse returns the event, or nil for one toolscope has no part in.
	parse func(raw []byte) (*hookEvent, error)
	// answer is the agent's answer to the verdict, or nil for none.
	answer func(ev *hookEvent, v hookVerdict) any
}

var hookAdapters = map[string]hookAdapter{
	"claude-code": {parse: parseClaudeEvent, answer: claudeAnswer},
	"cursor":      {parse: parseCursorEvent, answer: cursorAnswer},
	"gemini":      {parse: parseGeminiEvent, answer: geminiAnswer},
}

// judgeHookEvent asks the permission engine about the event's call, in
// the event's project and working directory, with the workspace's settings
// (Claude Code's among them) and the agent's mode unless --mode says
// otherwise. The workspace's own hooks do not run (the agent runs them,
// this one among them) and no MCP server starts: an MCP call is judged by
// the rules that name it. Whatever goes wrong is an ask, never an allow.
// In the agent's bypass mode only what toolscope always asks about, and
// the deny rules, are answered.
func judgeHookEvent(ctx context.Context, c *common, ev *hookEvent, stderr io.Writer) hookVerdict {
	if c.cwd == "" {
		c.cwd = ev.Root
		if c.cwd == "" {
			c.cwd = ev.Cwd
		}
	}
	if c.mode == "" && ev.Mode != "" {
		m, err := host.ParseMode(ev.Mode)
		if err != nil {
			return hookVerdict{Known: true, Behavior: permission.Ask, Text: "toolscope could not judge this call: " + err.Error()}
		}
		c.mode = string(m)
	}
	// An agent run from / or the home directory would make all of it the
	// project: toolscope lends no allowance of its own to a change there
	// (a write to /etc/cron.d is no edit inside a project).
	broad := c.cwd != "" && broadDir(c.cwd) != ""
	if c.mode == string(permission.Bypass) {
		// The agent lets everything through already; toolscope's part is
		// what no mode lets through unasked (bypass-immune asks) and the
		// deny rules: judged as in default mode, and said only then.
		c.mode = string(permission.Default)
		v := judgeHookCall(ctx, c, ev, stderr)
		if v.Behavior == permission.Deny || v.BypassImmune {
			return v
		}
		return hookVerdict{}
	}
	v := judgeHookCall(ctx, c, ev, stderr)
	if broad && v.Behavior == permission.Allow && !v.readOnly {
		return hookVerdict{}
	}
	return v
}

// judgeHookCall is judgeHookEvent in c's mode.
func judgeHookCall(ctx context.Context, c *common, ev *hookEvent, stderr io.Writer) hookVerdict {
	c.noHooks, c.noServers = true, true
	s, err := c.setup(ctx, stderr, false)
	if err != nil {
		return hookVerdict{Known: true, Behavior: permission.Ask, Text: "toolscope could not judge this call: " + err.Error()}
	}
	defer s.close()
	if ev.Cwd != "" {
		builtin.DataOf(s.st).SetCwd(ev.Cwd)
	}
	call := &tool.Call{Name: ev.Tool, Input: ev.Input, State: s.st}
	// Fields toolscope's tool does not have (the agent's own, a newer
	// agent's): the call is judged without them, and allowed by nobody
	// on that judgment (below).
	stripped := false
	if in, ok := knownFields(s.Toolkit, ctx, ev.Tool, ev.Input); ok {
		call.Input, stripped = in, true
	}
	vd, err := s.Toolkit.Check(ctx, call)
	switch {
	case errors.Is(err, tool.ErrToolNotFound):
		if strings.HasPrefix(ev.Tool, "mcp__") {
			return byRules(ctx, s.effective, ev.Tool)
		}
		return hookVerdict{} // a tool toolscope does not have: no opinion
	case err != nil:
		return hookVerdict{Known: true, Behavior: permission.Ask, Text: "toolscope could not judge this call: " + err.Error()}
	}
	d := vd.Decision
	text := "toolscope: " + d.Message
	if d.Reason != "" {
		text += " (" + d.Reason + ")"
	}
	if j, ok := vd.Judgment.(*builtin.BashJudgment); ok {
		if a := j.Analysis(); a != nil && a.Reason != "" && !strings.Contains(text, a.Reason) && !strings.HasPrefix(d.Reason, "Each part allowed") {
			text += "; shell analysis: " + a.Reason
		}
	}
	if d.Behavior == permission.Ask && !(d.BypassImmune) && strings.HasPrefix(d.Reason, "Mode: ") {
		// Only the mode's fallback asks (no rule, no check of toolscope's
		// objects): the agent's own flow asks too, or allows on grounds of
		// its own (Claude Code's documentation hosts); no opinion.
		return hookVerdict{}
	}
	if stripped && d.Behavior == permission.Allow {
		// What toolscope judged is not the whole call (a field such as
		// dangerouslyDisableSandbox may change what it does): no allow on
		// its account; asks and denials stand.
		return hookVerdict{}
	}
	return hookVerdict{Known: true, Behavior: d.Behavior, BypassImmune: d.BypassImmune && d.Behavior == permission.Ask, Text: inputview.Escape(text), readOnly: vd.ReadOnly}
}

// knownFields returns input without the top-level keys the tool's schema
// does not have, when it had any.
func knownFields(tk *tool.Toolkit, ctx context.Context, name string, input json.RawMessage) (json.RawMessage, bool) {
	var props struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	found := false
	// The tool's own schema, as written (listing Schemas would compile
	// every tool's, at every event).
	for _, t := range tk.Tools(ctx, nil) {
		if info := t.Info(); info.Name == name {
			found = json.Unmarshal(info.InputSchema, &props) == nil
			break
		}
	}
	var in map[string]json.RawMessage
	if !found || json.Unmarshal(input, &in) != nil {
		return nil, false
	}
	dropped := false
	for k := range in {
		if _, ok := props.Properties[k]; !ok {
			delete(in, k)
			dropped = true
		}
	}
	if !dropped {
		return nil, false
	}
	b, err := json.Marshal(in)
	return b, err == nil
}

// byRules judges a call of an MCP tool that toolscope does not run by the
// rules alone: a deny rule denies, an ask rule asks, an allow rule allows;
// no rule, no opinion (the agent's own rules and prompt decide).
func byRules(ctx context.Context, pc *permission.Context, name string) hookVerdict {
	s := nameOnly(name)
	e := permission.NewEngine(&permission.Context{Mode: permission.Default, Deny: pc.Deny})
	if d, ok := e.CheckDenyRules(ctx, s); ok {
		return hookVerdict{Known: true, Behavior: permission.Deny, Text: "toolscope: " + d.Message + " (" + d.Reason + ")"}
	}
	for _, set := range []struct {
		rules []permission.Rule
		b     permission.Behavior
	}{{pc.Ask, permission.Ask}, {pc.Allow, permission.Allow}} {
		e := permission.NewEngine(&permission.Context{Mode: permission.Default, Deny: set.rules})
		if d, ok := e.CheckDenyRules(ctx, s); ok {
			return hookVerdict{Known: true, Behavior: set.b, Text: "toolscope: " + strings.TrimPrefix(d.Reason, "Rule: ") + " matches " + name}
		}
	}
	return hookVerdict{}
}

// nameOnly is a call known by its tool's name alone: rules with content
// apply to it as to a tool without a RuleMatcher (fail closed: never for
// an allow, always for a deny or ask).
type nameOnly string

func (n nameOnly) Name() string                  { return string(n) }
func (n nameOnly) RuleNames() []string           { return nil }
func (n nameOnly) ReadOnly(context.Context) bool { return false }
func (n nameOnly) CheckPermissions(context.Context, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Passthrough}, nil
}
func (n nameOnly) MatchRule(_ context.Context, r permission.Rule) bool {
	return r.Content == "" || r.Behavior != permission.Allow
}
func (n nameOnly) Suggestions(context.Context) []permission.Rule { return nil }

// Claude Code (hooks reference as of Claude Code 2.x: PreToolUse and
// PermissionRequest events; permissionDecision allow/deny/ask).

type claudeEvent struct {
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
}

func parseClaudeEvent(raw []byte) (*hookEvent, error) {
	var e claudeEvent
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("the event is not Claude Code's hook JSON: %v", err)
	}
	switch e.HookEventName {
	case "PreToolUse", "PermissionRequest":
	default:
		return nil, nil
	}
	if e.ToolName == "" {
		return nil, errors.New("the event has no tool_name")
	}
	name, input := e.ToolName, e.ToolInput
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage(`{}`)
	}
	switch name {
	case "MultiEdit":
		// Judged as an Edit of its file (what Edit's rules govern).
		var m struct {
			FilePath string `json:"file_path"`
			Edits    []struct {
				Old string `json:"old_string"`
				New string `json:"new_string"`
			} `json:"edits"`
		}
		if json.Unmarshal(input, &m) != nil || len(m.Edits) == 0 {
			return nil, errors.New("a MultiEdit without file_path and edits")
		}
		name, input = "Edit", mustJSON(map[string]any{"file_path": m.FilePath, "old_string": m.Edits[0].Old, "new_string": m.Edits[0].New})
	}
	return &hookEvent{Kind: e.HookEventName, Tool: name, Input: input, Cwd: e.Cwd, Root: os.Getenv("CLAUDE_PROJECT_DIR"), Mode: e.PermissionMode}, nil
}

func claudeAnswer(ev *hookEvent, v hookVerdict) any {
	if !v.Known {
		return nil
	}
	if ev.Kind == "PermissionRequest" {
		// The dialog is about to be shown: answer it when toolscope
		// decides, let the user answer when toolscope would ask.
		switch v.Behavior {
		case permission.Allow:
			return map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PermissionRequest", "decision": map[string]any{"behavior": "allow"}}}
		case permission.Deny:
			return map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PermissionRequest", "decision": map[string]any{"behavior": "deny", "message": v.Text}}}
		}
		return nil
	}
	b := string(v.Behavior)
	if v.Behavior == permission.Passthrough {
		b = "ask"
	}
	return map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse", "permissionDecision": b, "permissionDecisionReason": v.Text}}
}

// Cursor (hooks.json version 1, Cursor 1.7 and later: beforeShellExecution
// and beforeReadFile; permission allow/deny/ask).

type cursorEvent struct {
	HookEventName  string   `json:"hook_event_name"`
	Command        string   `json:"command"`
	Cwd            string   `json:"cwd"`
	FilePath       string   `json:"file_path"`
	WorkspaceRoots []string `json:"workspace_roots"`
}

func parseCursorEvent(raw []byte) (*hookEvent, error) {
	var e cursorEvent
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("the event is not Cursor's hook JSON: %v", err)
	}
	ev := &hookEvent{Kind: e.HookEventName, Cwd: e.Cwd}
	if len(e.WorkspaceRoots) > 0 {
		ev.Root = e.WorkspaceRoots[0]
	}
	switch e.HookEventName {
	case "beforeShellExecution":
		ev.Tool, ev.Input = "Bash", mustJSON(map[string]string{"command": e.Command})
	case "beforeReadFile":
		if e.FilePath == "" {
			return nil, errors.New("a beforeReadFile event without file_path")
		}
		ev.Tool, ev.Input = "Read", mustJSON(map[string]string{"file_path": e.FilePath})
	default:
		return nil, nil
	}
	return ev, nil
}

func cursorAnswer(ev *hookEvent, v hookVerdict) any {
	if !v.Known {
		return nil
	}
	p := string(v.Behavior)
	switch {
	case v.Behavior == permission.Passthrough:
		p = "ask"
	case ev.Kind == "beforeReadFile" && p == "ask":
		// No asking before a read: a file toolscope always asks about
		// (a secret) is not read; others are the agent's to read.
		if !v.BypassImmune {
			return map[string]any{"permission": "allow"}
		}
		p = "deny"
	}
	// Both spellings of the messages: Cursor's documents have used both.
	return map[string]any{"permission": p, "user_message": v.Text, "agent_message": v.Text, "userMessage": v.Text, "agentMessage": v.Text}
}

// Gemini CLI (hooks reference of Gemini CLI 0.5x: BeforeTool, decision
// allow/deny with a reason; no ask).

type geminiEvent struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	Cwd           string          `json:"cwd"`
}

func parseGeminiEvent(raw []byte) (*hookEvent, error) {
	var e geminiEvent
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, fmt.Errorf("the event is not Gemini CLI's hook JSON: %v", err)
	}
	if e.HookEventName != "BeforeTool" {
		return nil, nil
	}
	var in map[string]any
	if len(e.ToolInput) > 0 && string(e.ToolInput) != "null" {
		if err := json.Unmarshal(e.ToolInput, &in); err != nil {
			return nil, fmt.Errorf("tool_input is not an object: %v", err)
		}
	}
	str := func(k string) string { s, _ := in[k].(string); return s }
	ev := &hookEvent{Kind: e.HookEventName, Cwd: e.Cwd}
	switch e.ToolName {
	case "run_shell_command":
		ev.Tool, ev.Input = "Bash", mustJSON(map[string]string{"command": str("command")})
		if d := str("dir_path"); d != "" {
			ev.Cwd = absUnder(e.Cwd, d)
		}
	case "read_file":
		ev.Tool, ev.Input = "Read", mustJSON(map[string]string{"file_path": absUnder(e.Cwd, str("file_path"))})
	case "write_file":
		ev.Tool, ev.Input = "Write", mustJSON(map[string]string{"file_path": absUnder(e.Cwd, str("file_path")), "content": str("content")})
	case "replace":
		ev.Tool, ev.Input = "Edit", mustJSON(map[string]any{"file_path": absUnder(e.Cwd, str("file_path")), "old_string": str("old_string"), "new_string": str("new_string")})
	case "glob":
		m := map[string]string{"pattern": str("pattern")}
		if p := str("path"); p != "" {
			m["path"] = absUnder(e.Cwd, p)
		}
		ev.Tool, ev.Input = "Glob", mustJSON(m)
	case "grep_search", "search_file_content":
		m := map[string]string{"pattern": str("pattern")}
		if p := str("path"); p != "" {
			m["path"] = absUnder(e.Cwd, p)
		}
		if g := str("include"); g != "" {
			m["glob"] = g
		}
		ev.Tool, ev.Input = "Grep", mustJSON(m)
	case "list_directory":
		ev.Tool, ev.Input = "Glob", mustJSON(map[string]string{"pattern": "*", "path": absUnder(e.Cwd, str("dir_path"))})
	default:
		return nil, nil // a tool toolscope does not judge
	}
	return ev, nil
}

func geminiAnswer(_ *hookEvent, v hookVerdict) any {
	switch {
	case !v.Known:
		return nil
	case v.Behavior == permission.Deny:
		return map[string]any{"decision": "deny", "reason": v.Text}
	case v.Behavior == permission.Allow:
		return map[string]any{"decision": "allow", "reason": v.Text}
	case v.BypassImmune:
		// Gemini CLI cannot be told to ask: what toolscope always asks
		// about is refused, with the reason, for the user to run by hand.
		return map[string]any{"decision": "deny", "reason": v.Text + " (toolscope always asks about this; run it yourself if it is wanted)"}
	}
	return nil // Gemini CLI's own confirmation decides
}

// absUnder is p, made absolute against dir when it is relative.
func absUnder(dir, p string) string {
	if p == "" || filepath.IsAbs(p) || dir == "" {
		return p
	}
	return filepath.Join(dir, p)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
