package proc

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolscope/toolscope/internal/reaper"
)

// useReaper can be turned off by tests and benchmarks, to compare with
// the direct start.
var useReaper = true

const reaperArg0 = reaper.Arg0

// reaperUsable reports whether this kernel has what the helper needs:
// pidfds (Linux 5.3) and subreapers (3.4).
var reaperUsable = sync.OnceValue(func() bool {
	fd, err := pidfdOpen(os.Getpid())
	if err != nil {
		return false
	}
	syscall.Close(fd)
	_, err = os.Stat("/proc/self/exe")
	return err == nil
})

// reaped is a shell started under the reaper helper (see package
// internal/reaper): the helper is the shell's parent and the subreaper of
// everything the command starts.
type reaped struct {
	helper *exec.Cmd
	ctl    *os.File // write end of the control pipe
	repF   *os.File
	rep    *bufio.Reader
	pid    int  // the shell
	lost   bool // the helper ended before its work was done (killed)
}

// startReaped starts cmd – configured for a direct start, not started –
// under the helper, and returns once the shell runs. ok is false when the
// helper could not run at all; the caller then starts cmd directly.
func startReaped(cmd *exec.Cmd, grace time.Duration, dirFile string) (r *reaped, ok bool, err error) {
	if !useReaper || !reaperUsable() {
		return nil, false, nil
	}
	if cmd.Err != nil {
		return nil, true, cmd.Err
	}
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, false, nil
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, false, nil
	}
	h := exec.Command("/proc/self/exe")
	h.Args = append([]string{reaper.Arg0, "3", "4", strconv.FormatInt(grace.Milliseconds(), 10), dirFile, cmd.Path}, cmd.Args...)
	h.Dir, h.Env = cmd.Dir, cmd.Env
	h.Stdin, h.Stdout, h.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	h.ExtraFiles = []*os.File{ctlR, repW}
	// A process group of its own: a signal to the caller's group (Ctrl-C
	// in a terminal, kill -9 %1) does not end the helper before it has
	// ended the command. No Pdeathsig: the helper outlives its caller to
	// clean up after it.
	h.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	startErr := h.Start()
	ctlR.Close()
	repW.Close()
	if startErr != nil {
		ctlW.Close()
		repR.Close()
		return nil, false, nil
	}
	r = &reaped{helper: h, ctl: ctlW, repF: repR, rep: bufio.NewReader(repR)}
	tag, data := r.read()
	switch tag {
	case reaper.MsgStarted:
		r.pid, _ = strconv.Atoi(data)
		if r.pid > 1 {
			return r, true, nil
		}
		err = errors.New("the reaper helper reported a bad pid " + strconv.Quote(data))
	case reaper.MsgFailed:
		err = errors.New("fork/exec " + cmd.Path + ": " + data)
	case reaper.MsgNoUse:
		r.finish()
		return nil, false, nil
	default:
		err = errors.New("the reaper helper ended without starting the shell")
	}
	r.finish()
	return nil, true, err
}

// read reads one report message (tag 0: the helper is gone).
func (r *reaped) read() (byte, string) {
	line, err := r.rep.ReadString('\n')
	if err != nil || line == "" {
		return 0, ""
	}
	return line[0], strings.TrimSuffix(line[1:], "\n")
}

// waitExited blocks until the shell has exited; the helper leaves it
// unreaped, so its pid and group id stay reserved. If the helper dies
// first, lost is set.
func (r *reaped) waitExited() {
	if tag, _ := r.read(); tag != reaper.MsgExited {
		r.lost = true
	}
}

// reap has the helper reap the shell and returns its wait status; the
// helper then ends every other descendant (see done).
func (r *reaped) reap() (syscall.WaitStatus, bool) {
	if r.lost {
		return 0, false
	}
	if _, err := r.ctl.Write([]byte{reaper.CtlReap}); err == nil {
		if tag, data := r.read(); tag == reaper.MsgStatus {
			ws, err := strconv.ParseUint(data, 10, 32)
			if err == nil {
				return syscall.WaitStatus(ws), true
			}
		}
	}
	r.lost = true
	return 0, false
}

// done waits until the helper reports that no descendant is left.
func (r *reaped) done() {
	if r.lost {
		return
	}
	if tag, _ := r.read(); tag != reaper.MsgDone {
		r.lost = true
	}
}

// finish closes the control pipe, upon which the helper removes the
// working-directory file and exits, and reaps the helper.
func (r *reaped) finish() {
	r.ctl.Close()
	_ = r.helper.Wait()
	r.repF.Close()
}
