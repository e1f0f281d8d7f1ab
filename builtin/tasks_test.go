package builtin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// taskKit runs the task tools in Default mode, on one state.
type taskKit struct {
	t  *testing.T
	tk *tool.Toolkit
	st *tool.State
}

func newTaskKit(t *testing.T) *taskKit {
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.Tasks()})
	if err != nil {
		t.Fatal(err)
	}
	return &taskKit{t, tk, tool.NewState(&permission.Context{Mode: permission.Default})}
}

// do calls name with input and returns the status and text.
func (k *taskKit) do(name, input string) (tool.Status, string) {
	k.t.Helper()
	r, err := k.tk.Call(context.Background(), &tool.Call{Name: name, Input: json.RawMessage(input), State: k.st})
	if err != nil {
		k.t.Fatal(err)
	}
	return r.Status, r.Text()
}

// want calls name and checks the status and the whole text.
func (k *taskKit) want(name, input string, status tool.Status, text string) {
	k.t.Helper()
	if s, got := k.do(name, input); s != status || got != text {
		k.t.Errorf("%s %s:\n got %s %q\nwant %s %q", name, input, s, got, status, text)
	}
}

const completedHint = "\n\nTask completed. Call TaskList now to find your next available task or see if your work unblocked others."

// Every text of AgentScope's task tools.
func TestTaskTexts(t *testing.T) {
	k := newTaskKit(t)
	ok, bad := tool.StatusSuccess, tool.StatusError
	k.want("TaskList", `{}`, ok, "No tasks available.")
	k.want("TaskCreate", `{"subject":"Write the parser","description":"Parse the config file."}`, ok, "Task (id=1) created successfully: Write the parser")
	k.want("TaskCreate", `{"subject":"Test it","description":"Table tests.","metadata":{"prio":1}}`, ok, "Task (id=2) created successfully: Test it")
	k.want("TaskCreate", `{"subject":"Ship","description":"Tag a release.","metadata":null}`, ok, "Task (id=3) created successfully: Ship")
	k.want("TaskGet", `{"task_id":"9"}`, bad, "Task not found")
	k.want("TaskGet", `{"task_id":"2"}`, ok, "Task (id=2): Test it\nStatus: pending\nDescription: Table tests.\nMetadata: {'prio': 1}")
	k.want("TaskUpdate", `{"task_id":"9","status":"completed"}`, bad, "TaskNotFoundError: The task (id=9) does not exist.")
	k.want("TaskUpdate", `{"task_id":"1","subject":"","description":null}`, ok, "No updates were made to the task (id=1). Make sure you provided at least one field to update and the values are correct.")
	k.want("TaskUpdate", `{"task_id":"1","add_blocks":["2","7"],"owner":"ada"}`, ok, "Update task (id=1) add_blocks, owner.")
	k.want("TaskUpdate", `{"task_id":"3","add_blocked_by":["2"],"subject":"Ship it","description":""}`, ok, "Update task (id=3) subject, description, add_blocked_by.")
	k.want("TaskUpdate", `{"task_id":"1","add_blocks":["2"]}`, ok, "No updates were made to the task (id=1). Make sure you provided at least one field to update and the values are correct.")
	k.want("TaskGet", `{"task_id":"2"}`, ok, "Task (id=2): Test it\nStatus: pending\nDescription: Table tests.\nBlocked by: #1\nBlocks: #3\nMetadata: {'prio': 1}")
	k.want("TaskGet", `{"task_id":"1"}`, ok, "Task (id=1): Write the parser\nStatus: pending\nDescription: Parse the config file.\nOwner: ada\nBlocks: #2")
	k.want("TaskList", `{}`, ok, "1 [pending] Write the parser(ada)\n2 [pending] Test it[blocked by 1]\n3 [pending] Ship it[blocked by 2]")
	k.want("TaskUpdate", `{"task_id":"2","metadata":{"prio":null,"area":"cli"}}`, ok, "Update task (id=2) metadata.")
	k.want("TaskUpdate", `{"task_id":"1","status":"in_progress"}`, ok, "Update task (id=1) status.")
	k.want("TaskUpdate", `{"task_id":"1","status":"completed"}`, ok, "Update task (id=1) status."+completedHint)
	k.want("TaskUpdate", `{"task_id":"1"}`, ok, "No updates were made to the task (id=1). Make sure you provided at least one field to update and the values are correct."+completedHint)
	k.want("TaskUpdate", `{"task_id":"2","status":"deleted","owner":"x"}`, ok, "Task (id=2) has been deleted.")
	k.want("TaskList", `{}`, ok, "1 [completed] Write the parser(ada)\n3 [pending] Ship it")
	k.want("TaskGet", `{"task_id":"1"}`, ok, "Task (id=1): Write the parser\nStatus: completed\nDescription: Parse the config file.\nOwner: ada")
	// Ids continue after the largest number; ids that are not numbers are skipped.
	builtin.DataOf(k.st).UpdateTasks(func(ts []builtin.Task) []builtin.Task {
		return append(ts, builtin.Task{ID: "x9", Subject: "odd", Status: "pending"})
	})
	k.want("TaskCreate", `{"subject":"Next","description":"d"}`, ok, "Task (id=4) created successfully: Next")
	// Permission: always allowed, in Default mode, with its message.
	v, err := k.tk.Check(context.Background(), &tool.Call{Name: "TaskCreate", Input: json.RawMessage(`{"subject":"a","description":"b"}`), State: k.st})
	if err != nil || v.Decision.Behavior != permission.Allow {
		t.Errorf("TaskCreate check: %+v %v", v, err)
	}
}

func TestTaskMetadataMerge(t *testing.T) {
	k := newTaskKit(t)
	k.do("TaskCreate", `{"subject":"s","description":"d","metadata":{"a":1,"b":"x"}}`)
	k.want("TaskUpdate", `{"task_id":"1","metadata":{"a":null,"c":[1,2]}}`, tool.StatusSuccess, "Update task (id=1) metadata.")
	k.want("TaskGet", `{"task_id":"1"}`, tool.StatusSuccess, "Task (id=1): s\nStatus: pending\nDescription: d\nMetadata: {'b': 'x', 'c': [1, 2]}")
}

// Unknown statuses, and links that would make tasks wait for each other,
// are refused with a clear error and change nothing.
func TestTaskRefusals(t *testing.T) {
	k := newTaskKit(t)
	for i := 1; i <= 3; i++ {
		k.do("TaskCreate", fmt.Sprintf(`{"subject":"t%d","description":"d"}`, i))
	}
	k.do("TaskUpdate", `{"task_id":"1","add_blocks":["2"]}`)
	k.do("TaskUpdate", `{"task_id":"2","add_blocks":["3"]}`)
	before, _ := json.Marshal(builtin.DataOf(k.st).Tasks())
	for _, c := range []struct{ input, want string }{
		{`{"task_id":"1","status":"done"}`, `field "status" must be one of`},
		{`{"task_id":"1","add_blocks":["1"]}`, "Error: task 1 cannot block task 1: a task cannot wait for itself."},
		{`{"task_id":"2","add_blocked_by":["2"]}`, "Error: task 2 cannot be blocked by task 2: a task cannot wait for itself."},
		{`{"task_id":"2","add_blocks":["1"]}`, "Error: task 2 cannot block task 1: task 2 already waits for task 1"},
		{`{"task_id":"3","add_blocks":["1"],"subject":"renamed"}`, "Error: task 3 cannot block task 1: task 3 already waits for task 1 (directly or through other tasks)"},
		{`{"task_id":"1","add_blocked_by":["3"]}`, "Error: task 1 cannot be blocked by task 3: task 3 already waits for task 1"},
	} {
		s, text := k.do("TaskUpdate", c.input)
		if s != tool.StatusError || !strings.Contains(text, c.want) {
			t.Errorf("%s: %s %q, want an error with %q", c.input, s, text, c.want)
		}
	}
	if after, _ := json.Marshal(builtin.DataOf(k.st).Tasks()); string(after) != string(before) {
		t.Errorf("a refused update changed the tasks:\n%s\n%s", before, after)
	}
}

// Task calls of one batch run in parallel on one state: every create gets
// its own id, and links stay two-way.
func TestTasksConcurrent(t *testing.T) {
	k := newTaskKit(t)
	var calls []*tool.Call
	for i := 0; i < 40; i++ {
		calls = append(calls, &tool.Call{ID: fmt.Sprint(i), Name: "TaskCreate", Input: json.RawMessage(fmt.Sprintf(`{"subject":"t%d","description":"d"}`, i)), State: k.st})
	}
	if _, err := k.tk.CallBatch(context.Background(), calls); err != nil {
		t.Fatal(err)
	}
	calls = calls[:0]
	for i := 2; i <= 40; i++ {
		calls = append(calls, &tool.Call{ID: fmt.Sprint(i), Name: "TaskUpdate", Input: json.RawMessage(fmt.Sprintf(`{"task_id":"1","add_blocks":["%d"]}`, i)), State: k.st})
	}
	if _, err := k.tk.CallBatch(context.Background(), calls); err != nil {
		t.Fatal(err)
	}
	tasks := builtin.DataOf(k.st).Tasks()
	ids := map[string]bool{}
	for _, tk := range tasks {
		ids[tk.ID] = true
	}
	if len(tasks) != 40 || len(ids) != 40 {
		t.Fatalf("%d tasks, %d distinct ids", len(tasks), len(ids))
	}
	if n := len(tasks[0].Blocks); n != 39 {
		t.Errorf("task 1 blocks %d tasks, want 39", n)
	}
	for _, tk := range tasks[1:] {
		if len(tk.BlockedBy) != 1 || tk.BlockedBy[0] != "1" {
			t.Errorf("task %s blocked by %v", tk.ID, tk.BlockedBy)
		}
	}
}

// Metadata is shown as Python shows a dict, as AgentScope does.
func TestTaskMetadataRepr(t *testing.T) {
	k := newTaskKit(t)
	k.do("TaskCreate", `{"subject":"s","description":"d","metadata":{"key":"value","it's":"say \"hi\"","f":1.5,"n":null,"ok":true,"no":false,"l":[1,"a\nb"],"d":{"x":{}}}}`)
	want := `Metadata: {'d': {'x': {}}, 'f': 1.5, "it's": 'say "hi"', 'key': 'value', 'l': [1, 'a\nb'], 'n': None, 'no': False, 'ok': True}`
	if _, got := k.do("TaskGet", `{"task_id":"1"}`); !strings.HasSuffix(got, want) {
		t.Errorf("got %q\nwant suffix %q", got, want)
	}
}
