package proc

import (
	"bytes"
	"context"
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
	"unicode/utf8"
)

// hangGuard returns a context that is cancelled shortly before the test's
// deadline (or after a generous minute). It only keeps a broken
// implementation from hanging the run; no test asserts on speed.
func hangGuard(t *testing.T) context.Context {
	t.Helper()
	d := time.Now().Add(time.Minute)
	if td, ok := t.Deadline(); ok && td.Add(-10*time.Second).Before(d) {
		d = td.Add(-10 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func run(t *testing.T, command string, opts *Options) *Result {
	t.Helper()
	res, err := Run(hangGuard(t), command, opts, nil)
	if err != nil {
		t.Fatalf("Run(%q): %v", command, err)
	}
	if res.Canceled {
		t.Fatalf("Run(%q) hit the hang guard: %+v", command, res)
	}
	return res
}

// pgidFrom parses the shell pid (== pgid) the command printed first via `echo $$`.
func pgidFrom(t *testing.T, out string) int {
	t.Helper()
	line, _, _ := strings.Cut(out, "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 1 {
		t.Fatalf("no pid in output %q", out)
	}
	return pid
}

// procStat returns (state, ppid, pgrp) of pid from /proc.
func procStat(pid int) (state byte, ppid, pgrp int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return 0, 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	pgrp, _ = strconv.Atoi(f[2])
	return f[0][0], ppid, pgrp, true
}

// assertGroupGone checks that no process of the group survives: kill(-pgid,0)
// fails with ESRCH, or every /proc entry of that group is a zombie orphan
// waiting for init to reap it (some inits reap late). It also checks that the
// test process itself has no zombie children (Run reaps the shell).
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if err := syscall.Kill(-pgid, 0); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(-%d, 0) = %v", pgid, err)
	}
	if _, _, _, ok := procStat(pgid); ok {
		t.Errorf("the shell (pid %d) was not reaped", pgid)
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, ppid, pgrp, ok := procStat(pid)
		if !ok {
			continue
		}
		if pgrp == pgid && state != 'Z' {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			t.Errorf("process %d (%q, state %c) of group %d survived", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}), state, pgid)
		}
		if ppid == os.Getpid() && state == 'Z' {
			t.Errorf("zombie child %d", pid)
		}
	}
}

func TestExitCodes(t *testing.T) {
	for _, shell := range []string{"", "/bin/sh"} {
		for _, tc := range []struct {
			cmd  string
			code int
		}{
			{"true", 0},
			{"false", 1},
			{"exit 7", 7},
			{"echo out; exit 7", 7},
			{"toolscope_no_such_command_xyz", 127},
		} {
			t.Run(fmt.Sprintf("%s/%s", shell, tc.cmd), func(t *testing.T) {
				res := run(t, tc.cmd, &Options{Shell: shell})
				if res.ExitCode != tc.code || res.Signal != "" || res.TimedOut || res.Canceled {
					t.Errorf("got %+v, want exit code %d", res, tc.code)
				}
				if tc.code == 127 && !strings.Contains(res.Output(), "not found") {
					t.Errorf("output %q does not mention 'not found'", res.Output())
				}
			})
		}
	}
}

func TestCombinedOutputOrder(t *testing.T) {
	res := run(t, "echo a; echo b >&2; echo c", nil)
	if res.Head != "a\nb\nc\n" || res.Output() != res.Head || res.Total != 6 || res.Dropped != 0 || res.Tail != "" {
		t.Errorf("got %+v", res)
	}
}

func TestStdinIsDevNull(t *testing.T) {
	res := run(t, "cat; echo done", nil)
	if res.ExitCode != 0 || res.Head != "done\n" {
		t.Errorf("got %+v", res)
	}
}

func TestDirAndEnv(t *testing.T) {
	dir := t.TempDir()
	res := run(t, `pwd -P; echo "$TOOLSCOPE_X"`, &Options{Dir: dir, Env: []string{"TOOLSCOPE_X=42", "PATH=" + os.Getenv("PATH")}})
	want, _ := filepath.EvalSymlinks(dir)
	if res.Head != want+"\n42\n" {
		t.Errorf("got %q, want dir %q and 42", res.Head, want)
	}
}

func TestInfrastructureErrors(t *testing.T) {
	if _, err := Run(context.Background(), "true", &Options{Shell: "/nonexistent/toolscope-sh"}, nil); err == nil {
		t.Error("missing shell: no error")
	}
	if _, err := Run(context.Background(), "true", &Options{Dir: "/nonexistent/toolscope-dir"}, nil); err == nil {
		t.Error("missing dir: no error")
	}
}

func TestDefaultShell(t *testing.T) {
	s := DefaultShell()
	if p, err := exec.LookPath("bash"); err == nil {
		if s != p {
			t.Errorf("DefaultShell() = %q, want %q", s, p)
		}
	} else if s != "/bin/sh" {
		t.Errorf("DefaultShell() = %q, want /bin/sh", s)
	}
	t.Setenv("PATH", t.TempDir())
	if s := DefaultShell(); s != "/bin/sh" {
		t.Errorf("without bash in PATH: DefaultShell() = %q, want /bin/sh", s)
	}
}

// TestStreaming: the command prints a line and then blocks until the test,
// on receiving that line through onOutput, creates a file. The command can
// only finish if output was delivered while it was running.
func TestStreaming(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	cmd := fmt.Sprintf(`echo first; while [ ! -e %s ]; do sleep 0.01; done; echo second`, shQuote(gate))
	var chunks []string
	res, err := Run(hangGuard(t), cmd, nil, func(s string) {
		chunks = append(chunks, s)
		if len(chunks) == 1 {
			if s != "first\n" {
				t.Errorf("first chunk %q", s)
			}
			if err := os.WriteFile(gate, nil, 0o600); err != nil {
				t.Error(err)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Canceled || res.ExitCode != 0 || res.Head != "first\nsecond\n" || strings.Join(chunks, "") != res.Head {
		t.Errorf("got %+v, chunks %q", res, chunks)
	}
}

// TestStreamingSplitRune: a rune whose bytes arrive in two separate reads is
// carried over, not broken and not streamed half. The second half is only
// printed after the test has seen the first chunk, so the split is certain.
func TestStreamingSplitRune(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	cmd := fmt.Sprintf(`printf 'x\342'; while [ ! -e %s ]; do sleep 0.01; done; printf '\202\254y'`, shQuote(gate))
	var chunks []string
	res, err := Run(hangGuard(t), cmd, nil, func(s string) {
		chunks = append(chunks, s)
		if !utf8.ValidString(s) {
			t.Errorf("invalid chunk %q", s)
		}
		if len(chunks) == 1 {
			if s != "x" {
				t.Errorf("first chunk %q, want %q", s, "x")
			}
			os.WriteFile(gate, nil, 0o600)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Head != "x€y" || strings.Join(chunks, "") != res.Head || res.Total != 5 {
		t.Errorf("got %+v, chunks %q", res, chunks)
	}
}

func TestTimeoutKillsGroup(t *testing.T) {
	res := run(t, "echo $$; sleep 100 & sleep 100", &Options{Timeout: 200 * time.Millisecond})
	if !res.TimedOut || res.Canceled || res.ExitCode != -1 || res.Signal != "terminated" {
		t.Errorf("got %+v", res)
	}
	assertGroupGone(t, pgidFrom(t, res.Head))
}

// TestTimeoutEscalatesToKill: processes that ignore SIGTERM get SIGKILL after KillGrace.
func TestTimeoutEscalatesToKill(t *testing.T) {
	res := run(t, "trap '' TERM; echo $$; sleep 100 & sleep 100", &Options{Timeout: 100 * time.Millisecond, KillGrace: 100 * time.Millisecond})
	if !res.TimedOut || res.ExitCode != -1 || res.Signal != "killed" {
		t.Errorf("got %+v", res)
	}
	assertGroupGone(t, pgidFrom(t, res.Head))
}

func TestCancelKillsGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(hangGuard(t))
	defer cancel()
	res, err := Run(ctx, "echo $$; sleep 100 & sleep 100", nil, func(string) { cancel() })
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled || res.TimedOut || res.ExitCode != -1 || res.Signal != "terminated" {
		t.Errorf("got %+v", res)
	}
	assertGroupGone(t, pgidFrom(t, res.Head))
}

func TestAlreadyCanceled(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, "touch "+shQuote(marker), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled || res.ExitCode != -1 {
		t.Errorf("got %+v", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("command ran although ctx was already cancelled")
	}
}

// TestBackgroundJobKilledAfterExit: the shell exits normally while a
// background job still holds the output pipe; Run must terminate the job and
// return (the hang guard would report Canceled otherwise).
func TestBackgroundJobKilledAfterExit(t *testing.T) {
	for _, tc := range []struct{ name, cmd string }{
		{"plain", "echo $$; sleep 100 &"},
		{"ignores TERM", "trap '' TERM; echo $$; sleep 100 & echo started"},
		{"subshell", "echo $$; (sleep 100; echo never) & (while :; do sleep 1; done) &"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.cmd, &Options{KillGrace: 200 * time.Millisecond})
			if res.ExitCode != 0 || res.TimedOut || res.Signal != "" || strings.Contains(res.Head, "never") {
				t.Errorf("got %+v", res)
			}
			assertGroupGone(t, pgidFrom(t, res.Head))
		})
	}
}

// TestPipeHeldOutsideGroup: a process that left the group (setsid) keeps the
// pipe open; Run must still return once the group is gone.
func TestPipeHeldOutsideGroup(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not available")
	}
	res := run(t, "echo $$; setsid sleep 100 & echo $!", nil)
	lines := strings.Fields(res.Head)
	if len(lines) != 2 {
		t.Fatalf("output %q", res.Head)
	}
	outsider, _ := strconv.Atoi(lines[1])
	if outsider > 0 {
		defer syscall.Kill(outsider, syscall.SIGKILL)
	}
	if res.ExitCode != 0 {
		t.Errorf("got %+v", res)
	}
	assertGroupGone(t, pgidFrom(t, res.Head))
}

func TestHeadTailDropped(t *testing.T) {
	// seq output is known exactly; compute the expectation in Go.
	var all strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&all, "%d\n", i)
	}
	want := all.String()
	res := run(t, "seq 1 20000", &Options{HeadLimit: 1000, TailLimit: 500})
	if res.Total != int64(len(want)) || res.Head != want[:1000] || res.Tail != want[len(want)-500:] ||
		res.Dropped != int64(len(want)-1500) {
		t.Errorf("got head %d tail %d dropped %d total %d", len(res.Head), len(res.Tail), res.Dropped, res.Total)
	}
	marker := fmt.Sprintf("\n... [%d bytes of output dropped] ...\n", len(want)-1500)
	if res.Output() != want[:1000]+marker+want[len(want)-500:] {
		t.Errorf("Output() = %q", res.Output())
	}

	res = run(t, "head -c 100000 /dev/zero | tr '\\0' a", nil) // defaults 20000/10000
	if res.Total != 100000 || len(res.Head) != 20000 || len(res.Tail) != 10000 || res.Dropped != 70000 ||
		strings.Trim(res.Head+res.Tail, "a") != "" {
		t.Errorf("defaults: head %d tail %d dropped %d total %d", len(res.Head), len(res.Tail), res.Dropped, res.Total)
	}

	res = run(t, "printf 0123456789", &Options{HeadLimit: 4, TailLimit: 6})
	if res.Head != "0123" || res.Tail != "456789" || res.Dropped != 0 || res.Output() != "0123456789" {
		t.Errorf("exact fit: %+v", res)
	}
}

func TestInvalidUTF8(t *testing.T) {
	res := run(t, `printf 'a\377\376b'`, nil)
	if res.Head != "a\uFFFD\uFFFDb" || res.Total != 4 {
		t.Errorf("got %q total %d", res.Head, res.Total)
	}
}

func TestRuneAtHeadBoundary(t *testing.T) {
	// "ab€cd": € occupies bytes 2..4, so a 4-byte head must stop after "ab".
	res := run(t, `printf 'ab\342\202\254cd'`, &Options{HeadLimit: 4, TailLimit: 100})
	if res.Head != "ab" || res.Tail != "€cd" || res.Dropped != 0 {
		t.Errorf("got %+v", res)
	}
	// Tail start inside a rune: the partial rune is dropped, not broken.
	res = run(t, `printf 'ab\342\202\254\342\202\254'`, &Options{HeadLimit: 2, TailLimit: 5})
	if res.Head != "ab" || res.Tail != "€" || res.Dropped != 3 {
		t.Errorf("tail: got %+v", res)
	}
}

func TestCRLF(t *testing.T) {
	res := run(t, `printf 'a\r\nb\r\nprogress\rdone\r\n'`, nil)
	if res.Head != "a\nb\nprogress\rdone\n" {
		t.Errorf("got %q", res.Head)
	}
}

func TestTrackDir(t *testing.T) {
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	sub := filepath.Join(base, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, shell := range []string{"", "/bin/sh"} {
		for _, tc := range []struct {
			name, cmd, out, dir string
			code                int
		}{
			{"no cd", "true", "", base, 0},
			{"cd", "cd sub", "", sub, 0},
			{"cd then exit 3", "cd sub; exit 3", "", sub, 3},
			{"cd then fail", "cd sub && false", "", sub, 1},
			{"status preserved", "cd sub; (exit 42)", "", sub, 42},
			{"own exit trap", "cd sub; trap 'echo bye' EXIT", "bye\n", sub, 0},
			{"noclobber", "set -C; cd sub", "", sub, 0},
			{"errexit", "set -e; cd sub; false; echo no", "", sub, 1},
			{"positional params hidden", `echo "[$#][$1]"`, "[0][]\n", base, 0},
			{"multi-line", "cd sub\necho hi", "hi\n", sub, 0},
		} {
			t.Run(shell+"/"+tc.name, func(t *testing.T) {
				res := run(t, tc.cmd, &Options{Dir: base, TrackDir: true, Shell: shell})
				if res.ExitCode != tc.code || res.Dir != tc.dir || res.Output() != tc.out {
					t.Errorf("got code %d dir %q out %q; want %d %q %q", res.ExitCode, res.Dir, res.Output(), tc.code, tc.dir, tc.out)
				}
			})
		}
		t.Run(shell+"/syntax error", func(t *testing.T) {
			res := run(t, "if then fi (", &Options{Dir: base, TrackDir: true, Shell: shell})
			if res.ExitCode == 0 || !strings.Contains(strings.ToLower(res.Output()), "syntax error") {
				t.Errorf("got %+v", res)
			}
		})
	}
	// No temp file is left behind.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	res := run(t, "cd /", &Options{TrackDir: true})
	if res.Dir != "/" {
		t.Errorf("dir %q", res.Dir)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("temp files left behind: %v", ents)
	}
	// Without TrackDir, Dir stays empty.
	if res := run(t, "cd /", nil); res.Dir != "" {
		t.Errorf("Dir without TrackDir: %q", res.Dir)
	}
}

func TestOnOutputPanicLeavesNothing(t *testing.T) {
	var out string
	func() {
		defer func() {
			if recover() == nil {
				t.Error("no panic")
			}
		}()
		Run(hangGuard(t), "echo $$; sleep 100 & sleep 100", nil, func(s string) {
			out += s
			panic("boom")
		})
	}()
	assertGroupGone(t, pgidFrom(t, out))
}

func settleGoroutines(before int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 200 && n > before; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

func TestNoGoroutineLeak(t *testing.T) {
	ctx := hangGuard(t)
	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	for _, c := range []struct {
		cmd  string
		opts *Options
	}{
		{"echo hi", nil},
		{"seq 1 100000", &Options{HeadLimit: 10, TailLimit: 10}},
		{"sleep 100 & sleep 100", &Options{Timeout: 50 * time.Millisecond}},
		{"sleep 100 &", nil},
		{"cd /; exit 3", &Options{TrackDir: true}},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := Run(ctx, c.cmd, c.opts, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	cctx, cancel := context.WithCancel(ctx)
	Run(cctx, "echo x; sleep 100", nil, func(string) { cancel() })
	if after := settleGoroutines(before); after > before {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before, %d after\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

const rssChildEnv = "TOOLSCOPE_PROC_RSS_CHILD"

// TestRSS1GB re-executes the test binary; the child runs a command printing
// 1 GB and the parent asserts the child's peak RSS.
func TestRSS1GB(t *testing.T) {
	if os.Getenv(rssChildEnv) == "1" {
		res, err := Run(context.Background(), "head -c 1000000000 /dev/zero | tr '\\0' a", nil, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != 1e9 || res.ExitCode != 0 || len(res.Head) != defaultHeadLimit || len(res.Tail) != defaultTailLimit {
			t.Fatalf("child: got total %d exit %d head %d tail %d", res.Total, res.ExitCode, len(res.Head), len(res.Tail))
		}
		return
	}
	if testing.Short() {
		t.Skip("1 GB output test skipped in -short mode")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory makes RSS meaningless")
	}
	ctx := hangGuard(t)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRSS1GB$", "-test.count=1")
	cmd.Env = append(os.Environ(), rssChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child failed: %v\n%s", err, out)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage available")
	}
	maxrss := ru.Maxrss * 1024 // kilobytes on Linux
	t.Logf("peak RSS of the child while 1 GB went through Run: %.1f MB", float64(maxrss)/(1<<20))
	if maxrss >= 64<<20 {
		t.Errorf("peak RSS %d bytes >= 64 MB", maxrss)
	}
}

func BenchmarkRunEcho(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		res, err := Run(ctx, "echo hi", nil, nil)
		if err != nil || res.Head != "hi\n" {
			b.Fatal(res, err)
		}
	}
}

func BenchmarkThroughput(b *testing.B) {
	const n = 100 << 20
	ctx := context.Background()
	b.SetBytes(n)
	for b.Loop() {
		res, err := Run(ctx, fmt.Sprintf("head -c %d /dev/zero", n), nil, nil)
		if err != nil || res.Total != n {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkRunTrue times the start and end of the smallest command with
// the shell started directly and under the reaper helper: what the helper
// costs a command.
func BenchmarkRunTrue(b *testing.B) {
	ctx := context.Background()
	for _, helper := range []bool{false, true} {
		name := "direct"
		if helper {
			name = "helper"
		}
		b.Run(name, func(b *testing.B) {
			if helper && !useReaper {
				b.Skip("no reaper helper on this system")
			}
			defer func(v bool) { useReaper = v }(useReaper)
			useReaper = helper
			for b.Loop() {
				res, err := Run(ctx, "true", &Options{TrackDir: true}, nil)
				if err != nil || res.ExitCode != 0 {
					b.Fatal(res, err)
				}
			}
		})
	}
}
