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
		if err := DataOf(st).editTasks(func(r *tool.Records[Task]) (err error) {
			out, err = updateTask(r, in)
			return err
		}); err != nil {
			return taskListBroken(err)
		}
		return out
	})
}

// updateTask applies in to the task list r and says what it did. It reads
// the task updated and the tasks it links to or waits for, and puts back
// those it changes; a refused update changes none. The error says that
// a task needed cannot be read.
func updateTask(r *tool.Records[Task], in taskUpdateInput) (*tool.Chunk, error) {
	id := in.TaskID
	t, ok, err := r.Get(id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return tool.Errorf("TaskNotFoundError: The task (id=%s) does not exist.", id), nil
	}
	// t's slices and map are shared with the state's copy: cloned before
	// they change.
	t.Blocks, t.BlockedBy = slices.Clone(t.Blocks), slices.Clone(t.BlockedBy)
	var blocks, blockedBy []string
	for _, x := range in.AddBlocks {
		if r.Has(x) && !slices.Contains(t.Blocks, x) && !slices.Contains(blocks, x) {
			blocks = append(blocks, x)
		}
	}
	for _, x := range in.AddBlockedBy {
		if r.Has(x) && !slices.Contains(t.BlockedBy, x) && !slices.Contains(blockedBy, x) {
			blockedBy = append(blockedBy, x)
		}
	}
	// Refuse links that make a task wait for itself.
	for _, x := range blocks {
		w, err := waitsFor(r, id, x)
		if err != nil {
			return nil, err
		}
		if x == id || w {
			return tool.Errorf("Error: task %s cannot block task %s: %s", id, x, cycleWhy(id, x)), nil
		}
	}
	for _, x := range blockedBy {
		w, err := waitsFor(r, x, id)
		if err != nil {
			return nil, err
		}
		if x == id || w {
			return tool.Errorf("Error: task %s cannot be blocked by task %s: %s", id, x, cycleWhy(x, id)), nil
		}
	}
	// The metadata after the merge, checked before anything changes.
	var merged map[string]any
	if len(in.Metadata) > 0 {
		merged = maps.Clone(t.Metadata)
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
			return bad, nil
		}
	}
	var updated []string
	if in.Subject != nil && *in.Subject != "" {
		t.Subject = *in.Subject
		updated = append(updated, "subject")
	}
	if in.Description != nil {
		t.Description = *in.Description
		updated = append(updated, "description")
	}
	// link records on the other task x that id blocks it (blocks) or
	// waits for it; t keeps its side until it is put.
	link := func(x string, blocks bool) error {
		o, _, err := r.Get(x)
		if err != nil {
			return err
		}
		if blocks {
			t.Blocks = append(t.Blocks, x)
			if slices.Contains(o.BlockedBy, id) {
				return nil
			}
			o.BlockedBy = append(slices.Clone(o.BlockedBy), id)
		} else {
			t.BlockedBy = append(t.BlockedBy, x)
			if slices.Contains(o.Blocks, id) {
				return nil
			}
			o.Blocks = append(slices.Clone(o.Blocks), id)
		}
		return r.Put(o)
	}
	if len(blocks) > 0 {
		for _, x := range blocks {
			if err := link(x, true); err != nil {
				return nil, err
			}
		}
		updated = append(updated, "add_blocks")
	}
	if len(blockedBy) > 0 {
		for _, x := range blockedBy {
			if err := link(x, false); err != nil {
				return nil, err
			}
		}
		updated = append(updated, "add_blocked_by")
	}
	if in.Status != nil && *in.Status != "" {
		if *in.Status == "deleted" {
			r.Delete(id)
			// The links to it, wherever they are: the tasks that hold
			// its id as a string (each read to tell).
			for _, y := range r.Holding(id) {
				o, _, err := r.Get(y)
				if err != nil {
					return nil, err
				}
				nb := slices.DeleteFunc(slices.Clone(o.Blocks), func(x string) bool { return x == id })
				nd := slices.DeleteFunc(slices.Clone(o.BlockedBy), func(x string) bool { return x == id })
				if len(nb) != len(o.Blocks) || len(nd) != len(o.BlockedBy) {
					o.Blocks, o.BlockedBy = nb, nd
					if err := r.Put(o); err != nil {
						return nil, err
					}
				}
			}
			return tool.Text(fmt.Sprintf("Task (id=%s) has been deleted.", id)), nil
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
		if err := r.Put(t); err != nil {
			return nil, err
		}
		res = fmt.Sprintf("Update task (id=%s) %s.", id, strings.Join(updated, ", "))
	} else {
		res = fmt.Sprintf("No updates were made to the task (id=%s). Make sure you provided at least one field to update and the values are correct.", id)
	}
	if t.Status == taskCompleted {
		res += "\n\nTask completed. Call TaskList now to find your next available task or see if your work unblocked others."
	}
	return tool.Text(res), nil
}

// waitsFor reports whether task a already waits for task b: b blocks a,
// directly or through other tasks. It reads the tasks b blocks, and
// those they block, until it meets a.
func waitsFor(r *tool.Records[Task], a, b string) (bool, error) {
	seen := map[string]bool{}
	var visit func(x string) (bool, error) // does x (transitively) block a?
	visit = func(x string) (bool, error) {
		if x == a {
			return true, nil
		}
		if seen[x] {
			return false, nil
		}
		seen[x] = true
		t, ok, err := r.Get(x)
		if err != nil || !ok {
			return false, err
		}
		for _, y := range t.Blocks {
			if w, err := visit(y); w || err != nil {
				return w, err
			}
		}
		return false, nil
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
