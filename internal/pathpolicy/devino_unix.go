//go:build unix

package pathpolicy

import (
	"io/fs"
	"syscall"

	"github.com/toolscope/toolscope/internal/dirsnap"
	"github.com/toolscope/toolscope/internal/fsys"
)

// lstatType is os.Lstat reduced to the file's type, without the
// allocations of a FileInfo; its errors are the bare errno values.
func lstatType(p string) (fs.FileMode, error) {
	m, _, err := lstatStamp(p)
	return m, err
}

// lstatStamp is lstatType that also returns, for a directory, its stamp
// (see dirsnap.StampOf).
func lstatStamp(p string) (fs.FileMode, dirsnap.Stamp, error) {
	var st syscall.Stat_t
	if err := fsys.Lstat(p, &st); err != nil {
		return 0, dirsnap.Stamp{}, err
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return fs.ModeDir, dirsnap.StampOf(&st), nil
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFLNK:
		return fs.ModeSymlink, dirsnap.Stamp{}, nil
	case syscall.S_IFREG:
		return 0, dirsnap.Stamp{}, nil
	}
	return fs.ModeIrregular, dirsnap.Stamp{}, nil
}
