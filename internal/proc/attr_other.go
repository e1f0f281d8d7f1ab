//go:build !linux

package proc

import "syscall"

// sysProcAttr puts the shell in a process group of its own.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
