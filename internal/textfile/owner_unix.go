//go:build unix

package textfile

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of the file described by old, when they differ from
// the process's and the process is allowed to (root, or a group it belongs to). Best effort.
func keepOwner(f *os.File, old fs.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	uid, gid := int(st.Uid), int(st.Gid)
	if uid == os.Geteuid() && gid == os.Getegid() {
		return
	}
	if err := f.Chown(uid, gid); err != nil {
		f.Chown(-1, gid)
	}
}
