package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/internal/testproc"
)

// buildCLI returns the CLI binary, built without the race detector (under
// -race the test binary itself starts too slowly for hundreds of runs),
// once per test run and linked into t's temporary directory. Without go at
// hand it returns "" and cli runs the test binary as the CLI (see TestMain).
func buildCLI(t *testing.T) string {
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "toolscope-cli-test-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		bin := filepath.Join(dir, "toolscope")
		if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/toolscope").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("%v: %s", err, out)
			return
		}
		built.bin = bin
	})
	if built.err != nil {
		t.Logf("building the CLI: %v; running the test binary instead", built.err)
		return ""
	}
	bin := filepath.Join(t.TempDir(), "toolscope")
	if err := os.Link(built.bin, bin); err != nil {
		b, err := os.ReadFile(built.bin)
		if err == nil {
			err = os.WriteFile(bin, b, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// built is the CLI binary buildCLI made; TestMain removes its directory.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// cli runs the CLI binary bin in a process of its own, in dir.
func cli(bin, dir string, args ...string) (string, int) {
	env := os.Environ()
	if bin == "" {
		bin, env = os.Args[0], append(env, "TOOLSCOPE_TEST_AS_CLI=1")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return out.String(), code
}

// Processes that share one --state file and Edit one file after one
// shared Read never lose an update: every call that exits 0 has its change
// in the final file; the others are refused as stale (exit 1).
func TestCrossProcessEditsLoseNothing(t *testing.T) {
	trials, n := 8, 6
	bin := buildCLI(t)
	if testing.Short() {
		trials = 2
	}
	for trial := 0; trial < trials; trial++ {
		dir := t.TempDir()
		f := filepath.Join(dir, "f.txt")
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		os.WriteFile(f, []byte(b.String()), 0o644)
		state := filepath.Join(dir, "st.json")
		if out, code := cli(bin, dir, "call", "--state", state, "Read", fmt.Sprintf(`{"file_path":%q}`, f)); code != 0 {
			t.Fatalf("Read: %d %s", code, out)
		}
		codes := make([]int, n)
		outs := make([]string, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				in := fmt.Sprintf(`{"file_path":%q,"old_string":"line %d\n","new_string":"LINE %d\n"}`, f, i, i)
				outs[i], codes[i] = cli(bin, dir, "call", "--mode", "bypass", "--state", state, "Edit", in)
			}(i)
		}
		wg.Wait()
		final, _ := os.ReadFile(f)
		ok := 0
		for i := 0; i < n; i++ {
			switch codes[i] {
			case 0:
				ok++
				if !strings.Contains(string(final), fmt.Sprintf("LINE %d\n", i)) {
					t.Fatalf("trial %d: edit %d exited 0 but is not in the file:\n%s", trial, i, final)
				}
			case 1:
				if !strings.Contains(outs[i], "modified since it was last read") && !strings.Contains(outs[i], "must first read it") {
					t.Errorf("edit %d: exit 1 with %q", i, outs[i])
				}
			default:
				t.Errorf("edit %d: exit %d: %s", i, codes[i], outs[i])
			}
		}
		if ok == 0 {
			t.Fatalf("trial %d: no edit succeeded", trial)
		}
		if _, err := host.NewStateFile(state).Load(); err != nil {
			t.Fatalf("the state is not readable after the run: %v", err)
		}
	}
}

// Four loops of CLI calls sharing one state file: every call succeeds,
// the state stays a valid state, every loop's reads are recorded (a save
// merges into what the others saved meanwhile), and no temporary file is
// left.
func TestStateUnderConcurrentLoops(t *testing.T) {
	loops, calls := 4, 150
	if raceEnabled {
		// What crosses processes is the file, which the race detector
		// does not watch: fewer rounds keep make test short, and the
		// plain go test ./... runs them all.
		calls = 50
	}
	bin := buildCLI(t)
	if testing.Short() {
		calls = 20
	}
	dir := t.TempDir()
	state := filepath.Join(dir, "st.json")
	var wg sync.WaitGroup
	errs := make(chan string, loops*calls)
	const files = 20 // per loop: 4 × 20 read records fit the state's 100
	os.WriteFile(filepath.Join(dir, "common.txt"), []byte("x\n"), 0o644)
	for l := 0; l < loops; l++ {
		for k := 0; k < files; k++ {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d-%d.txt", l, k)), []byte("x\n"), 0o644)
		}
		wg.Add(1)
		go func(l int) {
			defer wg.Done()
			for c := 0; c < calls; c++ {
				// The same file, then each of the loop's own files once:
				// a read record lost by a racing save is not read again.
				f := filepath.Join(dir, "common.txt")
				if k := c - (calls - files); k >= 0 {
					f = filepath.Join(dir, fmt.Sprintf("f%d-%d.txt", l, k))
				}
				if out, code := cli(bin, dir, "call", "--state", state, "Read", fmt.Sprintf(`{"file_path":%q}`, f)); code != 0 {
					errs <- fmt.Sprintf("loop %d call %d: exit %d: %s", l, c, code, out)
					return
				}
			}
		}(l)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	b, err := os.ReadFile(state)
	if err != nil || !json.Valid(b) {
		t.Fatalf("state after the loops: %v\n%s", err, b)
	}
	snap, err := host.NewStateFile(state).Load()
	if err != nil {
		t.Fatal(err)
	}
	st := snap.State
	for l := 0; l < loops; l++ {
		for k := 0; k < files && k < calls; k++ {
			f, _ := filepath.EvalSymlinks(filepath.Join(dir, fmt.Sprintf("f%d-%d.txt", l, k)))
			if _, ok := builtin.DataOf(st).LastRead(f); !ok {
				t.Errorf("the state lost loop %d's read of %s", l, filepath.Base(f))
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") || strings.HasPrefix(e.Name(), ".toolscope") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// SIGTERM or SIGHUP to the CLI during a Bash call ends it as Ctrl-C does:
// the command's processes (those that left its group too) are gone, no
// temporary file is left, and the state is saved.
func TestSignalsEndTheCall(t *testing.T) {
	bin := buildCLI(t)
	if bin == "" {
		t.Skip("needs the CLI built: main's signal handling is not in the test binary")
	}
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		dir := t.TempDir()
		tmp := t.TempDir()
		state := filepath.Join(dir, "st.json")
		arg := fmt.Sprintf("1004.%d", i+1)
		cmd := exec.Command(bin, "call", "--mode", "bypass", "--state", state, "Bash",
			fmt.Sprintf(`{"command":"setsid -f sleep %s >/dev/null 2>&1; sleep %s"}`, arg, arg))
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the command to be running.
		deadline := time.Now().Add(5 * time.Second)
		for len(processesWith(arg)) < 2 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: the CLI did not end", sig)
		}
		if left := processesWith(arg); len(left) > 0 {
			for _, p := range left {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Errorf("%v: processes left: %v", sig, left)
		}
		if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
			t.Errorf("%v: temporary files left: %v", sig, ents)
		}
		if _, err := host.NewStateFile(state).Load(); err != nil {
			t.Errorf("%v: state: %v", sig, err)
		} else if _, err := os.Stat(state); err != nil {
			t.Errorf("%v: the state was not saved: %v", sig, err)
		}
	}
}

// processesWith returns the live processes whose command line holds arg,
// the CLI's own (and the Bash tool's wrapper shell) aside.
func processesWith(arg string) []int { return testproc.With(arg, "toolscope") }
