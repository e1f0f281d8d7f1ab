package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// bigTasks is the number of tasks in the benchmarks' state: ten times
// what TaskCreate lets a list grow to, as a state merged from many runs
// or written by a program may hold.
const bigTasks = 10000

// bigState writes a state of n tasks to a new file and returns it.
func bigState(tb testing.TB, n int) *host.StateFile {
	tb.Helper()
	f := host.NewStateFile(filepath.Join(tb.TempDir(), "state.json"))
	if err := f.Writable(); err != nil {
		tb.Fatal(err)
	}
	snap, err := f.Load()
	if err != nil {
		tb.Fatal(err)
	}
	at := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	builtin.DataOf(snap.State).UpdateTasks(func([]builtin.Task) []builtin.Task {
		tasks := make([]builtin.Task, n)
		for i := range tasks {
			tasks[i] = builtin.Task{ID: fmt.Sprint(i + 1), Subject: fmt.Sprintf("Write part %d of the parser", i+1),
				Description: "Parse the input into tokens, then into a tree; report errors with the line and column.",
				Status:      "pending", CreatedAt: at.Add(time.Duration(i) * time.Second)}
		}
		return tasks
	})
	builtin.DataOf(snap.State).SetCwd("/work/project")
	if err := snap.Save(); err != nil {
		tb.Fatal(err)
	}
	return f
}

// taskKit runs the task tools, as toolscope call runs them.
var taskKit = func() *tool.Toolkit {
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.Tasks()})
	if err != nil {
		panic(err)
	}
	return tk
}()

// callTask calls the task tool name with input on st and returns its text.
func callTask(tb testing.TB, st *tool.State, name, input string) string {
	tb.Helper()
	r, err := taskKit.Call(context.Background(), &tool.Call{Name: name, Input: json.RawMessage(input), State: st})
	if err != nil {
		tb.Fatal(err)
	}
	if r.Status != tool.StatusSuccess {
		tb.Fatalf("%s %s: %s", name, input, r.Text())
	}
	return r.Text()
}

// updateOne loads the state under its lock, sets the status of task id
// with TaskUpdate and saves: what `toolscope call --state FILE
// TaskUpdate` does to the file.
func updateOne(tb testing.TB, f *host.StateFile, id, status string) {
	snap, err := f.LoadLocked()
	if err != nil {
		tb.Fatal(err)
	}
	callTask(tb, snap.State, "TaskUpdate", fmt.Sprintf(`{"task_id":%q,"status":%q}`, id, status))
	if err := snap.Save(); err != nil {
		tb.Fatal(err)
	}
}

// getOne loads the state, shows task id with TaskGet and saves (the
// state unchanged): what `toolscope call --state FILE TaskGet` does.
func getOne(tb testing.TB, f *host.StateFile, id string) {
	snap, err := f.Load()
	if err != nil {
		tb.Fatal(err)
	}
	if text := callTask(tb, snap.State, "TaskGet", fmt.Sprintf(`{"task_id":%q}`, id)); !strings.HasPrefix(text, "Task (id="+id+")") {
		tb.Fatalf("TaskGet %s: %s", id, text)
	}
	if err := snap.Save(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkStateUpdate10k: load a state of 10,000 tasks, change one, save.
func BenchmarkStateUpdate10k(b *testing.B) {
	f := bigState(b, bigTasks)
	statuses := [...]string{"in_progress", "completed"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		updateOne(b, f, fmt.Sprint(i%bigTasks+1), statuses[i%2])
		i++
	}
}

// BenchmarkStateGet10k: load a state of 10,000 tasks, show one, save
// (unchanged).
func BenchmarkStateGet10k(b *testing.B) {
	f := bigState(b, bigTasks)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		getOne(b, f, fmt.Sprint(i%bigTasks+1))
		i++
	}
}

// BenchmarkStateList10k: load a state of 10,000 tasks, list them all
// (TaskList decodes every task), save (unchanged).
func BenchmarkStateList10k(b *testing.B) {
	f := bigState(b, bigTasks)
	b.ReportAllocs()
	for b.Loop() {
		snap, err := f.Load()
		if err != nil {
			b.Fatal(err)
		}
		if text := callTask(b, snap.State, "TaskList", `{}`); strings.Count(text, "\n") != bigTasks-1 {
			b.Fatal("tasks lost")
		}
		if err := snap.Save(); err != nil {
			b.Fatal(err)
		}
	}
}

// taskStatus returns the status of task id in the file's state.
func taskStatus(t *testing.T, f *host.StateFile, id string) (string, int) {
	t.Helper()
	snap, err := f.Load()
	if err != nil {
		t.Fatal(err)
	}
	tasks := builtin.DataOf(snap.State).Tasks()
	for _, tk := range tasks {
		if tk.ID == id {
			return tk.Status, len(tasks)
		}
	}
	return "", len(tasks)
}

// TestBigStateSnapshotsMerge: two snapshots of a state of 10,000 tasks,
// loaded together, each changing a task and saved in either order, keep
// both changes; two changing the same task leave the last save's value
// (the status is one field: the last writer's wins), and the other tasks
// are as they were.
func TestBigStateSnapshotsMerge(t *testing.T) {
	f := bigState(t, bigTasks)
	set := func(snap *host.Snapshot, id, status string) {
		err := builtin.DataOf(snap.State).UpdateTasks(func(tasks []builtin.Task) []builtin.Task {
			for i := range tasks {
				if tasks[i].ID == id {
					tasks[i].Status = status
				}
			}
			return tasks
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, order := range []string{"a first", "b first"} {
		a, err := f.Load()
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.Load()
		if err != nil {
			t.Fatal(err)
		}
		idA, idB := "17", "9001"
		if order == "b first" {
			idA, idB = "42", "5000"
		}
		set(a, idA, "in_progress")
		set(b, idB, "completed")
		first, second := a, b
		if order == "b first" {
			first, second = b, a
		}
		if err := first.Save(); err != nil {
			t.Fatal(err)
		}
		if err := second.Save(); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string]string{idA: "in_progress", idB: "completed", "1": "pending"} {
			if got, n := taskStatus(t, f, id); got != want || n != bigTasks {
				t.Errorf("%s: task %s is %q of %d tasks, want %q of %d", order, id, got, n, want, bigTasks)
			}
		}
	}
	// The same task: the last save's status stands.
	a, _ := f.Load()
	b, _ := f.Load()
	set(a, "3", "completed")
	set(b, "3", "in_progress")
	if err := a.Save(); err != nil {
		t.Fatal(err)
	}
	if err := b.Save(); err != nil {
		t.Fatal(err)
	}
	if got, n := taskStatus(t, f, "3"); got != "in_progress" || n != bigTasks {
		t.Errorf("task 3 is %q of %d tasks, want the last save's in_progress of %d", got, n, bigTasks)
	}
}

// TestBigStateAllocs bounds the allocations of loading a state of 10,000
// tasks, changing one with TaskUpdate (or showing one with TaskGet) and
// saving it, and checks that they do not grow with the number of tasks:
// the save costs the task changed, not the others. A load that decoded
// the tasks takes about four allocations a task, a save that encoded them
// one, a merge of the whole lists three more (as before: 11 a task, and
// 220 earlier still); the bounds here are a few hundred in all, the
// buffers of the file and the state's parts. Allocations, unlike times,
// do not depend on the machine.
func TestBigStateAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 2 MB state several times")
	}
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	measure := func(n int) (update, get float64) {
		f := bigState(t, n)
		i := 0
		update = testing.AllocsPerRun(5, func() {
			i++
			updateOne(t, f, fmt.Sprint(i), "completed")
		})
		get = testing.AllocsPerRun(5, func() { getOne(t, f, fmt.Sprint(n/2)) })
		return update, get
	}
	u1, g1 := measure(bigTasks / 10)
	u, g := measure(bigTasks)
	t.Logf("at %d tasks: TaskUpdate %.0f allocations, TaskGet %.0f; at %d: %.0f, %.0f", bigTasks, u, g, bigTasks/10, u1, g1)
	const maxUpdate, maxGet = 450, 350
	if u > maxUpdate {
		t.Errorf("loading, changing one task and saving took %.0f allocations at %d tasks, want at most %d", u, bigTasks, maxUpdate)
	}
	if g > maxGet {
		t.Errorf("loading, showing one task and saving took %.0f allocations at %d tasks, want at most %d", g, bigTasks, maxGet)
	}
	// Ten times the tasks: the same allocations, give or take the growth
	// of a few slices (a record's line's place, the state's buffers).
	if u-u1 > 40 || g-g1 > 40 {
		t.Errorf("allocations grow with the tasks: TaskUpdate %.0f at %d tasks, %.0f at %d; TaskGet %.0f, %.0f", u1, bigTasks/10, u, bigTasks, g1, g)
	}
}

// TestBigStateSaveTrust: a state of 10,000 tasks saved unchanged is the
// file as it was, byte for byte; one that an agent changed between the
// load and the save (a grant written into it, the seal left as it was)
// is not merged: the save replaces it with this run's state, and the
// grant is gone.
func TestBigStateSaveTrust(t *testing.T) {
	f := bigState(t, bigTasks)
	before, err := os.ReadFile(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	getOne(t, f, "77")
	if after, _ := os.ReadFile(f.Path()); !bytes.Equal(before, after) {
		t.Error("a state saved unchanged is not the file it was")
	}
	// A grant forged between two loads, the file's length kept: the
	// second load verifies the seal again, and refuses the file.
	if _, err := f.Load(); err != nil {
		t.Fatal(err)
	}
	same := bytes.Replace(before, []byte(`"mode": "default"`), []byte(`"mode": "explore"`), 1)
	os.WriteFile(f.Path(), same, 0o600)
	if _, err := f.Load(); err == nil || !strings.Contains(err.Error(), "changed outside toolscope") {
		t.Errorf("a file changed between two loads was read: %v", err)
	}
	os.WriteFile(f.Path(), before, 0o600)
	snap, err := f.LoadLocked()
	if err != nil {
		t.Fatal(err)
	}
	callTask(t, snap.State, "TaskUpdate", `{"task_id":"12","status":"completed"}`)
	forged := bytes.Replace(before, []byte(`"mode": "default"`), []byte(`"mode": "bypass"`), 1)
	if bytes.Equal(forged, before) {
		t.Fatal("the state file has no default mode to forge")
	}
	if err := os.WriteFile(f.Path(), forged, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := snap.Save(); err != nil {
		t.Fatal(err)
	}
	back, err := f.Load()
	if err != nil {
		t.Fatal(err)
	}
	if m := back.State.Permissions().Mode; m != permission.Default {
		t.Errorf("the forged mode was kept: %s", m)
	}
	if tk, ok := builtin.DataOf(back.State).Task("12"); !ok || tk.Status != "completed" {
		t.Errorf("the change was lost: %+v %v", tk, ok)
	}
}
