package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Options configures Run. The zero value (or a nil *Options) is valid.
type Options struct {
	Dir       string        // working directory ("" = current)
	Env       []string      // nil = os.Environ()
	Timeout   time.Duration // 0 = none
	KillGrace time.Duration // wait between SIGTERM and SIGKILL of the group; 0 = 2s
	HeadLimit int           // bytes of output kept from the start (and streamed live); 0 = 20000, <0 = none
	TailLimit int           // bytes kept from the end; 0 = 10000, <0 = none
	Shell     string        // "" = DefaultShell()
	TrackDir  bool          // report the shell's final working directory in Result.Dir
	TempDir   string        // where the TrackDir file goes ("" = os.TempDir()); the command must be able to write there
	// Stream hands every byte of output to onOutput, decoded as for Head,
	// and keeps none of it: Head and Tail are empty, HeadLimit and
	// TailLimit unused, and memory stays bounded however much the command
	// prints (a background shell keeps its own bounded buffer).
	Stream bool
	// Start starts cmd in place of cmd.Start (a sandbox wraps it first).
	// When it fails, cmd must not be running, or must have been waited for.
	Start func(cmd *exec.Cmd) error
}

const (
	defaultKillGrace = 2 * time.Second
	defaultHeadLimit = 20000
	defaultTailLimit = 10000

	readBufSize = 64 << 10
	// drainGrace is how long the pipe is still read after the process group
	// is gone, to collect output already buffered; it only matters when a
	// process outside the group still holds the pipe open.
	drainGrace = 100 * time.Millisecond
	// zombieGrace bounds the wait for the group to disappear after SIGKILL
	// (members stuck in uninterruptible sleep, or orphans that init is slow to
	// reap).
	zombieGrace = 2 * time.Second
)

// DefaultShell returns bash from PATH when present, else /bin/sh.
func DefaultShell() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// Result describes a finished command.
type Result struct {
	ExitCode int           // the shell's exit status; -1 if it was killed by a signal (or never started)
	Signal   string        // e.g. "killed"/"terminated" when killed by a signal, else ""
	TimedOut bool          // Options.Timeout expired
	Canceled bool          // ctx was cancelled (or its deadline passed)
	Head     string        // first HeadLimit bytes of combined output, valid UTF-8 (exactly what was streamed)
	Tail     string        // last ≤TailLimit bytes not already in Head, valid UTF-8
	Dropped  int64         // raw bytes between Head and Tail that were discarded
	Total    int64         // total raw bytes the command printed
	Dir      string        // final working directory when TrackDir and the shell reported it ("" otherwise)
	Duration time.Duration // wall time from start to the end of Run
}

// Output renders Head, a marker line "\n... [N bytes of output dropped] ...\n"
// when Dropped > 0, then Tail.
func (r *Result) Output() string {
	if r.Dropped <= 0 {
		return r.Head + r.Tail
	}
	return r.Head + "\n... [" + strconv.FormatInt(r.Dropped, 10) + " bytes of output dropped] ...\n" + r.Tail
}

// Run runs command with the shell (`SHELL -c`), stdout and stderr combined in
// arrival order into one pipe, stdin from /dev/null, in its own process group.
// onOutput (may be nil) receives the head of the output live as valid UTF-8
// strings, in order, on the goroutine that called Run, while the command
// runs; the concatenation of all onOutput strings equals Result.Head.
// Infrastructure failures (shell not found, pipe errors) are returned as
// errors; a non-zero exit, timeout or cancellation are reported in the Result.
// When Run returns, no process of the command's group is left running.
func Run(ctx context.Context, command string, opts *Options, onOutput func(string)) (*Result, error) {
	start := time.Now()
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.KillGrace <= 0 {
		o.KillGrace = defaultKillGrace
	}
	if o.HeadLimit == 0 {
		o.HeadLimit = defaultHeadLimit
	}
	if o.TailLimit == 0 {
		o.TailLimit = defaultTailLimit
	}
	if o.Shell == "" {
		o.Shell = DefaultShell()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Err() != nil {
		return &Result{ExitCode: -1, Canceled: true, Duration: time.Since(start)}, nil
	}

	args := []string{"-c", command}
	var dirFile string
	// Once the reaper helper runs, it removes the file, after the caller
	// has read it or once the caller is dead.
	helperOwnsDirFile := false
	if o.TrackDir {
		f, err := os.CreateTemp(o.TempDir, "toolscope-cwd-*")
		if err != nil {
			return nil, fmt.Errorf("proc: track dir: %w", err)
		}
		dirFile = f.Name()
		f.Close()
		defer func() {
			if !helperOwnsDirFile {
				os.Remove(dirFile)
			}
		}()
		args = []string{"-c", trackDirScript(dirFile), shellName(o.Shell), command}
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("proc: pipe: %w", err)
	}
	defer pr.Close()

	cmd := exec.Command(o.Shell, args...)
	cmd.Dir = o.Dir
	marker := newMarker()
	cmd.Env = withMarker(o.Env, marker)
	cmd.Stdin = nil // os/exec connects /dev/null
	cmd.Stdout = pw
	cmd.Stderr = pw
	cmd.SysProcAttr = sysProcAttr()
	var r *reaped
	if o.Start != nil {
		err = o.Start(cmd)
	} else {
		var tried bool
		r, tried, err = startReaped(cmd, o.KillGrace, dirFile)
		if !tried {
			err = cmd.Start()
		}
	}
	pw.Close()
	if err != nil {
		return nil, fmt.Errorf("proc: start %s: %w", o.Shell, err)
	}
	pgid := 0
	if r != nil {
		pgid = r.pid
		helperOwnsDirFile = true
	} else {
		pgid = cmd.Process.Pid
	}

	sup := &supervisor{
		marker:    marker,
		cmd:       cmd,
		r:         r,
		dirFile:   dirFile,
		pgid:      pgid,
		ctx:       ctx,
		timeout:   o.Timeout,
		grace:     o.KillGrace,
		pipe:      pr,
		abort:     make(chan struct{}),
		done:      make(chan struct{}),
		exitedRaw: make(chan struct{}),
	}
	go sup.run()
	finished := false
	defer func() {
		if !finished { // onOutput panicked: still leave nothing behind
			sup.stop()
			<-sup.done
		}
	}()

	capt := newCapture(o.HeadLimit, o.TailLimit)
	if o.Stream {
		capt = newCapture(math.MaxInt, 0)
		capt.stream = true
	}
	emit := func() {
		if s := capt.takeNew(); s != "" && onOutput != nil {
			onOutput(s)
		}
	}
	buf := make([]byte, readBufSize)
	var readErr error
	for {
		n, err := pr.Read(buf)
		if n > 0 {
			capt.Write(buf[:n])
			emit()
		}
		if err != nil {
			if err != io.EOF && !errors.Is(err, os.ErrDeadlineExceeded) {
				readErr = err
				sup.stop()
			}
			break
		}
	}
	<-sup.done
	finished = true
	capt.finish()
	emit()

	if readErr != nil {
		return nil, fmt.Errorf("proc: reading output: %w", readErr)
	}
	if sup.waitErr != nil {
		return nil, fmt.Errorf("proc: wait: %w", sup.waitErr)
	}

	res := &Result{
		ExitCode: sup.exitCode,
		Signal:   sup.signal,
		TimedOut: sup.timedOut,
		Canceled: sup.canceled,
		Head:     string(capt.head),
		Tail:     string(capt.tail),
		Dropped:  capt.dropped(),
		Total:    capt.total,
		Dir:      sup.dir,
	}
	res.Duration = time.Since(start)
	return res, nil
}

// shellName is used as $0 of the TrackDir wrapper, so that error messages
// read like the shell's own ("bash: eval: line 1: ...").
func shellName(shell string) string {
	if i := strings.LastIndexByte(shell, '/'); i >= 0 {
		return shell[i+1:]
	}
	return shell
}

// shQuote quotes s as a single POSIX shell word.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// trackDirScript returns the TrackDir wrapper (see the package doc). The
// user's command is $1; `>|` writes even under `set -C`.
func trackDirScript(dirFile string) string {
	save := "command pwd -P >|" + shQuote(dirFile) + " 2>/dev/null || :"
	return "trap " + shQuote(save) + " EXIT\n" +
		`eval "shift; $1"` + "\n" +
		`set -- "$?"; ` + save + `; exit "$1"`
}

// supervisor owns the process: it waits for the shell, enforces the timeout
// and cancellation, cleans up the group and finally lets the reader stop.
type supervisor struct {
	marker  string // the environment entry every process of the run inherits
	cmd     *exec.Cmd
	r       *reaped // the reaper helper (nil: the shell is this process's child)
	dirFile string  // the TrackDir file ("" for none)
	pgid    int
	ctx     context.Context
	timeout time.Duration
	grace   time.Duration
	pipe    *os.File

	abort     chan struct{} // closed by stop
	stopped   bool
	done      chan struct{} // closed when everything is cleaned up
	exitedRaw chan struct{} // closed when the shell has exited (not reaped)

	// written before done is closed
	timedOut, canceled bool
	waitErr            error  // the shell could not be waited for
	exitCode           int    // as Result.ExitCode
	signal             string // as Result.Signal
	dir                string // as Result.Dir
}

// stop asks the supervisor to kill the group (reader failure or panic). Only
// called from Run's goroutine.
func (s *supervisor) stop() {
	if !s.stopped {
		s.stopped = true
		close(s.abort)
	}
}

func (s *supervisor) run() {
	defer close(s.done)
	go func() {
		if s.r != nil {
			s.r.waitExited()
		} else {
			waitExitedNoReap(s.pgid)
		}
		close(s.exitedRaw)
	}()

	var timeoutC <-chan time.Time
	if s.timeout > 0 {
		t := time.NewTimer(s.timeout)
		defer t.Stop()
		timeoutC = t.C
	}
	var termAt time.Time // when the group first got SIGTERM
	var killTimerC <-chan time.Time
	term := func() {
		if termAt.IsZero() {
			termAt = time.Now()
			_ = syscall.Kill(-s.pgid, syscall.SIGTERM)
			t := time.NewTimer(s.grace)
			killTimerC = t.C
			// t is not stopped explicitly; it is unreferenced once run returns.
		}
	}
	ctxDone := s.ctx.Done()
	abort := (<-chan struct{})(s.abort)
wait:
	for {
		select {
		case <-s.exitedRaw:
			break wait
		case <-timeoutC:
			timeoutC = nil
			if termAt.IsZero() {
				s.timedOut = true
			}
			term()
		case <-ctxDone:
			ctxDone = nil
			if termAt.IsZero() {
				s.canceled = true
			}
			term()
		case <-abort:
			abort = nil
			term()
		case <-killTimerC:
			killTimerC = nil
			// The shell is not reaped yet, so the group id is still ours.
			_ = syscall.Kill(-s.pgid, syscall.SIGKILL)
		}
	}

	// The shell has exited but is not reaped: signalling the group is safe.
	// Terminate whatever it left behind (background jobs).
	killed := !termAt.IsZero() && killTimerC == nil
	if termAt.IsZero() {
		termAt = time.Now()
	}
	helperLost := s.r != nil && s.r.lost
	if !helperLost {
		_ = syscall.Kill(-s.pgid, syscall.SIGTERM)
		if killed {
			_ = syscall.Kill(-s.pgid, syscall.SIGKILL)
		}
	}
	s.reap()

	// Wait for the group to be empty: SIGKILL when the grace period (counted
	// from the first SIGTERM) is over.
	delay := 500 * time.Microsecond
	var killedAt time.Time
	if killed {
		killedAt = time.Now()
	}
	for groupAlive(s.pgid) {
		now := time.Now()
		if killedAt.IsZero() && now.Sub(termAt) >= s.grace {
			_ = syscall.Kill(-s.pgid, syscall.SIGKILL)
			killedAt = now
		}
		if !killedAt.IsZero() && now.Sub(killedAt) >= zombieGrace {
			break
		}
		time.Sleep(delay)
		delay = min(2*delay, 20*time.Millisecond)
	}

	if s.r != nil {
		// The helper ends the descendants that left the group.
		s.r.done()
	}
	if s.r == nil || s.r.lost {
		// Processes that left the group (setsid) but carry the run's
		// marker.
		endMarked(s.marker, s.grace)
	}
	if s.dirFile != "" {
		if b, err := os.ReadFile(s.dirFile); err == nil {
			s.dir = strings.TrimSuffix(string(b), "\n")
		}
	}
	if s.r != nil {
		s.r.finish()
		if s.r.lost && s.dirFile != "" {
			// A helper that was killed could not remove it.
			os.Remove(s.dirFile)
		}
	}

	// Everything in the group is gone; let the reader collect what is still
	// buffered, then unblock it even if an outsider holds the pipe open.
	_ = s.pipe.SetReadDeadline(time.Now().Add(drainGrace))
}

// reap reaps the shell and records how it ended.
func (s *supervisor) reap() {
	if s.r != nil {
		ws, ok := s.r.reap()
		if !ok {
			// The helper was killed, and the shell with it (Pdeathsig).
			s.exitCode, s.signal = -1, syscall.SIGKILL.String()
			return
		}
		s.exitCode = ws.ExitStatus()
		if ws.Signaled() {
			s.exitCode, s.signal = -1, ws.Signal().String()
		}
		return
	}
	err := s.cmd.Wait()
	ps := s.cmd.ProcessState
	if ps == nil {
		s.waitErr = err
		return
	}
	s.exitCode = ps.ExitCode()
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		s.exitCode, s.signal = -1, ws.Signal().String()
	}
}

// groupAlive reports whether the process group still has a member that is
// not a zombie. Orphaned members are reparented to init, which may reap them
// late; a zombie has finished, so it does not count.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	d, err := os.Open("/proc")
	if err != nil {
		return true
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return true
	}
	var buf [512]byte
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		state, pgrp, ok := statOf(name, buf[:])
		if ok && pgrp == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// statOf reads the state and process group of /proc/<pid>/stat.
func statOf(pid string, buf []byte) (state byte, pgrp int, ok bool) {
	f, err := os.Open("/proc/" + pid + "/stat")
	if err != nil {
		return 0, 0, false
	}
	n, _ := f.Read(buf)
	f.Close()
	b := buf[:n]
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	// ") S ppid pgrp ..."
	f3 := strings.Fields(string(b[i+1 : min(len(b), i+64)]))
	if len(f3) < 3 || len(f3[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err = strconv.Atoi(f3[2])
	return f3[0][0], pgrp, err == nil
}

// waitExitedNoReap blocks until the process pid has exited, leaving it
// waitable (a zombie) so its pid, and thus the group id, cannot be reused.
func waitExitedNoReap(pid int) {
	const (
		pPID    = 1          // P_PID
		wExited = 0x4        // WEXITED
		wNoWait = 0x01000000 // WNOWAIT
	)
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		if e != syscall.EINTR {
			return
		}
	}
}
