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

//go:embed task_get.md
var taskGetDescription string

var taskGetSchema = taskSchema(`{"type":"object","properties":{
"task_id":{"type":"string","maxLength":%[1]d,"description":"The id of the task to get"}},
"required":["task_id"]}`)

// TaskGet shows one task of the agent's task list in full.
type TaskGet struct{ taskTool }

// Info implements [tool.Tool].
func (t TaskGet) Info() tool.Info {
	return t.info("TaskGet", "Show a task", taskGetDescription, taskGetSchema)
}

// CheckPermissions implements [tool.Tool]: always allowed.
func (TaskGet) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return taskAllowed("TaskGet"), nil
}

// Call implements [tool.Tool].
func (t TaskGet) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return noted(taskGetSchema, call.Input, t.run(ctx, call))
}

func (t TaskGet) run(_ context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return runTask(call, func(st *tool.State) *tool.Chunk {
		var in struct {
			TaskID string `json:"task_id"`
		}
		if err := tool.DecodeInput(call.Input, &in); err != nil {
			return tool.Errorf("%v", err)
		}
		t, ok, err := taskSlot.Record(st, in.TaskID)
		if err != nil {
			return taskListBroken(err)
		}
		if !ok {
			return tool.Errorf("Task not found")
		}
		lines := []string{"Task (id=" + t.ID + "): " + t.Subject, "Status: " + t.Status, "Description: " + t.Description}
		if t.Owner != "" {
			lines = append(lines, "Owner: "+t.Owner)
		}
		if len(t.BlockedBy) > 0 {
			lines = append(lines, "Blocked by: #"+strings.Join(t.BlockedBy, ", #"))
		}
		if len(t.Blocks) > 0 {
			lines = append(lines, "Blocks: #"+strings.Join(t.Blocks, ", #"))
		}
		if len(t.Metadata) > 0 {
			lines = append(lines, "Metadata: "+pyRepr(t.Metadata))
		}
		return tool.Text(strings.Join(lines, "\n"))
	})
}
