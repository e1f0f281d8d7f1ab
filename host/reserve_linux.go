package host

import (
	"os"
	"syscall"
)

// reserve makes sure that n bytes can be written to the file system of f,
// by allocating them to f (which the caller removes). Where fallocate(2)
// is not supported it compares n with the space free for this user.
func reserve(f *os.File, n int64) error {
	for {
		err := syscall.Fallocate(int(f.Fd()), 0, 0, n)
		switch err {
		case nil:
			return nil
		case syscall.EINTR:
			continue
		case syscall.EOPNOTSUPP, syscall.ENOSYS:
			var st syscall.Statfs_t
			if syscall.Fstatfs(int(f.Fd()), &st) == nil && st.Bsize > 0 && int64(st.Bavail) < (n+st.Bsize-1)/st.Bsize {
				return syscall.ENOSPC
			}
			return nil
		default:
			return err
		}
	}
}
