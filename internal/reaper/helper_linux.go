package reaper

import (
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// The helper's argv: Arg0, the control fd, the report fd, the grace period
// in milliseconds, the working-directory file to remove at the end ("" for
// none), the shell's path, then the shell's argv.
const fixedArgs = 6

func init() {
	if len(os.Args) <= fixedArgs || os.Args[0] != Arg0 {
		return
	}
	// Pdeathsig ties the shell to the thread that forked it: keep this
	// goroutine on the main thread, which lives as long as the process.
	runtime.LockOSThread()
	// syscall.Exit, not os.Exit: the caller waits for the helper's exit,
	// which must not wait for anything (a race-enabled build sleeps a
	// second in os.Exit).
	syscall.Exit(helperMain(os.Args[1:]))
}

const (
	prSetChildSubreaper = 36
	sysPidfdOpen        = 434
	sysPidfdSendSignal  = 424

	pAll    = 0
	wExited = 0x4
	wNoHang = 0x1
	wNoWait = 0x01000000

	pollIn = 0x1

	// reapEvery is how often a helper whose shell still runs reaps the
	// descendants it adopted that have exited meanwhile.
	reapEvery = time.Second
	// killWait bounds the wait for descendants to disappear after SIGKILL
	// (processes in uninterruptible sleep).
	killWait = 2 * time.Second
)

type helper struct {
	ctl, rep  int
	grace     time.Duration
	dirFile   string
	shell     int // the shell's pid, and its process group
	shellFD   int // pidfd of the shell
	shellGone bool
}

func helperMain(args []string) int {
	ctl, err1 := strconv.Atoi(args[0])
	rep, err2 := strconv.Atoi(args[1])
	ms, err3 := strconv.Atoi(args[2])
	if err1 != nil || err2 != nil || err3 != nil || ctl < 3 || rep < 3 {
		os.Stderr.WriteString("toolscope-reaper: bad arguments\n")
		return 125
	}
	syscall.CloseOnExec(ctl)
	syscall.CloseOnExec(rep)
	h := &helper{ctl: ctl, rep: rep, grace: time.Duration(ms) * time.Millisecond, dirFile: args[3]}

	// Signals sent to this process alone (pkill -f) must not end it before
	// it has ended the command. Caught signals are reset to their default
	// in the shell by execve; signals ignored from the start stay ignored,
	// in the shell too, as they would without the helper.
	var caught []os.Signal
	for _, s := range []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT} {
		if !signal.Ignored(s) {
			caught = append(caught, s)
		}
	}
	signal.Notify(make(chan os.Signal, 1), caught...)

	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		h.send(MsgNoUse, "prctl(PR_SET_CHILD_SUBREAPER): "+e.Error())
		return 125
	}
	pid, err := syscall.ForkExec(args[4], args[5:], &syscall.ProcAttr{
		Env:   syscall.Environ(),
		Files: []uintptr{0, 1, 2},
		// The shell leads a process group of its own, and dies with
		// the helper.
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		h.send(MsgFailed, err.Error())
		return 127
	}
	h.shell = pid
	// The output pipe is the shell's now: the caller reads it to its end,
	// which must not wait for the helper.
	if null, err := syscall.Open("/dev/null", syscall.O_RDWR|syscall.O_CLOEXEC, 0); err == nil {
		syscall.Dup3(null, 1, 0)
		syscall.Dup3(null, 2, 0)
		syscall.Close(null)
	}
	// The shell is this process's unreaped child: its pid cannot be
	// reused, so the pidfd names it.
	fd, _, e := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if e != 0 {
		syscall.Kill(pid, syscall.SIGKILL)
		h.send(MsgFailed, "pidfd_open: "+e.Error())
		h.endAll(0)
		return 125
	}
	h.shellFD = int(fd)
	h.send(MsgStarted, strconv.Itoa(pid))

	callerGone := h.waitShell()
	if !callerGone {
		h.send(MsgExited, "")
		callerGone = !h.waitReap()
	}
	if callerGone {
		// The caller died (or closed the pipe early): end the command
		// as a timeout would, the shell's group first.
		if !h.shellGone {
			syscall.Kill(-h.shell, syscall.SIGTERM)
		}
		h.endAll(h.grace)
	} else {
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(h.shell, &ws, 0, nil)
			if err != syscall.EINTR {
				break
			}
		}
		h.shellGone = true
		h.send(MsgStatus, strconv.FormatUint(uint64(ws), 10))
		h.endAll(h.grace)
		h.send(MsgDone, "")
		h.waitEOF()
	}
	if h.dirFile != "" {
		os.Remove(h.dirFile)
	}
	return 0
}

// send writes one report message; a caller that is gone is not an error.
func (h *helper) send(tag byte, data string) {
	b := make([]byte, 0, len(data)+2)
	b = append(append(append(b, tag), data...), '\n')
	for len(b) > 0 {
		n, err := syscall.Write(h.rep, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return
		}
		b = b[n:]
	}
}

// waitShell waits for the shell to exit (true: the control pipe closed
// first). Meanwhile it reaps the adopted descendants that exit, so that
// a long command that keeps daemonising does not fill the process table
// with zombies; the shell itself is left unreaped.
func (h *helper) waitShell() (callerGone bool) {
	for {
		ctl, shell := h.poll(h.shellFD, reapEvery)
		if shell {
			return false
		}
		if ctl && h.readCtl() != CtlReap {
			return true
		}
		h.reapAdopted()
	}
}

// waitReap waits for the caller's 'R' (false: end of file instead).
func (h *helper) waitReap() bool {
	for {
		if ctl, _ := h.poll(-1, reapEvery); ctl {
			return h.readCtl() == CtlReap
		}
		h.reapAdopted()
	}
}

// waitEOF waits until the caller closes the control pipe.
func (h *helper) waitEOF() {
	for {
		if ctl, _ := h.poll(-1, -1); ctl && h.readCtl() == 0 {
			return
		}
	}
}

// readCtl reads one control byte; 0 is end of file (or an error).
func (h *helper) readCtl() byte {
	var b [1]byte
	for {
		n, err := syscall.Read(h.ctl, b[:])
		if err == syscall.EINTR {
			continue
		}
		if n == 1 {
			return b[0]
		}
		return 0
	}
}

// poll waits until the control pipe is readable (or closed), other (a
// pidfd; -1 for none) is readable, or timeout passes (<0: no timeout).
func (h *helper) poll(other int, timeout time.Duration) (ctl, ready bool) {
	type pollFd struct {
		fd             int32
		events, revent int16
	}
	fds := [2]pollFd{{fd: int32(h.ctl), events: pollIn}, {fd: int32(other), events: pollIn}}
	n := 1
	if other >= 0 {
		n = 2
	}
	var ts *syscall.Timespec
	if timeout >= 0 {
		t := syscall.NsecToTimespec(int64(timeout))
		ts = &t
	}
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(n), uintptr(unsafe.Pointer(ts)), 0, 0, 0)
		if e == syscall.EINTR {
			continue // a runtime signal; the timeout restarts, which only delays a reap
		}
		return fds[0].revent != 0, n == 2 && fds[1].revent != 0
	}
}

// reapAdopted reaps the exited children other than the shell.
func (h *helper) reapAdopted() {
	for {
		pid, err := waitable()
		if err != nil || pid == 0 || pid == h.shell {
			return
		}
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	}
}

// waitable returns the pid of an exited child without reaping it (0 when
// none has exited; ECHILD when there is no child).
func waitable() (int, error) {
	// siginfo_t: three ints, then a union aligned like a pointer whose
	// first member for SIGCHLD is si_pid.
	const siPid = 12 + 4*(unsafe.Sizeof(uintptr(0))/8)
	var info [128]byte
	_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info[0])), wExited|wNoHang|wNoWait, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(*(*int32)(unsafe.Pointer(&info[siPid]))), nil
}

// reapAll reaps every exited child and reports whether any child is left.
func (h *helper) reapAll() (children bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil: // ECHILD
			return false
		case pid == 0:
			return true
		}
		if pid == h.shell {
			h.shellGone = true
		}
	}
}

// endAll ends every descendant: SIGTERM, SIGKILL to those left after
// grace (0: SIGKILL at once), and returns when none is left, or when the
// last ones have resisted SIGKILL for killWait. Every descendant's
// parent is a descendant or the helper: a process whose parent dies is
// reparented to the helper, so the tree cannot be left.
func (h *helper) endAll(grace time.Duration) {
	if !h.reapAll() {
		return
	}
	delay := time.Millisecond
	if grace > 0 {
		signalDescendants(syscall.SIGTERM)
		deadline := time.Now().Add(grace)
		for time.Now().Before(deadline) {
			time.Sleep(min(delay, time.Until(deadline)))
			delay = min(2*delay, 20*time.Millisecond)
			if !h.reapAll() {
				return
			}
		}
	}
	// Whatever forks while being killed is caught by the next round: a
	// process cannot fork once SIGKILL is pending, and its children are
	// reparented to the helper when it dies.
	deadline := time.Now().Add(killWait)
	delay = time.Millisecond
	for {
		signalDescendants(syscall.SIGKILL)
		time.Sleep(delay)
		delay = min(2*delay, 20*time.Millisecond)
		if !h.reapAll() || time.Now().After(deadline) {
			return
		}
	}
}

// signalDescendants sends sig to every live descendant of this process.
//
// The tree is read from /proc/*/stat, and a pid read there may be reused
// before it is signalled. Each process is therefore signalled through a
// pidfd, taken before its parent is checked, and top-down: a process
// counts as a descendant when its pidfd still names a process that has
// not been reaped after its parent pid was read, and that parent is this
// process or a descendant whose own pidfd still names a process that has
// not been reaped. Then the pid read named that process, and so did the
// parent's.
func signalDescendants(sig syscall.Signal) {
	parents := childrenByParent()
	self := os.Getpid()
	type node struct{ pid, fd int }
	var verified []node
	queue := []node{{self, -1}}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range parents[p.pid] {
			fd, _, e := syscall.Syscall(sysPidfdOpen, uintptr(c), 0, 0)
			if e != 0 {
				continue
			}
			ppid, ok := ppidOf(c)
			if !ok || ppid != p.pid || pidfdSignal(int(fd), 0) == syscall.ESRCH ||
				(p.fd >= 0 && pidfdSignal(p.fd, 0) == syscall.ESRCH) {
				syscall.Close(int(fd))
				continue
			}
			n := node{c, int(fd)}
			verified = append(verified, n)
			queue = append(queue, n)
		}
	}
	for _, n := range verified {
		pidfdSignal(n.fd, sig)
		syscall.Close(n.fd)
	}
}

func pidfdSignal(fd int, sig syscall.Signal) error {
	_, _, e := syscall.Syscall6(sysPidfdSendSignal, uintptr(fd), uintptr(sig), 0, 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// childrenByParent maps each parent pid to its children's pids.
func childrenByParent() map[int][]int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	m := make(map[int][]int)
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if ppid, ok := ppidOf(pid); ok {
			m[ppid] = append(m[ppid], pid)
		}
	}
	return m
}

// ppidOf reads the parent pid from /proc/pid/stat.
func ppidOf(pid int) (int, bool) {
	var buf [512]byte
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	n, _ := syscall.Read(fd, buf[:])
	syscall.Close(fd)
	if n <= 0 {
		return 0, false
	}
	b := buf[:n]
	i := len(b) - 1
	for i >= 0 && b[i] != ')' {
		i--
	}
	// ") S ppid ..."
	if i < 0 || i+4 >= len(b) {
		return 0, false
	}
	b = b[i+4:]
	ppid := 0
	for j := 0; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
		ppid = ppid*10 + int(b[j]-'0')
	}
	return ppid, true
}
