package shell

import (
	"syscall"
	"time"

	"github.com/toolscope/toolscope/internal/fsys"
)

// linkStamp identifies a version of a file: device, inode, size,
// modification and change times (the change time moves with every write and
// cannot be set back).
type linkStamp struct {
	dev, ino     uint64
	size         int64
	mtime, ctime syscall.Timespec
}

// settledTime reports a file time at least a second in the past.
func settledTime(t syscall.Timespec) bool {
	return time.Since(time.Unix(t.Sec, t.Nsec)) >= time.Second
}

// statFile stats path, following links, without allocating; errors are
// bare errno values.
func statFile(path string) (fileInfo, error) {
	var st syscall.Stat_t
	if err := fsys.Stat(path, &st); err != nil {
		return fileInfo{}, err
	}
	return fileInfo{
		regular: st.Mode&syscall.S_IFMT == syscall.S_IFREG,
		dir:     st.Mode&syscall.S_IFMT == syscall.S_IFDIR,
		size:    st.Size,
		stamp:   stampOf(&st),
		stamped: settled(&st),
	}, nil
}

func stampOf(st *syscall.Stat_t) linkStamp {
	return linkStamp{uint64(st.Dev), uint64(st.Ino), st.Size, st.Mtim, st.Ctim}
}

// settled reports a file not changed in the last second.
func settled(st *syscall.Stat_t) bool { return settledTime(st.Ctim) && settledTime(st.Mtim) }

// regularStamp lstats path: ok when it is a regular file (no link) that
// has not changed in the last second.
func regularStamp(path string) (linkStamp, bool) {
	var st syscall.Stat_t
	if err := fsys.Lstat(path, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || !settled(&st) {
		return linkStamp{}, false
	}
	return stampOf(&st), true
}
