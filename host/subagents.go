package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/subagent"
)

// Subagents are the sub-agent definitions of Claude Code's agent files:
// the user's (~/.claude/agents/*.md) and the project's
// (.claude/agents/*.md), the project's winning for a name. An untrusted
// project's are left out with a warning, as its skills are: its words
// would become a system prompt. A file that cannot be read or parsed is
// warned about and left out. None when the options leave out Claude
// Code's files.
func (w *Workspace) Subagents() []subagent.Definition {
	s := w.Settings
	if s.opts.NoClaudeSettings {
		return nil
	}
	var dirs []string
	project := filepath.Join(s.Root, ".claude", "agents")
	if s.opts.TrustProject || claudeTrusted(s.Root) {
		dirs = append(dirs, project)
	} else if fi, err := os.Stat(project); err == nil && fi.IsDir() {
		fmt.Fprintf(s.warn.once(), "toolscope: warning: %s: the project is not trusted, so its sub-agents are ignored; trust the folder in Claude Code, or pass --trust-project\n", project)
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".claude", "agents"))
	}
	defs, errs := subagent.Load(dirs...)
	for _, err := range errs {
		fmt.Fprintf(s.warn.once(), "toolscope: warning: sub-agent %v\n", err)
	}
	return defs
}

// SubagentStop returns the workspace's SubagentStop hooks as a sub-agent
// tool's StopHook (subagent.Options.StopHook), or nil when it has none.
// They run when a sub-agent would give its answer, matched against its
// kind (agent_type); exit 2, or a JSON "decision": "block", keeps it
// going with the hook's words, as a Stop hook does for the main agent.
func (w *Workspace) SubagentStop() func(ctx context.Context, def subagent.Definition, r *agent.Run, answer string) string {
	if w.hooks == nil || len(w.hooks.matching("SubagentStop", "")) == 0 {
		return nil
	}
	hs := w.hooks
	return func(ctx context.Context, def subagent.Definition, r *agent.Run, answer string) string {
		event := map[string]any{"session_id": hs.session, "cwd": hs.root, "hook_event_name": "SubagentStop",
			"stop_hook_active": agent.StopHookActive(r), "agent_type": def.Name, "last_assistant_message": answer}
		if info, ok := subagent.FromContext(ctx); ok {
			event["agent_id"] = info.CallID
		}
		for _, h := range hs.matching("SubagentStop", def.Name) {
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
				return cmpOr(reason, "A SubagentStop hook asks you to go on.")
			case res.code != 0:
				fmt.Fprintf(hs.warn, "toolscope: warning: SubagentStop hook %s failed (%s): %s\n", h.origin, hookFailure(res), res.stderr)
			}
		}
		return ""
	}
}
