package proc

import "syscall"

// sysProcAttr is for a shell started directly (not under the reaper
// helper, which sets its own): it puts the shell in a process group of its
// own, and has the kernel kill it when the thread that started it (this
// process) dies, so a supervisor killed with SIGKILL leaves no shell
// running on its own. In the OS sandbox the shell's helper is the init of
// a PID namespace, so its death takes every process of the command with
// it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
