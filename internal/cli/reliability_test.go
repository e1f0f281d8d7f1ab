package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/toolscope/toolscope/internal/textfile"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Processes that share one --state file and call the task tools at once
// lose nothing: 8 processes × 60 mixed calls (creates, updates of their own
// tasks, updates of shared tasks, lists). Every create that reported an id
// has its own task under that id; every update that reported success is in
// the final file, field by field (one process sets a shared task's status,
// another its owner; each adds its own metadata key).
func TestConcurrentTaskCallsLoseNothing(t *testing.T) {
	procs, calls := 8, 60
	if testing.Short() {
		procs, calls = 4, 12
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "st.json")
	created := regexp.MustCompile(`Task \(id=(\d+)\) created successfully: (\S+)`)
	const shared = 3
	for k := 0; k < shared; k++ {
		if out, code := cli(bin, dir, "call", "--state", state, "TaskCreate", fmt.Sprintf(`{"subject":"shared-%d","description":"d"}`, k)); code != 0 {
			t.Fatalf("create: %d %s", code, out)
		}
	}
	type report struct {
		ids      map[string]string // id -> subject, as the create reported them
		inProg   []string          // own tasks set in_progress
		metaKeys map[string]string // shared task id -> metadata key set
		owner    string            // the shared task 1's owner, set by process 0
	}
	reports := make([]report, procs)
	var wg sync.WaitGroup
	errs := make(chan string, procs*calls)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			r := report{ids: map[string]string{}, metaKeys: map[string]string{}}
			var last string
			for j := 0; j < calls; j++ {
				var args []string
				switch j % 4 {
				case 0:
					args = []string{"TaskCreate", fmt.Sprintf(`{"subject":"p%d-%d","description":"from process %d"}`, p, j, p)}
				case 1:
					if last == "" {
						continue
					}
					args = []string{"TaskUpdate", fmt.Sprintf(`{"task_id":%q,"status":"in_progress"}`, last)}
				case 2:
					id := fmt.Sprint(1 + (p+j)%shared)
					key := fmt.Sprintf("p%d_%d", p, j)
					args = []string{"TaskUpdate", fmt.Sprintf(`{"task_id":%q,"metadata":{%q:true}}`, id, key)}
					r.metaKeys[key] = id
				case 3:
					switch {
					case p == 0 && j == 3:
						args = []string{"TaskUpdate", `{"task_id":"1","owner":"process-0"}`}
						r.owner = "process-0"
					case p == 1 && j == 3:
						args = []string{"TaskUpdate", `{"task_id":"1","status":"completed"}`}
					default:
						args = []string{"TaskList", `{}`}
					}
				}
				out, code := cli(bin, dir, append([]string{"call", "--state", state}, args...)...)
				if code != 0 {
					errs <- fmt.Sprintf("process %d call %d %v: exit %d: %s", p, j, args, code, out)
					continue
				}
				if m := created.FindStringSubmatch(out); args[0] == "TaskCreate" {
					if m == nil {
						errs <- fmt.Sprintf("create said %q", out)
						continue
					}
					r.ids[m[1]], last = m[2], m[1]
				} else if args[0] == "TaskUpdate" && strings.Contains(args[1], "in_progress") {
					r.inProg = append(r.inProg, last)
				}
			}
			reports[p] = r
		}(p)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Slots struct {
			Tasks []struct {
				ID, Subject, Status, Owner string
				Metadata                   map[string]any
			} `json:"builtin.tasks"`
		} `json:"slots"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	st := file.Slots
	byID := map[string]int{}
	for i, task := range st.Tasks {
		if _, dup := byID[task.ID]; dup {
			t.Errorf("two tasks have the id %s", task.ID)
		}
		byID[task.ID] = i
	}
	lost, reported := 0, 0
	seenID := map[string]int{}
	for p, r := range reports {
		for id, subject := range r.ids {
			reported++
			if q, dup := seenID[id]; dup {
				t.Errorf("processes %d and %d were both told they created task %s", q, p, id)
			}
			seenID[id] = p
			if i, ok := byID[id]; !ok || st.Tasks[i].Subject != subject {
				lost++
				t.Errorf("process %d created %s as %s; the file has %+v", p, subject, id, st.Tasks[min(i, len(st.Tasks)-1)])
			}
		}
		for _, id := range r.inProg {
			if i, ok := byID[id]; !ok || st.Tasks[i].Status != "in_progress" {
				t.Errorf("process %d set task %s in_progress; lost", p, id)
			}
		}
		for key, id := range r.metaKeys {
			if i, ok := byID[id]; !ok || st.Tasks[i].Metadata[key] != true {
				lost++
				t.Errorf("process %d set metadata %s on task %s; lost", p, key, id)
			}
		}
	}
	if task := st.Tasks[byID["1"]]; task.Owner != "process-0" || task.Status != "completed" {
		t.Errorf("task 1: owner %q status %q, want process-0 and completed (both updates)", task.Owner, task.Status)
	}
	t.Logf("%d processes × %d calls: %d creates reported, %d tasks in the file, %d changes lost", procs, calls, reported, len(st.Tasks), lost)
}

// Writes and state saves leave other programs' temporary files alone: a
// user's ".notes.tmp2024" beside the file a Write replaces and a
// ".data.tmp42" beside the --state file survive.
func TestCallKeepsForeignTempFiles(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	stateDir := filepath.Join(dir, "state")
	os.Mkdir(stateDir, 0o755)
	foreign := []string{filepath.Join(dir, ".notes.tmp2024"), filepath.Join(dir, ".backup.tmp1"), filepath.Join(stateDir, ".data.tmp42"), filepath.Join(dir, ".x.tmp123")}
	for _, f := range foreign {
		os.WriteFile(f, []byte("mine"), 0o644)
	}
	state := filepath.Join(stateDir, "st.json")
	f := filepath.Join(dir, "f.txt")
	for _, args := range [][]string{
		{"Write", fmt.Sprintf(`{"file_path":%q,"content":"one\n"}`, f)},
		{"Read", fmt.Sprintf(`{"file_path":%q}`, f)},
		{"Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"one","new_string":"two"}`, f)},
	} {
		if out, code := cli(bin, dir, append([]string{"call", "--state", state, "--mode", "accept_edits", "--cwd", dir}, args...)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, out)
		}
	}
	for _, f := range foreign {
		if b, err := os.ReadFile(f); string(b) != "mine" {
			t.Errorf("%s: %q %v", filepath.Base(f), b, err)
		}
	}
	for _, d := range []string{dir, stateDir} {
		names, _ := os.ReadDir(d)
		for _, n := range names {
			if textfile.IsTempName(n.Name()) {
				t.Errorf("left %s", n.Name())
			}
		}
	}
}

// A call whose state cannot be saved afterwards says so: a call that
// succeeded exits 4 (not 1, "the tool failed"), and the message says that
// its change stands and the state did not. A state directory without room
// for a save is found before the call: exit 2, and the Edit does not run.
// Needs root (a small tmpfs).
func TestStateSaveFailure(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	stateDir := filepath.Join(dir, "state")
	os.Mkdir(stateDir, 0o755)
	if err := syscall.Mount("tmpfs", stateDir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	defer syscall.Unmount(stateDir, syscall.MNT_DETACH)
	state := filepath.Join(stateDir, "st.json")
	f := filepath.Join(dir, "f.txt")
	os.WriteFile(f, []byte("one\n"), 0o644)
	call := func(args ...string) (string, int) {
		return cli(bin, dir, append([]string{"call", "--state", state, "--cwd", dir, "--mode", "accept_edits"}, args...)...)
	}
	if out, code := call("Read", fmt.Sprintf(`{"file_path":%q}`, f)); code != 0 {
		t.Fatalf("Read: %d %s", code, out)
	}
	// A Bash call that fills the state's file system: it ran, the save fails.
	fill := fmt.Sprintf(`{"command":"head -c 2000000 /dev/zero > %s/fill 2>/dev/null; true"}`, stateDir)
	out, code := cli(bin, dir, "call", "--state", state, "--cwd", dir, "--yes", "Bash", fill)
	if code != 4 || !strings.Contains(out, "Bash ran and succeeded: what it changed stays changed, but the state was not saved") {
		t.Errorf("a call whose state save failed: exit %d, want 4\n%s", code, out)
	}
	// Now the probe finds no room: the Edit does not run.
	out, code = call("Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"one","new_string":"two"}`, f))
	if code != 2 || !strings.Contains(out, "has no room to save the state") {
		t.Errorf("an Edit with no room for the state: exit %d, want 2\n%s", code, out)
	}
	if b, _ := os.ReadFile(f); string(b) != "one\n" {
		t.Errorf("the Edit ran: %q", b)
	}
	os.Remove(filepath.Join(stateDir, "fill"))
	if out, code := call("Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"one","new_string":"two"}`, f)); code != 0 {
		t.Errorf("with room again: %d %s", code, out)
	}
	names, _ := os.ReadDir(stateDir)
	if len(names) != 1 {
		t.Errorf("the state directory holds %v", names)
	}
}

// Edit and Write keep a file's owner: run as another user (nobody), an
// Edit of root's world-writable file is refused with a message that says
// why, and the file keeps its content, owner and inode; the same user's
// own file is edited and stays theirs. As root, an Edit of nobody's file
// leaves it nobody's. Needs root.
func TestEditKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the CLI as another user")
	}
	src := buildCLI(t)
	if src == "" {
		t.Skip("needs go to build the CLI")
	}
	base, err := os.MkdirTemp("", "owner")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	os.Chmod(base, 0o777)
	bin := filepath.Join(base, "toolscope")
	b, _ := os.ReadFile(src)
	os.WriteFile(bin, b, 0o755)
	rootFile, own := filepath.Join(base, "root.txt"), filepath.Join(base, "own.txt")
	os.WriteFile(rootFile, []byte("alpha\n"), 0o666)
	os.Chmod(rootFile, 0o666)
	os.WriteFile(own, []byte("alpha\n"), 0o600)
	os.Chown(own, 65534, 65534)
	before, _ := os.Stat(rootFile)
	asNobody := func(args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = base
		cmd.Env = []string{"HOME=" + base, "PATH=" + os.Getenv("PATH")}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	edit := func(p string) string {
		return fmt.Sprintf(`{"file_path":%q,"old_string":"alpha","new_string":"beta"}`, p)
	}
	for _, p := range []string{rootFile, own} {
		if out, code := asNobody("call", "--cwd", base, "--no-claude-settings", "Read", fmt.Sprintf(`{"file_path":%q}`, p)); code != 0 {
			t.Fatalf("Read %s: %d %s", p, code, out)
		}
	}
	state := filepath.Join(base, "st.json")
	asNobody("call", "--cwd", base, "--no-claude-settings", "--state", state, "Read", fmt.Sprintf(`{"file_path":%q}`, rootFile))
	out, code := asNobody("call", "--cwd", base, "--no-claude-settings", "--state", state, "--mode", "accept_edits", "Edit", edit(rootFile))
	if code != 1 || !strings.Contains(out, "belongs to user root (uid 0)") || !strings.Contains(out, "left unchanged") {
		t.Errorf("Edit of root's file as nobody: exit %d\n%s", code, out)
	}
	after, _ := os.Stat(rootFile)
	if b, _ := os.ReadFile(rootFile); string(b) != "alpha\n" || after.Sys().(*syscall.Stat_t).Uid != 0 || !os.SameFile(before, after) {
		t.Errorf("root's file changed: %q owner %d", b, after.Sys().(*syscall.Stat_t).Uid)
	}
	asNobody("call", "--cwd", base, "--no-claude-settings", "--state", state, "Read", fmt.Sprintf(`{"file_path":%q}`, own))
	if out, code := asNobody("call", "--cwd", base, "--no-claude-settings", "--state", state, "--mode", "accept_edits", "Edit", edit(own)); code != 0 {
		t.Errorf("Edit of nobody's own file: %d %s", code, out)
	}
	// As root: nobody's file stays nobody's.
	rstate := filepath.Join(t.TempDir(), "st.json")
	for _, args := range [][]string{{"Read", fmt.Sprintf(`{"file_path":%q}`, own)}, {"Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"beta","new_string":"gamma"}`, own)}} {
		if out, code := cli(src, base, append([]string{"call", "--cwd", base, "--no-claude-settings", "--state", rstate, "--mode", "accept_edits"}, args...)...); code != 0 {
			t.Fatalf("as root %s: %d %s", args[0], code, out)
		}
	}
	fi, _ := os.Stat(own)
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 65534 || st.Gid != 65534 || fi.Mode().Perm() != 0o600 {
		t.Errorf("nobody's file after root's Edit: %d:%d %v", st.Uid, st.Gid, fi.Mode())
	}
	if b, _ := os.ReadFile(own); string(b) != "gamma\n" {
		t.Errorf("nobody's file: %q", b)
	}
}

// Two stdio servers sharing one --state file, each with concurrent task
// calls: every TaskCreate gets its own id and every reported change is in
// the file (the task tools run one at a time under the state's lock).
func TestServeStateTaskCallsLoseNothing(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(t.TempDir(), "st.json")
	sessions := []*sdk.ClientSession{
		serveStdio(t, nil, "--cwd", dir, "--state", state),
		serveStdio(t, nil, "--cwd", dir, "--state", state),
	}
	created := regexp.MustCompile(`Task \(id=(\d+)\) created successfully: (\S+)`)
	var mu sync.Mutex
	ids := map[string]string{}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				subj := fmt.Sprintf("w%d-%d", w, j)
				r, err := sessions[w%2].CallTool(context.Background(), &sdk.CallToolParams{Name: "TaskCreate", Arguments: map[string]any{"subject": subj, "description": "d"}})
				if err != nil || r.IsError {
					t.Errorf("TaskCreate: %v %+v", err, r)
					return
				}
				m := created.FindStringSubmatch(r.Content[0].(*sdk.TextContent).Text)
				mu.Lock()
				if m == nil || ids[m[1]] != "" {
					t.Errorf("create %s: %v (ids so far %d)", subj, m, len(ids))
				} else {
					ids[m[1]] = m[2]
				}
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	var file struct {
		Slots struct {
			Tasks []struct{ ID, Subject string } `json:"builtin.tasks"`
		} `json:"slots"`
	}
	b, _ := os.ReadFile(state)
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	st := file.Slots
	for _, task := range st.Tasks {
		if ids[task.ID] != task.Subject {
			t.Errorf("task %s is %q, reported %q", task.ID, task.Subject, ids[task.ID])
		}
	}
	if len(st.Tasks) != len(ids) || len(ids) != 80 {
		t.Errorf("%d tasks in the file, %d reported, want 80", len(st.Tasks), len(ids))
	}
}
