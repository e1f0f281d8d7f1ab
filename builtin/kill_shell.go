package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"iter"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

//go:embed kill_shell.md
var killShellDescription string

var killShellSchema = json.RawMessage(`{"type":"object","properties":{
"shell_id":{"type":"string","minLength":1,"description":"The ID of the background shell to kill"}},
"required":["shell_id"]}`)

// KillShell stops a background shell of the agent's with its whole
// process group: SIGTERM, then SIGKILL after a grace period, and it
// returns once nothing of the shell runs.
type KillShell struct{}

// NewKillShell returns the KillShell tool (see [Options.Background]).
func NewKillShell() *KillShell { return &KillShell{} }

// Info implements [tool.Tool].
func (*KillShell) Info() tool.Info {
	return tool.Info{Name: "KillShell", Title: "Stop a background shell", Description: killShellDescription,
		InputSchema: killShellSchema, StateInjected: true, Annotations: hints(false, true, false, false)}
}

// CheckPermissions implements [tool.Tool]: allowed, since it can only
// reach the agent's own shells (ids are per agent: another agent's id
// is unknown here), which the agent started with a checked command.
func (*KillShell) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Allow, Message: "KillShell only stops the agent's own background shells."}, nil
}

// Call implements [tool.Tool].
func (*KillShell) Call(_ context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return noted(killShellSchema, call.Input, runTask(call, func(st *tool.State) *tool.Chunk {
		var in struct {
			ShellID string `json:"shell_id"`
		}
		if err := tool.DecodeInput(call.Input, &in); err != nil {
			return tool.Errorf("%v", err)
		}
		sh, err := shellsOf(st).lookup(in.ShellID)
		if err != nil {
			return tool.Errorf("%v", err)
		}
		if !sh.kill() {
			status, code, _ := sh.state()
			if status == shellKilled {
				return tool.Errorf("Shell %s is not running: it was already killed.", sh.id)
			}
			return tool.Errorf("Shell %s is not running: it %s with exit code %d. BashOutput shows its output.", sh.id, status, code)
		}
		return &tool.Chunk{Content: []tool.Block{tool.TextBlock("Successfully killed shell: " + sh.id + " (" + sh.command + ")")},
			Metadata: map[string]any{"shell_id": sh.id}}
	}))
}
