//go:build linux && arm64

package walk

import "syscall"

const sysFstatat = syscall.SYS_FSTATAT
