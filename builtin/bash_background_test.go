package builtin_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// bgEnv is an env whose tools run background shells; its state is closed
// (every shell killed) when the test ends.
func bgEnv(t *testing.T, mode permission.Mode) *env {
	e := newEnv(t, mode, &builtin.Options{Background: true})
	t.Cleanup(func() { e.st.Close() })
	return e
}

// start runs command in the background and returns its shell id.
func (e *env) start(command string, extra ...any) string {
	e.t.Helper()
	in := map[string]any{"command": command, "run_in_background": true}
	for i := 0; i+1 < len(extra); i += 2 {
		in[extra[i].(string)] = extra[i+1]
	}
	r := e.call("Bash", in)
	text := e.mustOK(r)
	id, ok := strings.CutPrefix(text, "Command running in background with ID: ")
	if !ok || r.Metadata["bash_id"] != id {
		e.t.Fatalf("Bash answered %q, metadata %v", text, r.Metadata)
	}
	return id
}

// waitFor calls BashOutput until cond holds of its answer, collecting
// the output of every answer; it fails the test after 20 seconds.
func (e *env) waitFor(id string, cond func(text string) bool) (last, all string) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		text := e.mustOK(e.call("BashOutput", map[string]any{"bash_id": id}))
		all += text + "\n"
		if cond(text) {
			return text, all
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("BashOutput(%s) never satisfied the condition; last answer:\n%s", id, text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// errHas checks that r is an error whose text has each of wants.
func (e *env) errHas(r *tool.Result, wants ...string) {
	e.t.Helper()
	if r.Status != tool.StatusError {
		e.t.Fatalf("%s: got %s %q, want an error", r.Name, r.Status, r.Text())
	}
	contains(e.t, r.Text(), wants...)
}

func ended(text string) bool { return !strings.Contains(text, "<status>running</status>") }

// groupGone reports whether no live process is left in process group
// pgid (zombies not yet reaped by init do not count).
func groupGone(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	ents, _ := os.ReadDir("/proc")
	for _, d := range ents {
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return false
		}
	}
	return true
}

func assertGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !groupGone(pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still has live processes", pgid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pgidOf reads "pgid N" from a shell's output.
func pgidOf(t *testing.T, out string) int {
	t.Helper()
	_, rest, ok := strings.Cut(out, "pgid ")
	if !ok {
		t.Fatalf("no pgid in %q", out)
	}
	n, err := strconv.Atoi(strings.Fields(rest)[0])
	if err != nil || n <= 1 {
		t.Fatalf("bad pgid in %q", out)
	}
	return n
}

const printPgid = `echo pgid $(cut -d' ' -f5 /proc/$$/stat); `

// TestBackgroundShell: Bash returns at once with an id; BashOutput gives
// the output new since the last read, the status while it runs, then
// the exit code once it ended.
func TestBackgroundShell(t *testing.T) {
	e := bgEnv(t, permission.Bypass)
	gate := e.path("gate")
	id := e.start(fmt.Sprintf(`echo start; echo err >&2; while [ ! -e %s ]; do sleep 0.02; done; echo done; exit 3`, gate))
	if id != "bash_1" {
		t.Errorf("first id %q, want bash_1", id)
	}
	_, all := e.waitFor(id, func(s string) bool { return strings.Contains(s, "err") || strings.Count(s, "\n") > 3 })
	contains(t, all, "<status>running</status>", "start\nerr")
	e.write("gate", "")
	last, all := e.waitFor(id, ended)
	contains(t, last, "<status>failed</status>", "<exit_code>3</exit_code>")
	if strings.Count(all, "done") != 1 || strings.Contains(all, "start") {
		t.Errorf("output read before is given again, or new output is missing:\n%s", all)
	}
	again := e.mustOK(e.call("BashOutput", map[string]any{"bash_id": id}))
	if again != "<status>failed</status>\n<exit_code>3</exit_code>" {
		t.Errorf("a read with nothing new: %q", again)
	}
	id2 := e.start("echo ok")
	last, all = e.waitFor(id2, ended)
	contains(t, last, "<status>completed</status>", "<exit_code>0</exit_code>")
	contains(t, all, "ok") // (in the read that saw it, maybe before the end)
	if id2 != "bash_2" {
		t.Errorf("second id %q", id2)
	}
}

// TestBackgroundFilter: only the lines the filter matches are returned;
// the others are consumed.
func TestBackgroundFilter(t *testing.T) {
	e := bgEnv(t, permission.Bypass)
	gate := e.path("gate")
	id := e.start(fmt.Sprintf(`printf 'a1\nb1\na2\n'; while [ ! -e %s ]; do sleep 0.02; done`, gate))
	time.Sleep(200 * time.Millisecond)
	e.write("gate", "")
	var text string
	for !strings.Contains(text, "<status>completed") {
		text += e.mustOK(e.call("BashOutput", map[string]any{"bash_id": id, "filter": "^a"}))
	}
	contains(t, text, "a1\na2\n")
	if strings.Contains(text, "b1") {
		t.Errorf("filtered out line returned: %q", text)
	}
	if text := e.mustOK(e.call("BashOutput", map[string]any{"bash_id": id})); strings.Contains(text, "b1") {
		t.Errorf("filtered out line returned later: %q", text)
	}
	e.errHas(e.call("BashOutput", map[string]any{"bash_id": id, "filter": "("}), "Invalid filter regex")
}

// TestKillShell: KillShell stops the shell with everything it started
// (a background job in its group included), and returns once they are
// gone; the shell is then "killed", and a second kill is an error.
func TestKillShell(t *testing.T) {
	e := bgEnv(t, permission.Bypass)
	id := e.start(printPgid + `sleep 1000 & echo child $!; sleep 1000`)
	_, all := e.waitFor(id, func(s string) bool { return strings.Contains(s, "child") })
	pgid := pgidOf(t, all)
	r := e.call("KillShell", map[string]any{"shell_id": id})
	contains(t, e.mustOK(r), "Successfully killed shell: "+id)
	if !groupGone(pgid) {
		t.Errorf("KillShell returned with process group %d still alive", pgid)
	}
	last, _ := e.waitFor(id, ended)
	contains(t, last, "<status>killed</status>")
	e.errHas(e.call("KillShell", map[string]any{"shell_id": id}), "Shell "+id+" is not running: it was already killed.")
	done := e.start("true")
	e.waitFor(done, ended)
	e.errHas(e.call("KillShell", map[string]any{"shell_id": done}), "it completed with exit code 0")
}

// TestBackgroundStateClose: closing the agent's state (its owner ending:
// a serve session, an agent) kills every running shell with its group;
// the state then starts none.
func TestBackgroundStateClose(t *testing.T) {
	e := bgEnv(t, permission.Bypass)
	var pgids []int
	for range 2 {
		id := e.start(printPgid + `sleep 1000`)
		_, all := e.waitFor(id, func(s string) bool { return strings.Contains(s, "pgid") })
		pgids = append(pgids, pgidOf(t, all))
	}
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, g := range pgids {
		if !groupGone(g) {
			t.Errorf("State.Close returned with process group %d alive", g)
		}
	}
	r := e.call("Bash", map[string]any{"command": "echo x", "run_in_background": true})
	e.errHas(r, "this call's agent state is closed")
}

// TestBackgroundTimeout: a timeout, when given, stops a background shell
// and its group; the shell has failed and says it timed out.
func TestBackgroundTimeout(t *testing.T) {
	e := bgEnv(t, permission.Bypass)
	id := e.start(printPgid+`sleep 1000`, "timeout", 300)
	last, all := e.waitFor(id, ended)
	contains(t, last, "<status>failed</status>", "Command timed out after 300ms.")
	assertGone(t, pgidOf(t, all))
}

// TestBackgroundLimit: at most MaxBackgroundShells run per agent; the
// next is refused with the running ones named; another agent has its
// own count and ids.
func TestBackgroundLimit(t *testing.T) {
	e := bgEnv(t, permission.Bypass)
	for range builtin.MaxBackgroundShells {
		e.start("sleep 1000")
	}
	r := e.call("Bash", map[string]any{"command": "echo one more", "run_in_background": true})
	e.errHas(r, "8 background shells are running, the most one agent may have: bash_1 (running: sleep 1000);")
	other := tool.NewState(&permission.Context{Mode: permission.Bypass})
	defer other.Close()
	r2, err := e.tk.Call(t.Context(), &tool.Call{ID: "o", Name: "Bash", Input: []byte(`{"command":"echo other","run_in_background":true}`), State: other})
	if err != nil || r2.Status != tool.StatusSuccess || !strings.HasSuffix(r2.Text(), "bash_1") {
		t.Errorf("another agent's first shell: %v %s %q", err, r2.Status, r2.Text())
	}
	e.mustOK(e.call("KillShell", map[string]any{"shell_id": "bash_3"}))
	e.start("echo now")
}

// TestBackgroundUnknownID: an unknown id is an error naming the agent's
// shells; another agent's ids are unknown (it can neither read nor kill
// them).
func TestBackgroundUnknownID(t *testing.T) {
	e := bgEnv(t, permission.Bypass)
	e.errHas(e.call("BashOutput", map[string]any{"bash_id": "bash_1"}), `No background shell with id "bash_1": this agent has none`)
	e.errHas(e.call("KillShell", map[string]any{"shell_id": "bash_1"}), `this agent has none`)
	id := e.start("sleep 1000")
	e.errHas(e.call("BashOutput", map[string]any{"bash_id": "bash_9"}), `No background shell with id "bash_9". This agent's shells: bash_1 (running: sleep 1000)`)
	e.errHas(e.call("KillShell", map[string]any{"shell_id": "nope"}), `This agent's shells: bash_1 (running: sleep 1000)`)
	other := tool.NewState(&permission.Context{Mode: permission.Bypass})
	defer other.Close()
	for _, c := range []*tool.Call{
		{ID: "o1", Name: "BashOutput", Input: []byte(`{"bash_id":"` + id + `"}`), State: other},
		{ID: "o2", Name: "KillShell", Input: []byte(`{"shell_id":"` + id + `"}`), State: other},
	} {
		r, err := e.tk.Call(t.Context(), c)
		if err != nil || r.Status != tool.StatusError || !strings.Contains(r.Text(), "this agent has none") {
			t.Errorf("%s of another agent's shell: %v %s %q", c.Name, err, r.Status, r.Text())
		}
	}
	if text := e.mustOK(e.call("BashOutput", map[string]any{"bash_id": id})); !strings.Contains(text, "<status>running</status>") {
		t.Errorf("the shell after the other agent's calls: %q", text)
	}
}

// TestBackgroundRefusedWithoutOption: without Options.Background (one
// process per call: toolscope call), run_in_background is refused with
// an error saying what to do, and nothing runs.
func TestBackgroundRefusedWithoutOption(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	r := e.call("Bash", map[string]any{"command": "touch made", "run_in_background": true})
	e.errHas(r, "run_in_background is not available here", "Run the command in the foreground")
	if strings.Contains(r.Text(), "not known") {
		t.Errorf("run_in_background called unknown: %q", r.Text())
	}
	if _, err := os.Stat(e.path("made")); err == nil {
		t.Error("the command ran")
	}
}

// TestBackgroundJudged: a background command is judged like any Bash
// call: one that needs approval waits for it (and does not start), a
// denied one does not run, a read-only one runs without asking.
func TestBackgroundJudged(t *testing.T) {
	e := bgEnv(t, permission.Default)
	r := e.call("Bash", map[string]any{"command": "touch made", "run_in_background": true})
	if r.Status != tool.StatusAsking {
		t.Errorf("touch in the background, default mode: %s %q", r.Status, r.Text())
	}
	e.st.AddRule(permission.Rule{Tool: "Bash", Content: "rm:*", Behavior: permission.Deny})
	r = e.call("Bash", map[string]any{"command": "echo x; rm -f made", "run_in_background": true})
	if r.Status != tool.StatusDenied {
		t.Errorf("denied command in the background: %s %q", r.Status, r.Text())
	}
	e.errHas(e.call("BashOutput", map[string]any{"bash_id": "bash_1"}), "this agent has none")
	id := e.start("ls")
	last, _ := e.waitFor(id, ended)
	contains(t, last, "<status>completed</status>")
	if _, err := os.Stat(e.path("made")); err == nil {
		t.Error("a command that needed approval ran")
	}
	// BashOutput and KillShell need no approval; BashOutput only reads,
	// so explore mode allows it, and not KillShell.
	e.mustOK(e.call("BashOutput", map[string]any{"bash_id": id}))
	e.errHas(e.call("KillShell", map[string]any{"shell_id": id}), "is not running")
	e.st.SetPermissions(&permission.Context{Mode: permission.Explore})
	e.mustOK(e.call("BashOutput", map[string]any{"bash_id": id}))
	if r := e.call("KillShell", map[string]any{"shell_id": id}); r.Status != tool.StatusDenied {
		t.Errorf("KillShell in explore mode: %s %q", r.Status, r.Text())
	}
}

// TestBackgroundOutputBounded: a background shell printing 1 GB keeps at
// most MaxShellOutput bytes: BashOutput gives the last of them and says
// how much was dropped, and the heap stays small while it runs.
func TestBackgroundOutputBounded(t *testing.T) {
	size := int64(1e9)
	if testing.Short() || raceEnabled {
		size = 64 << 20 // the race detector makes 1 GB slow
	}
	e := bgEnv(t, permission.Bypass)
	id := e.start(fmt.Sprintf(`head -c %d /dev/zero | tr '\0' a; echo; echo end`, size))
	var peak uint64
	var ms runtime.MemStats
	deadline := time.Now().Add(120 * time.Second)
	var kept, dropped int64
	var last, tail string
	for !strings.Contains(last, "<status>completed") {
		if time.Now().After(deadline) {
			t.Fatalf("the shell did not end; last answer %.300q", last)
		}
		time.Sleep(50 * time.Millisecond)
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
		r := e.call("BashOutput", map[string]any{"bash_id": id})
		last = e.mustOK(r)
		tail = (tail + last)[max(0, len(tail)+len(last)-100):]
		if i := strings.Index(last, "<output>\n"); i >= 0 {
			out := last[i+len("<output>\n") : strings.LastIndex(last, "\n</output>")]
			if len(out) > builtin.MaxShellOutput {
				t.Errorf("%d bytes of output in one answer, more than %d", len(out), builtin.MaxShellOutput)
			}
		}
		n := r.Metadata["read_bytes"].(int)
		if n > builtin.MaxShellOutput {
			t.Errorf("%d bytes read at once, more than %d", n, builtin.MaxShellOutput)
		}
		kept += int64(n)
		if d, ok := r.Metadata["dropped_bytes"].(int64); ok {
			dropped += d
			contains(t, last, fmt.Sprintf("<dropped>%d bytes of output were dropped", d))
		}
	}
	contains(t, tail, "end\n</output>")
	if dropped == 0 || dropped+kept != size+5 {
		t.Errorf("dropped %d + kept %d != printed %d", dropped, kept, size+5)
	}
	t.Logf("%d bytes through a background shell; peak heap in use %.1f MB", size, float64(peak)/(1<<20))
	if !raceEnabled && peak > 64<<20 {
		t.Errorf("peak heap in use %d bytes > 64 MB", peak)
	}
}

// TestBackgroundSandboxed: a background shell runs in the OS sandbox,
// exactly like a foreground command: it cannot read the user's secrets
// or write outside the project, and its work inside stays.
func TestBackgroundSandboxed(t *testing.T) {
	s := newSandboxed(t, permission.Bypass, nil, &builtin.Options{Background: true})
	t.Cleanup(func() { s.st.Close() })
	id := s.start(`cat ~/.ssh/id_rsa; echo evil >> ~/.bashrc; echo inside > ok.txt; echo ready; sleep 1000`)
	_, all := s.waitFor(id, func(x string) bool { return strings.Contains(x, "ready") })
	if strings.Contains(all, "FAKE PRIVATE KEY") {
		t.Errorf("a background shell read ~/.ssh/id_rsa:\n%s", all)
	}
	s.mustOK(s.call("KillShell", map[string]any{"shell_id": id}))
	r := s.call("BashOutput", map[string]any{"bash_id": id})
	sb, _ := r.Metadata["sandbox"].(map[string]any)
	if sb == nil || sb["enabled"] != true {
		t.Errorf("BashOutput metadata lacks the sandbox: %v", r.Metadata)
	}
	if got := s.read("ok.txt"); got != "inside\n" {
		t.Errorf("ok.txt = %q", got)
	}
	s.unchanged("background shell")
}

// TestBackgroundCloseWhileStarting: a state closed while calls start
// shells leaves none running: each start either failed (the session
// ended) or its shell was killed by Close.
func TestBackgroundCloseWhileStarting(t *testing.T) {
	e := bgEnv(t, permission.Bypass)
	const marker = "1234.5678"
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := e.tk.Call(t.Context(), &tool.Call{ID: "c", Name: "Bash", Input: []byte(`{"command":"sleep ` + marker + `","run_in_background":true}`), State: e.st})
			if err != nil {
				t.Error(err)
			} else if r.Status != tool.StatusSuccess && !strings.Contains(r.Text(), "state is closed") && !strings.Contains(r.Text(), "session has ended") {
				t.Errorf("start: %s %q", r.Status, r.Text())
			}
		}()
	}
	time.Sleep(30 * time.Millisecond)
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := 0
		ents, _ := os.ReadDir("/proc")
		for _, d := range ents {
			b, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
			if err == nil && strings.Contains(string(b), marker) {
				if st, err := os.ReadFile("/proc/" + d.Name() + "/stat"); err == nil && !strings.Contains(string(st), ") Z ") {
					left++
				}
			}
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d processes of background shells outlived State.Close", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const bgExitChildEnv = "TOOLSCOPE_TEST_BG_EXIT_CHILD"

// TestBackgroundEndsWithProcess: a program that exits without closing
// the state (or is killed) leaves no background shell behind: the shell
// runs under proc's helper, which ends it when its caller goes.
func TestBackgroundEndsWithProcess(t *testing.T) {
	if file := os.Getenv(bgExitChildEnv); file != "" {
		e := newEnv(t, permission.Bypass, &builtin.Options{Background: true})
		// The marker (a sleep of a length no other process has) finds the
		// shell's process from outside whatever PID namespace it runs in
		// (as a user, proc's helper may run it in one of its own).
		e.start(`echo started > ` + file + `.tmp && mv ` + file + `.tmp ` + file + `; exec sleep ` + os.Getenv(bgExitChildEnv+"_MARK"))
		for {
			if b, err := os.ReadFile(file); err == nil && len(b) > 0 {
				if os.Getenv(bgExitChildEnv+"_STAY") != "" {
					select {} // until killed
				}
				os.Exit(0) // no State.Close
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, how := range []string{"exit", "SIGKILL"} {
		t.Run(how, func(t *testing.T) {
			file := t.TempDir() + "/started"
			mark := fmt.Sprintf("1000.%d%d", os.Getpid(), time.Now().UnixNano()%1_000_000)
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBackgroundEndsWithProcess$", "-test.count=1")
			// The child exits without its test's cleanup: its temporary
			// directories go inside this test's, which are removed.
			cmd.Env = append(os.Environ(), bgExitChildEnv+"="+file, bgExitChildEnv+"_MARK="+mark, "TMPDIR="+filepath.Dir(file))
			if how == "SIGKILL" {
				cmd.Env = append(cmd.Env, bgExitChildEnv+"_STAY=1")
			}
			if how == "SIGKILL" {
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				for {
					if b, err := os.ReadFile(file); err == nil && len(b) > 0 {
						// (The file is written just before the exec.)
						for deadline := time.Now().Add(5 * time.Second); marked(mark) == 0; time.Sleep(10 * time.Millisecond) {
							if time.Now().After(deadline) {
								t.Fatalf("the shell (sleep %s) is not seen before the kill: the check sees nothing", mark)
							}
						}
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
				cmd.Process.Kill()
				cmd.Wait()
			} else if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			for deadline := time.Now().Add(10 * time.Second); marked(mark) > 0; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the background shell (sleep %s) outlived its process (%s)", mark, how)
				}
			}
		})
	}
}

// marked counts the live processes whose command line holds mark.
func marked(mark string) int {
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, d := range ents {
		b, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), mark) {
			if st, err := os.ReadFile("/proc/" + d.Name() + "/stat"); err == nil && !strings.Contains(string(st), ") Z ") {
				n++
			}
		}
	}
	return n
}

// TestBackgroundInputErrors: a call without the agent's state, and input
// the schemas refuse.
func TestBackgroundInputErrors(t *testing.T) {
	e := bgEnv(t, permission.Bypass)
	r, err := e.tk.Call(t.Context(), &tool.Call{ID: "n", Name: "Bash", Input: []byte(`{"command":"echo x","run_in_background":true}`)})
	if err != nil || r.Status != tool.StatusError || !strings.Contains(r.Text(), "the call came without one") {
		t.Errorf("Bash in the background without a state: %v %s %q", err, r.Status, r.Text())
	}
	for _, c := range []struct{ name, input string }{
		{"BashOutput", `{}`},
		{"BashOutput", `{"bash_id":""}`},
		{"BashOutput", `{"bash_id":"bash_1","filter":3}`},
		{"KillShell", `{}`},
		{"KillShell", `{"shell_id":7}`},
		{"Bash", `{"command":"echo x","run_in_background":"yes"}`},
	} {
		r := e.call(c.name, c.input)
		if r.Status != tool.StatusError {
			t.Errorf("%s %s: %s %q", c.name, c.input, r.Status, r.Text())
		}
	}
}
