package builtin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/tool"
)

// Everything a task list keeps is bounded, and a refusal names the field,
// its size and the limit without repeating the value: a 50 MB subject is
// neither stored nor echoed (here 8 MB, to keep the test quick). The toolkit refuses what breaks a schema
// limit; the tools refuse the rest (metadata, the number of tasks).
func TestTaskLimits(t *testing.T) {
	k := newTaskKit(t)
	big := strings.Repeat("s", 8<<20)
	call := func(name string, in map[string]any) (tool.Status, string) {
		t.Helper()
		raw, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		return k.do(name, string(raw))
	}
	refused := func(what string, status tool.Status, text string, wants ...string) {
		t.Helper()
		if status != tool.StatusError {
			t.Errorf("%s: %s, want an error", what, status)
		}
		if len(text) > 1000 {
			t.Errorf("%s: the error is %d bytes long: %.200s…", what, len(text), text)
		}
		for _, w := range wants {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %.300q lacks %q", what, text, w)
			}
		}
	}
	s, text := call("TaskCreate", map[string]any{"subject": big, "description": "d"})
	refused("an 8 MB subject", s, text, `"subject"`, "500", fmt.Sprint(len(big)))
	s, text = call("TaskCreate", map[string]any{"subject": "s", "description": big})
	refused("an 8 MB description", s, text, `"description"`, "20000", fmt.Sprint(len(big)))
	s, text = call("TaskCreate", map[string]any{"subject": "s", "description": "d", "metadata": map[string]any{"blob": big}})
	refused("8 MB of metadata", s, text, "metadata", "16384 a task keeps", "in a file")
	if tasks := builtin.DataOf(k.st).Tasks(); len(tasks) != 0 {
		t.Fatalf("refused tasks were stored: %d", len(tasks))
	}

	k.want("TaskCreate", `{"subject":"s","description":"d","metadata":{"a":1}}`, tool.StatusSuccess, "Task (id=1) created successfully: s")
	for _, c := range []struct {
		what  string
		in    map[string]any
		wants []string
	}{
		{"an owner of 8 MB", map[string]any{"task_id": "1", "owner": big}, []string{`"owner"`, "200"}},
		{"a subject of 8 MB", map[string]any{"task_id": "1", "subject": big}, []string{`"subject"`, "500"}},
		{"a task id of 8 MB", map[string]any{"task_id": big, "status": "completed"}, []string{`"task_id"`, "64"}},
		{"a linked id of 8 MB", map[string]any{"task_id": "1", "add_blocks": []string{big}}, []string{`"add_blocks[0]"`, "64"}},
		{"metadata that grows past 16 KiB", map[string]any{"task_id": "1", "metadata": map[string]any{"b": strings.Repeat("m", 16<<10)}}, []string{"after this update", "16384 a task keeps"}},
	} {
		s, text := call("TaskUpdate", c.in)
		refused(c.what, s, text, c.wants...)
	}
	s, text = call("TaskGet", map[string]any{"task_id": big})
	refused("TaskGet of an id of 8 MB", s, text, `"task_id"`, "64")
	k.want("TaskGet", `{"task_id":"1"}`, tool.StatusSuccess, "Task (id=1): s\nStatus: pending\nDescription: d\nMetadata: {'a': 1}")

	// Called outside a toolkit (no schema check), the tools refuse alike.
	for c, err := range (builtin.TaskCreate{}).Call(context.Background(), &tool.Call{Name: "TaskCreate", State: k.st,
		Input: json.RawMessage(`{"subject":"` + strings.Repeat("é", 501) + `","description":"d"}`)}) {
		if err != nil || c.Status != tool.StatusError || len(c.Content) != 1 || !strings.HasPrefix(c.Content[0].Text, "Error: subject is 501 characters long, more than the 500 a task keeps. Give a short title") {
			t.Errorf("direct call: %v %+v", err, c)
		}
	}

	// The list holds at most 1000 tasks.
	for i := 2; i <= 1000; i++ {
		if s, text := k.do("TaskCreate", `{"subject":"s","description":"d"}`); s != tool.StatusSuccess {
			t.Fatalf("task %d: %s", i, text)
		}
	}
	s, text = k.do("TaskCreate", `{"subject":"one more","description":"d"}`)
	refused("the 1001st task", s, text, "1000 tasks", `status "deleted"`)
	if n := len(builtin.DataOf(k.st).Tasks()); n != 1000 {
		t.Errorf("%d tasks", n)
	}
	k.want("TaskUpdate", `{"task_id":"7","status":"deleted"}`, tool.StatusSuccess, "Task (id=7) has been deleted.")
	k.want("TaskCreate", `{"subject":"one more","description":"d"}`, tool.StatusSuccess, "Task (id=1001) created successfully: one more")
}
