package shell

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// fileStamp identifies a version of a file: device, inode, size,
// modification and change times (the change time moves with every write and
// cannot be set back).
// A file changed in the last second has no stamp (its verdict is not
// remembered): a change in the same clock tick could leave the times and
// the size as they were.
func fileStamp(fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !settledTime(st.Ctim) || !settledTime(st.Mtim) {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d:%d:%d", st.Dev, st.Ino, fi.Size(), fi.ModTime().UnixNano(), st.Ctim.Nano())
}

// settledTime reports a file time at least a second in the past.
func settledTime(t syscall.Timespec) bool {
	return time.Since(time.Unix(t.Sec, t.Nsec)) >= time.Second
}

// linkStamp is a file's identity and version as lstat reads it.
type linkStamp struct {
	dev, ino     uint64
	size         int64
	mtime, ctime syscall.Timespec
}

// regularStamp lstats path: ok when it is a regular file (no link) that
// has not changed in the last second.
func regularStamp(path string) (linkStamp, bool) {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(path, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || !settledTime(st.Ctim) || !settledTime(st.Mtim) {
			return linkStamp{}, false
		}
		return linkStamp{uint64(st.Dev), uint64(st.Ino), st.Size, st.Mtim, st.Ctim}, true
	}
}
