package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"iter"
	"strconv"
	"time"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

//go:embed task_create.md
var taskCreateDescription string

var taskCreateSchema = taskSchema(`{"type":"object","properties":{
"subject":{"type":"string","maxLength":%[2]d,"description":"A brief title for the task, in the imperative (\"Run the tests\")"},
"description":{"type":"string","maxLength":%[3]d,"description":"What needs to be done, in detail"},
"metadata":{"type":["object","null"],"description":"Arbitrary metadata to attach to the task (at most 16 KiB as JSON)"}},
"required":["subject","description"]}`)

// TaskCreate adds a task to the agent's task list.
type TaskCreate struct{ taskTool }

// Info implements [tool.Tool].
//
// TaskCreate is not ConcurrencySafe: a task's id is the next number of the
// list, so creates must not run side by side from copies of one state (as
// the parallel activities of a Temporal workflow would); run one at a
// time, each sees the tasks the others created.
func (t TaskCreate) Info() tool.Info {
	i := t.info("TaskCreate", "Create a task", taskCreateDescription, taskCreateSchema)
	i.ConcurrencySafe = false
	return i
}

// CheckPermissions implements [tool.Tool]: always allowed.
func (TaskCreate) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return taskAllowed("TaskCreate"), nil
}

// Call implements [tool.Tool]. The new task's id is one more than the
// largest numeric id in the list.
func (t TaskCreate) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return noted(taskCreateSchema, call.Input, t.run(ctx, call))
}

func (t TaskCreate) run(_ context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return runTask(call, func(st *tool.State) *tool.Chunk {
		var in struct {
			Subject     string         `json:"subject"`
			Description string         `json:"description"`
			Metadata    map[string]any `json:"metadata"`
		}
		if err := tool.DecodeInput(call.Input, &in); err != nil {
			return tool.Errorf("%v", err)
		}
		if bad := tooLong(taskField{"subject", &in.Subject, maxTaskSubject, hintSubject},
			taskField{"description", &in.Description, maxTaskDescription, hintDescription}); bad != nil {
			return bad
		}
		if bad := metadataTooLarge("metadata", in.Metadata); bad != nil {
			return bad
		}
		var id string
		var full int
		err := DataOf(st).editTasks(func(r *tool.Records[Task]) error {
			if r.Len() >= maxTasks {
				full = r.Len()
				return nil
			}
			next := 1
			for _, x := range r.IDs() {
				if n, err := strconv.Atoi(x); err == nil && n >= next {
					next = n + 1
				}
			}
			id = strconv.Itoa(next)
			if in.Metadata == nil {
				in.Metadata = map[string]any{}
			}
			return r.Put(Task{ID: id, Subject: in.Subject, Description: in.Description, Status: taskPending,
				Metadata: in.Metadata, CreatedAt: time.Now().UTC()})
		})
		if err != nil {
			return taskListBroken(err)
		}
		if full > 0 {
			return tool.Errorf("Error: the task list has %d tasks, the most it keeps (%d); the task was not created. Delete tasks that are done or no longer needed (TaskUpdate with status \"deleted\"), then create it again.", full, maxTasks)
		}
		return tool.Text("Task (id=" + id + ") created successfully: " + in.Subject)
	})
}
