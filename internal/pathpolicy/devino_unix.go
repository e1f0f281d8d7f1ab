//go:build unix

package pathpolicy

import (
	"io/fs"
	"syscall"
)

// devIno returns the device and inode of a file.
func devIno(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}
