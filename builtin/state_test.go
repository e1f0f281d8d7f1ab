package builtin_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/toolscope/toolscope/builtin"
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

// tool.MergeStates keeps both runs' changes record by record, by the
// rules of the slots' owner: builtin's tasks by id and field by field, its
// files read by path, other slots one by one, and the whole fields this
// run changed.
func TestMergeStates(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	counter := tool.NewSlot[int]("counter")
	notes := tool.NewSlot[string]("notes")
	base := tool.NewState(&permission.Context{Mode: permission.Default})
	builtin.DataOf(base).UpdateTasks(func([]builtin.Task) []builtin.Task {
		return []builtin.Task{{ID: "1", Subject: "a", Status: "pending", CreatedAt: now}, {ID: "2", Subject: "b", Status: "pending", CreatedAt: now}}
	})
	builtin.DataOf(base).RecordRead(builtin.FileRecord{Path: "/p/x", Size: 1, ModTime: now})
	counter.Set(base, 1)

	ours, theirs := cloneState(t, base), cloneState(t, base)
	// Ours: task 1's status, a new task 3, the file read again, the
	// counter, a rule.
	builtin.DataOf(ours).UpdateTasks(func(ts []builtin.Task) []builtin.Task {
		ts[0].Status = "in_progress"
		return append(ts, builtin.Task{ID: "3", Subject: "c", Status: "pending", CreatedAt: now})
	})
	builtin.DataOf(ours).RecordRead(builtin.FileRecord{Path: "/p/x", Size: 2, ModTime: now})
	counter.Set(ours, 2)
	ours.AddRule(permission.Rule{Tool: "Bash", Content: "make:*", Behavior: permission.Allow})
	// Theirs: task 1's owner, task 2 deleted, another file, notes, a cwd.
	builtin.DataOf(theirs).UpdateTasks(func(ts []builtin.Task) []builtin.Task {
		ts[0].Owner = "alice"
		return ts[:1]
	})
	builtin.DataOf(theirs).RecordRead(builtin.FileRecord{Path: "/p/y", Size: 5, ModTime: now})
	notes.Set(theirs, "kept")
	builtin.DataOf(theirs).SetCwd("/p/sub")

	m, err := tool.MergeStates(base, ours, theirs)
	if err != nil {
		t.Fatal(err)
	}
	tasks := map[string]builtin.Task{}
	for _, tk := range builtin.DataOf(m).Tasks() {
		tasks[tk.ID] = tk
	}
	if len(tasks) != 2 || tasks["1"].Status != "in_progress" || tasks["1"].Owner != "alice" || tasks["3"].Subject != "c" {
		t.Errorf("tasks: %+v", builtin.DataOf(m).Tasks())
	}
	if r, ok := builtin.DataOf(m).LastRead("/p/x"); !ok || r.Size != 2 {
		t.Errorf("our read of /p/x: %+v %v", r, ok)
	}
	if _, ok := builtin.DataOf(m).LastRead("/p/y"); !ok {
		t.Error("their read of /p/y was lost")
	}
	if v, _ := counter.Get(m); v != 2 {
		t.Errorf("counter %d, want ours", v)
	}
	if v, _ := notes.Get(m); v != "kept" {
		t.Errorf("notes %q, want theirs", v)
	}
	if builtin.DataOf(m).Cwd() != "/p/sub" || len(m.Permissions().Allow) != 1 {
		t.Errorf("cwd %q, allow %v", builtin.DataOf(m).Cwd(), m.Permissions().Allow)
	}
	if _, ok := tool.MergeStateJSON([]byte(`{}`), []byte(`{}`), []byte(`{"not":"a state"}`)); ok {
		t.Error("merged into something that is not a state")
	}
}

// A state file another toolscope wrote in format 1 (files read and tasks
// at the top) merges the same way: its records are builtin's.
func TestMergeIntoFormat1(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	base := tool.NewState(nil)
	builtin.DataOf(base).UpdateTasks(func([]builtin.Task) []builtin.Task {
		return []builtin.Task{{ID: "1", Subject: "a", Status: "pending", CreatedAt: now}}
	})
	ours := cloneState(t, base)
	builtin.DataOf(ours).UpdateTasks(func(ts []builtin.Task) []builtin.Task {
		ts[0].Status = "completed"
		return ts
	})
	b, _ := json.Marshal(base)
	o, _ := json.Marshal(ours)
	theirs := []byte(`{"toolscope_state":1,"permissions":{"mode":"default"},"cwd":"/w",` +
		`"tasks":[{"id":"1","subject":"a","status":"pending","owner":"bob","created_at":"2026-12-05T00:00:00Z"},` +
		`{"id":"2","subject":"b","status":"pending","created_at":"2026-12-05T00:00:00Z"}],` +
		`"read_files":[{"path":"/w/f","size":1,"mtime":"2026-12-05T00:00:00Z"}]}`)
	merged, ok := tool.MergeStateJSON(b, o, theirs)
	if !ok {
		t.Fatal("not merged")
	}
	m := tool.NewState(nil)
	if err := json.Unmarshal(merged, m); err != nil {
		t.Fatal(err)
	}
	d := builtin.DataOf(m)
	tasks := map[string]builtin.Task{}
	for _, tk := range d.Tasks() {
		tasks[tk.ID] = tk
	}
	if len(tasks) != 2 || tasks["1"].Status != "completed" || tasks["1"].Owner != "bob" || tasks["2"].Subject != "b" || d.Cwd() != "/w" {
		t.Fatalf("merged into a format 1 state: %s", merged)
	}
	if _, ok := d.LastRead("/w/f"); !ok {
		t.Fatalf("their read record was lost: %s", merged)
	}
}

// The read records are a bounded cache, least recently used dropped first.
func TestReadRecordsLRU(t *testing.T) {
	d := builtin.DataOf(tool.NewState(nil))
	for i := range builtin.MaxReadFiles + 5 {
		d.RecordRead(builtin.FileRecord{Path: fmt.Sprintf("/p/%c%d", 'a'+i%26, i/26), Size: int64(i)})
	}
	if _, ok := d.LastRead("/p/a0"); ok {
		t.Fatal("oldest record not evicted")
	}
	if _, ok := d.LastRead("/p/f0"); !ok {
		t.Fatal("record evicted too early")
	}
	d.RecordRead(builtin.FileRecord{Path: "/p/new"}) // evicts the LRU one, not f0 (just used)
	if _, ok := d.LastRead("/p/f0"); !ok {
		t.Fatal("recently used record evicted")
	}
	var none builtin.Data
	none.RecordRead(builtin.FileRecord{Path: "/x"})
	if _, ok := none.LastRead("/x"); ok || none.Cwd() != "" || none.UpdateTasks(func(t []builtin.Task) []builtin.Task { return t }) == nil {
		t.Fatal("the data of no state keeps something")
	}
}
