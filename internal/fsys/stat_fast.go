//go:build linux && (amd64 || arm64)

package fsys

import (
	"strings"
	"syscall"
	"unsafe"
)

const (
	atFDCWD           = -0x64 // AT_FDCWD
	atSymlinkNoFollow = 0x100 // AT_SYMLINK_NOFOLLOW
)

func fstatat(path string, st *syscall.Stat_t, flags int) error {
	if len(path) > MaxFastPath || strings.IndexByte(path, 0) >= 0 {
		if flags == 0 {
			return syscall.Stat(path, st)
		}
		return syscall.Lstat(path, st)
	}
	var buf [MaxFastPath + 1]byte
	copy(buf[:], path)
	buf[len(path)] = 0
	fd := atFDCWD
	_, _, e := syscall.Syscall6(sysFstatat, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(st)), uintptr(flags), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

const fastPath = true
