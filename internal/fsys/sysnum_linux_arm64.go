//go:build linux && arm64

package fsys

import "syscall"

const sysFstatat = syscall.SYS_FSTATAT
