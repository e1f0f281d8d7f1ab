//go:build linux && amd64

package fsys

import "syscall"

const sysFstatat = syscall.SYS_NEWFSTATAT
