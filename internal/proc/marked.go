package proc

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"syscall"
	"time"
)

// Processes that leave the group, without the reaper helper.
//
// A command can start a process in a session and group of its own (setsid
// sleep 1000 &, setsid -f, a daemon's double fork): killing the group does
// not reach it. Under the reaper helper such a process remains a
// descendant of the helper, which ends it. Where there is no helper (a
// custom Options.Start, a kernel without pidfds, a helper that was killed)
// this is the fallback: every process Run starts inherits an environment
// variable naming the run (markerVar); when the group is gone, Run looks
// for the processes that still carry it and ends them too, SIGTERM then
// SIGKILL after the grace period. Signals go through a pidfd taken before
// the environment is checked, so a reused pid is never hit. A process that
// clears its environment (env -i, env -u TOOLSCOPE_RUN) escapes this.

// markerVar is the environment variable that names a run.
const markerVar = "TOOLSCOPE_RUN"

// newMarker returns a fresh "TOOLSCOPE_RUN=..." entry.
func newMarker() string {
	var b [12]byte
	rand.Read(b[:])
	return markerVar + "=" + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
}

// withMarker returns env (nil: this process's) with the run's marker,
// replacing a marker inherited from an enclosing run.
func withMarker(env []string, marker string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, e := range env {
		if len(e) > len(markerVar) && e[:len(markerVar)+1] == markerVar+"=" {
			continue
		}
		out = append(out, e)
	}
	return append(out, marker)
}

// marked returns pidfds of the live processes whose environment holds
// marker (never this process).
func marked(marker string) []markedProc {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil
	}
	self := os.Getpid()
	want := []byte("\x00" + marker + "\x00")
	var buf []byte
	var out []markedProc
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self || pid <= 1 {
			continue
		}
		var ok bool
		if buf, ok = readEnviron(pid, buf); !ok || !bytes.Contains(buf, want) {
			continue
		}
		fd, err := pidfdOpen(pid)
		if err != nil {
			continue
		}
		// Read the environment again now that the pidfd is held: if the
		// pid was reused in between, the new process has no marker; if it
		// is reused later, the pidfd names the old (dead) process and the
		// signal goes nowhere.
		if buf, ok = readEnviron(pid, buf); ok && bytes.Contains(buf, want) {
			out = append(out, markedProc{pid, fd})
			continue
		}
		syscall.Close(fd)
	}
	return out
}

type markedProc struct{ pid, fd int }

// readEnviron reads /proc/pid/environ into buf (at most 1 MiB).
func readEnviron(pid int, buf []byte) ([]byte, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return buf, false
	}
	defer f.Close()
	buf = append(buf[:0], 0) // so that the first entry is matched as "\x00NAME=...\x00"
	for len(buf) < 1<<20 {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, 4096)...)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil || n == 0 {
			break
		}
	}
	return append(buf, 0), true
}

// endMarked ends the processes that carry marker: SIGTERM, then SIGKILL to
// those alive after grace. It returns how many it found.
func endMarked(marker string, grace time.Duration) int {
	procs := marked(marker)
	found := len(procs)
	if found == 0 {
		return 0
	}
	for _, p := range procs {
		pidfdSignal(p.fd, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	delay := time.Millisecond
	for {
		alive := procs[:0]
		for _, p := range procs {
			if pidfdSignal(p.fd, 0) == nil && !isZombie(p.pid) {
				alive = append(alive, p)
			} else {
				syscall.Close(p.fd)
			}
		}
		procs = alive
		if len(procs) == 0 {
			return found
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(delay)
		delay = min(2*delay, 20*time.Millisecond)
	}
	for _, p := range procs {
		pidfdSignal(p.fd, syscall.SIGKILL)
	}
	// SIGKILL is not instant: wait (briefly) until they are gone, so that
	// nothing the command started outlives the call, even for a moment.
	deadline = time.Now().Add(time.Second)
	for len(procs) > 0 && time.Now().Before(deadline) {
		alive := procs[:0]
		for _, p := range procs {
			if pidfdSignal(p.fd, 0) == nil && !isZombie(p.pid) {
				alive = append(alive, p)
			} else {
				syscall.Close(p.fd)
			}
		}
		procs = alive
		if len(procs) > 0 {
			time.Sleep(time.Millisecond)
		}
	}
	for _, p := range procs {
		syscall.Close(p.fd)
	}
	return found
}

func isZombie(pid int) bool {
	var buf [512]byte
	state, _, ok := statOf(strconv.Itoa(pid), buf[:])
	return ok && (state == 'Z' || state == 'X')
}

const (
	sysPidfdOpen       = 434
	sysPidfdSendSignal = 424
)

func pidfdOpen(pid int) (int, error) {
	fd, _, e := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if e != 0 {
		return -1, e
	}
	syscall.CloseOnExec(int(fd))
	return int(fd), nil
}

func pidfdSignal(fd int, sig syscall.Signal) error {
	_, _, e := syscall.Syscall6(sysPidfdSendSignal, uintptr(fd), uintptr(sig), 0, 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
