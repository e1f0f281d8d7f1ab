package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

//go:embed task_update.md
var taskUpdateDescription string

var taskUpdateSchema = taskSchema(`{"type":"object","properties":{
"task_id":{"type":"string","maxLength":%[1]d,"description":"The id of the task to update"},
"subject":{"type":["string","null"],"maxLength":%[2]d,"description":"New subject for the task"},
"description":{"type":["string","null"],"maxLength":%[3]d,"description":"New description for the task"},
"add_blocks":{"type":["array","null"],"maxItems":%[5]d,"items":{"type":"string","maxLength":%[1]d},"description":"Ids of tasks that cannot start until this one is completed"},
"add_blocked_by":{"type":["array","null"],"maxItems":%[5]d,"items":{"type":"string","maxLength":%[1]d},"description":"Ids of tasks that must be completed before this one can start"},
"status":{"enum":["pending","in_progress","completed","deleted",null],"description":"New status for the task; deleted removes it"},
"owner":{"type":["string","null"],"maxLength":%[4]d,"description":"New owner for the task (an agent's name)"},
"metadata":{"type":["object","null"],"description":"Metadata keys to merge into the task; a key set to null is deleted (the task's metadata is at most 16 KiB as JSON)"}},
"required":["task_id"]}`)

// TaskUpdate changes, links or deletes a task of the agent's task list.
type TaskUpdate struct{ taskTool }

// Info implements [tool.Tool].
func (t TaskUpdate) Info() tool.Info {
	return t.info("TaskUpdate", "Update a task", taskUpdateDescription, taskUpdateSchema)
}

// CheckPermissions implements [tool.Tool]: always allowed.
func (TaskUpdate) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return taskAllowed("TaskUpdate"), nil
}

type taskUpdateInput struct {
	TaskID       string         `json:"task_id"`
	Subject      *string        `json:"subject"`
	Description  *string        `json:"description"`
	AddBlocks    []string       `json:"add_blocks"`
	AddBlockedBy []string       `json:"add_blocked_by"`
	Status       *string        `json:"status"`
	Owner        *string        `json:"owner"`
	Metadata     map[string]any `json:"metadata"`
}

// Call implements [tool.Tool]. Fields are applied in the order subject,
// description, add_blocks, add_blocked_by, status, owner, metadata; the
// links are kept on both tasks. A link to a task that does not exist, or
// that is already there, is skipped; one that would make a task wait for
// itself (directly or through others) refuses the whole update.
func (t TaskUpdate) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return noted(taskUpdateSchema, call.Input, t.run(ctx, call))
}

func (t TaskUpdate) run(_ context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return runTask(call, func(st *tool.State) *tool.Chunk {
		var in taskUpdateInput
		if err := tool.DecodeInput(call.Input, &in); err != nil {
			return tool.Errorf("%v", err)
		}
		if bad := tooLong(taskField{"task_id", &in.TaskID, maxTaskID, hintID},
			taskField{"subject", in.Subject, maxTaskSubject, hintSubject},
			taskField{"description", in.Description, maxTaskDescription, hintDescription},
			taskField{"owner", in.Owner, maxTaskOwner, hintOwner}); bad != nil {
			return bad
		}
		for _, ids := range []struct {
			name string
			ids  []string
		}{{"add_blocks", in.AddBlocks}, {"add_blocked_by", in.AddBlockedBy}} {
			if len(ids.ids) > maxTaskLinks {
				return tool.Errorf("Error: %s has %d ids, more than the %d one call adds. Add them in several calls. Nothing was changed.", ids.name, len(ids.ids), maxTaskLinks)
			}
			for _, x := range ids.ids {
				if bad := tooLong(taskField{"an id in " + ids.name, &x, maxTaskID, hintID}); bad != nil {
					return bad
				}
			}
		}
		var out *tool.Chunk
		if err := DataOf(st).UpdateTasks(func(tasks []Task) []Task {
			tasks, out = updateTask(tasks, in)
			return tasks
		}); err != nil {
			return taskListBroken(err)
		}
		return out
	})
}

// updateTask applies in to tasks (a copy of the state's list, whose
// tasks' slices and maps it copies before changing them) and says what it
// did. A refused update returns the list unchanged.
func updateTask(tasks []Task, in taskUpdateInput) ([]Task, *tool.Chunk) {
	id := in.TaskID
	i := findTask(tasks, id)
	if i < 0 {
		return tasks, tool.Errorf("TaskNotFoundError: The task (id=%s) does not exist.", id)
	}
	for k := range tasks { // the slices are shared with the state's list

		tasks[k].Blocks = slices.Clone(tasks[k].Blocks)
		tasks[k].BlockedBy = slices.Clone(tasks[k].BlockedBy)
	}
	exists := func(x string) bool { return findTask(tasks, x) >= 0 }
	var blocks, blockedBy []string
	for _, x := range in.AddBlocks {
		if exists(x) && !slices.Contains(tasks[i].Blocks, x) && !slices.Contains(blocks, x) {
			blocks = append(blocks, x)
		}
	}
	for _, x := range in.AddBlockedBy {
		if exists(x) && !slices.Contains(tasks[i].BlockedBy, x) && !slices.Contains(blockedBy, x) {
			blockedBy = append(blockedBy, x)
		}
	}
	// Refuse links that make a task wait for itself.
	for _, x := range blocks {
		if x == id || waitsFor(tasks, id, x) {
			return tasks, tool.Errorf("Error: task %s cannot block task %s: %s", id, x, cycleWhy(id, x))
		}
	}
	for _, x := range blockedBy {
		if x == id || waitsFor(tasks, x, id) {
			return tasks, tool.Errorf("Error: task %s cannot be blocked by task %s: %s", id, x, cycleWhy(x, id))
		}
	}
	// The metadata after the merge, checked before anything changes.
	var merged map[string]any
	if len(in.Metadata) > 0 {
		merged = maps.Clone(tasks[i].Metadata)
		if merged == nil {
			merged = map[string]any{}
		}
		for k, v := range in.Metadata {
			if v == nil {
				delete(merged, k)
			} else {
				merged[k] = v
			}
		}
		if bad := metadataTooLarge("the task's metadata after this update", merged); bad != nil {
			return tasks, bad
		}
	}
	var updated []string
	t := &tasks[i]
	if in.Subject != nil && *in.Subject != "" {
		t.Subject = *in.Subject
		updated = append(updated, "subject")
	}
	if in.Description != nil {
		t.Description = *in.Description
		updated = append(updated, "description")
	}
	link := func(blocker, blocked string) {
		b, d := findTask(tasks, blocker), findTask(tasks, blocked)
		if !slices.Contains(tasks[b].Blocks, blocked) {
			tasks[b].Blocks = append(tasks[b].Blocks, blocked)
		}
		if !slices.Contains(tasks[d].BlockedBy, blocker) {
			tasks[d].BlockedBy = append(tasks[d].BlockedBy, blocker)
		}
	}
	if len(blocks) > 0 {
		for _, x := range blocks {
			link(id, x)
		}
		updated = append(updated, "add_blocks")
	}
	if len(blockedBy) > 0 {
		for _, x := range blockedBy {
			link(x, id)
		}
		updated = append(updated, "add_blocked_by")
	}
	if in.Status != nil && *in.Status != "" {
		if *in.Status == "deleted" {
			tasks = slices.Delete(tasks, i, i+1)
			for k := range tasks {
				tasks[k].Blocks = slices.DeleteFunc(tasks[k].Blocks, func(x string) bool { return x == id })
				tasks[k].BlockedBy = slices.DeleteFunc(tasks[k].BlockedBy, func(x string) bool { return x == id })
			}
			return tasks, tool.Text(fmt.Sprintf("Task (id=%s) has been deleted.", id))
		}
		t.Status = *in.Status
		updated = append(updated, "status")
	}
	if in.Owner != nil {
		t.Owner = *in.Owner
		updated = append(updated, "owner")
	}
	if merged != nil {
		t.Metadata = merged
		updated = append(updated, "metadata")
	}
	var res string
	if len(updated) > 0 {
		res = fmt.Sprintf("Update task (id=%s) %s.", id, strings.Join(updated, ", "))
	} else {
		res = fmt.Sprintf("No updates were made to the task (id=%s). Make sure you provided at least one field to update and the values are correct.", id)
	}
	if t.Status == taskCompleted {
		res += "\n\nTask completed. Call TaskList now to find your next available task or see if your work unblocked others."
	}
	return tasks, tool.Text(res)
}

// waitsFor reports whether task a already waits for task b: b blocks a,
// directly or through other tasks.
func waitsFor(tasks []Task, a, b string) bool {
	seen := map[string]bool{}
	var visit func(x string) bool // does x (transitively) block a?
	visit = func(x string) bool {
		if x == a {
			return true
		}
		if seen[x] {
			return false
		}
		seen[x] = true
		if k := findTask(tasks, x); k >= 0 {
			for _, y := range tasks[k].Blocks {
				if visit(y) {
					return true
				}
			}
		}
		return false
	}
	return visit(b)
}

// cycleWhy says why blocker may not block blocked.
func cycleWhy(blocker, blocked string) string {
	if blocker == blocked {
		return "a task cannot wait for itself."
	}
	return fmt.Sprintf("task %s already waits for task %s (directly or through other tasks), so the link would make them wait for each other for ever. Nothing was changed.", blocker, blocked)
}
