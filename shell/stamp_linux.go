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

// fileInfo is what statFile learns of a path.
type fileInfo struct {
	regular, dir bool
	size         int64
	// stamp is the file's version; stamped only when it has not changed
	// in the last second (a change in the same clock tick could leave the
	// times and the size as they were): a verdict is remembered only then.
	stamp   linkStamp
	stamped bool
}

// statFile stats path, following links, without allocating; errors are
// bare errno values.
func statFile(path string) (fileInfo, error) {
	var st syscall.Stat_t
	for {
		err := fsys.Stat(path, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fileInfo{}, err
		}
		break
	}
	fi := fileInfo{
		regular: st.Mode&syscall.S_IFMT == syscall.S_IFREG,
		dir:     st.Mode&syscall.S_IFMT == syscall.S_IFDIR,
		size:    st.Size,
		stamp:   linkStamp{uint64(st.Dev), uint64(st.Ino), st.Size, st.Mtim, st.Ctim},
	}
	fi.stamped = settledTime(st.Ctim) && settledTime(st.Mtim)
	return fi, nil
}

// regularStamp lstats path: ok when it is a regular file (no link) that
// has not changed in the last second.
func regularStamp(path string) (linkStamp, bool) {
	var st syscall.Stat_t
	for {
		err := fsys.Lstat(path, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || !settledTime(st.Ctim) || !settledTime(st.Mtim) {
			return linkStamp{}, false
		}
		return linkStamp{uint64(st.Dev), uint64(st.Ino), st.Size, st.Mtim, st.Ctim}, true
	}
}
