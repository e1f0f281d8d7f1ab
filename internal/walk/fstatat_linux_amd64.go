//go:build linux && amd64

package walk

import "syscall"

const sysFstatat = syscall.SYS_NEWFSTATAT
