package tool_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

func cloneState(t *testing.T, s *tool.State) *tool.State {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	c := tool.NewState(nil)
	if err := json.Unmarshal(b, c); err != nil {
		t.Fatal(err)
	}
	return c
}

// MergeStates keeps both runs' changes record by record: tasks by id and
// field by field, files read by path, slots one by one, and the whole
// fields this run changed.
func TestMergeStates(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	counter := tool.NewSlot[int]("counter")
	notes := tool.NewSlot[string]("notes")
	base := tool.NewState(&permission.Context{Mode: permission.Default})
	base.UpdateTasks(func([]tool.Task) []tool.Task {
		return []tool.Task{{ID: "1", Subject: "a", Status: "pending", CreatedAt: now}, {ID: "2", Subject: "b", Status: "pending", CreatedAt: now}}
	})
	base.RecordRead(tool.FileRecord{Path: "/p/x", Size: 1, ModTime: now})
	counter.Set(base, 1)

	ours, theirs := cloneState(t, base), cloneState(t, base)
	// Ours: task 1's status, a new task 3, the file read again, the
	// counter, a rule.
	ours.UpdateTasks(func(ts []tool.Task) []tool.Task {
		ts[0].Status = "in_progress"
		return append(ts, tool.Task{ID: "3", Subject: "c", Status: "pending", CreatedAt: now})
	})
	ours.RecordRead(tool.FileRecord{Path: "/p/x", Size: 2, ModTime: now})
	counter.Set(ours, 2)
	ours.AddRule(permission.Rule{Tool: "Bash", Content: "make:*", Behavior: permission.Allow})
	// Theirs: task 1's owner, task 2 deleted, another file, notes, a cwd.
	theirs.UpdateTasks(func(ts []tool.Task) []tool.Task {
		ts[0].Owner = "alice"
		return ts[:1]
	})
	theirs.RecordRead(tool.FileRecord{Path: "/p/y", Size: 5, ModTime: now})
	notes.Set(theirs, "kept")
	theirs.SetCwd("/p/sub")

	m, err := tool.MergeStates(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	tasks := map[string]tool.Task{}
	for _, tk := range m.Tasks() {
		tasks[tk.ID] = tk
	}
	if len(tasks) != 2 || tasks["1"].Status != "in_progress" || tasks["1"].Owner != "alice" || tasks["3"].Subject != "c" {
		t.Errorf("tasks: %+v", m.Tasks())
	}
	if r, ok := m.LastRead("/p/x"); !ok || r.Size != 2 {
		t.Errorf("our read of /p/x: %+v %v", r, ok)
	}
	if _, ok := m.LastRead("/p/y"); !ok {
		t.Error("their read of /p/y was lost")
	}
	if v, _ := counter.Get(m); v != 2 {
		t.Errorf("counter %d, want ours", v)
	}
	if v, _ := notes.Get(m); v != "kept" {
		t.Errorf("notes %q, want theirs", v)
	}
	if m.Cwd() != "/p/sub" || len(m.Permissions().Allow) != 1 {
		t.Errorf("cwd %q, allow %v", m.Cwd(), m.Permissions().Allow)
	}
	if _, ok := tool.MergeStateJSON([]byte(`{}`), []byte(`{}`), []byte(`{"not":"a state"}`)); ok {
		t.Error("merged into something that is not a state")
	}
}
