package builtin

import (
	"encoding/json"
	"fmt"
	"iter"
	"slices"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// Tasks returns the task tools: TaskCreate, TaskGet, TaskList and
// TaskUpdate. They keep an agent's task list in its [tool.State], so a
// list outlives the turn (and, saved with the state, the process). They
// change nothing outside the state, so they are always allowed and safe
// to run side by side.
func Tasks() []tool.Tool {
	return []tool.Tool{TaskCreate{}, TaskGet{}, TaskList{}, TaskUpdate{}}
}

// taskTool is what the four tools share: always allowed, concurrency-safe,
// state-injected.
type taskTool struct{}

func (taskTool) info(name, title, desc string, schema json.RawMessage) tool.Info {
	return tool.Info{Name: name, Title: title, Description: desc, InputSchema: schema, ConcurrencySafe: true, StateInjected: true,
		Annotations: hints(false, false, false, false)}
}

// taskAllowed is the task tools' permission decision.
func taskAllowed(name string) permission.Decision {
	return permission.Decision{Behavior: permission.Allow, Message: name + " is always allowed to be called."}
}

// runTask runs f against the call's state, turning what it says into the
// call's one chunk.
func runTask(call *tool.Call, f func(st *tool.State) *tool.Chunk) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		if call.State == nil {
			yield(nil, fmt.Errorf("%s needs the agent's state (Call.State)", call.Name))
			return
		}
		yield(f(call.State), nil)
	}
}

// The states of a task: it starts pending, goes in_progress, ends
// completed (TaskUpdate also takes "deleted", which removes it).
const (
	taskPending   = "pending"
	taskCompleted = "completed"
)

func findTask(tasks []tool.Task, id string) int {
	return slices.IndexFunc(tasks, func(t tool.Task) bool { return t.ID == id })
}
