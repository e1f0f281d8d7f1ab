package outside

import (
	"syscall"
	"time"

	"github.com/toolscope/toolscope/internal/fsys"
)

// Stamp identifies a version of a file: device, inode, size, modification
// and change times (the change time moves with every write and cannot be
// set back). Stamps are compared with ==.
type Stamp struct {
	dev, ino     uint64
	size         int64
	mtime, ctime syscall.Timespec
}

// Stat implements [Access], without allocating; errors are bare errno
// values.
func (System) Stat(path string, follow bool) (Info, error) {
	var st syscall.Stat_t
	var err error
	if follow {
		err = fsys.Stat(path, &st)
	} else {
		err = fsys.Lstat(path, &st)
	}
	if err != nil {
		return Info{}, err
	}
	return Info{
		Type:    fsys.Type(st.Mode),
		Size:    st.Size,
		Stamp:   Stamp{uint64(st.Dev), uint64(st.Ino), st.Size, st.Mtim, st.Ctim},
		Stamped: settledTime(st.Ctim) && settledTime(st.Mtim),
	}, nil
}

// settledTime reports a file time at least a second in the past.
func settledTime(t syscall.Timespec) bool {
	return time.Since(time.Unix(t.Sec, t.Nsec)) >= time.Second
}
