//go:build unix

package fsys

import "syscall"

// Stat is syscall.Stat (it follows links); errors are bare errno values.
func Stat(path string, st *syscall.Stat_t) error { return retry(path, st, 0) }

// Lstat is syscall.Lstat (it does not follow a final link); errors are
// bare errno values.
func Lstat(path string, st *syscall.Stat_t) error { return retry(path, st, atSymlinkNoFollow) }

func retry(path string, st *syscall.Stat_t, flags int) error {
	for {
		if err := fstatat(path, st, flags); err != syscall.EINTR {
			return err
		}
	}
}
