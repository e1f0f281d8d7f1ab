package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"iter"
	"strings"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

//go:embed task_list.md
var taskListDescription string

var taskListSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// TaskList lists the agent's tasks, a line each.
type TaskList struct{ taskTool }

// Info implements [tool.Tool].
func (t TaskList) Info() tool.Info {
	return t.info("TaskList", "List the tasks", taskListDescription, taskListSchema)
}

// CheckPermissions implements [tool.Tool]: always allowed.
func (TaskList) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return taskAllowed("TaskList"), nil
}

// Call implements [tool.Tool]: "ID [status] subject", then "(owner)" and
// "[blocked by ids]" when there are.
func (t TaskList) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return noted(taskListSchema, call.Input, t.run(ctx, call))
}

func (t TaskList) run(_ context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return runTask(call, func(st *tool.State) *tool.Chunk {
		tasks := DataOf(st).Tasks()
		if len(tasks) == 0 {
			return tool.Text("No tasks available.")
		}
		var b strings.Builder
		for i, t := range tasks {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t.ID + " [" + t.Status + "] " + t.Subject)
			if t.Owner != "" {
				b.WriteString("(" + t.Owner + ")")
			}
			if len(t.BlockedBy) > 0 {
				b.WriteString("[blocked by " + strings.Join(t.BlockedBy, ", ") + "]")
			}
		}
		return tool.Text(b.String())
	})
}
