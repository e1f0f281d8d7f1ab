package shell

import (
	"fmt"
	"os"
	"syscall"
)

// fileStamp identifies a version of a file: device, inode, size,
// modification and change times (the change time moves with every write and
// cannot be set back).
func fileStamp(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d:%d:%d", st.Dev, st.Ino, fi.Size(), fi.ModTime().UnixNano(), st.Ctim.Nano())
}
