//go:build unix && !(linux && (amd64 || arm64))

package fsys

import "syscall"

const atSymlinkNoFollow = 1 // any value but 0: fstatat only tells the two apart

func fstatat(path string, st *syscall.Stat_t, flags int) error {
	if flags == 0 {
		return syscall.Stat(path, st)
	}
	return syscall.Lstat(path, st)
}

const fastPath = false
