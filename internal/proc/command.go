package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Every process toolscope starts is started here. A Bash command goes
// through Run (the shell under the reaper helper, its output captured
// and bounded); a helper program (ripgrep, pdftotext, git config, a hook,
// an MCP stdio server, the sandbox's probe) through Command, so that all
// of them follow the same rules:
//
//   - a process group of its own: a signal to toolscope's group (Ctrl-C
//     in a terminal) does not reach it behind toolscope's back, and
//     ending it ends what it started;
//   - killed with its whole group (SIGKILL) when ctx is done, and Wait
//     returns at most WaitDelay later even when a grandchild still holds
//     its output open;
//   - on Linux, killed by the kernel when toolscope dies (parent-death
//     signal), so no helper outlives a toolscope killed with SIGKILL;
//   - standard input empty (/dev/null) unless the caller sets it, and the
//     environment toolscope's own unless the caller sets it.

// WaitDelay is how long Wait waits, after the process was killed or
// exited, for its output to close (a grandchild may hold it open).
const WaitDelay = time.Second

// Command returns the command to run program name with args under the
// rules above. ctx ends it; pass context.Background() for a process that
// lives until the caller ends it (an MCP server: see EndGroup).
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error { return EndGroup(cmd, syscall.SIGKILL) }
	cmd.WaitDelay = WaitDelay
	return cmd
}

// EndGroup sends sig to the process group of a started Command: the
// program and everything it started that stayed in its group. It is
// os.ErrProcessDone when the group is gone.
func EndGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.Process == nil {
		return errors.New("proc: the command was not started")
	}
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
