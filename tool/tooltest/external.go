package tooltest

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// External is an External tool named Name, taking no input and always
// allowed, for tests of hosts (an agent loop, a provider, a workflow):
// the host runs it and sends its result.
type External struct{ Name string }

// Info implements [tool.Tool].
func (e External) Info() tool.Info {
	return tool.Info{Name: e.Name, Description: "Deploy.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), External: true}
}

// CheckPermissions implements [tool.Tool]: always allowed.
func (External) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Allow}, nil
}

// Call is never made: the toolkit does not run External tools.
func (External) Call(context.Context, *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(func(*tool.Chunk, error) bool) {}
}
