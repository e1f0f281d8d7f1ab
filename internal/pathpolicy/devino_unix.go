//go:build unix

package pathpolicy

import (
	"io/fs"
	"syscall"

	"github.com/toolscope/toolscope/internal/fsys"
)

// lstatType is os.Lstat reduced to the file's type, without the
// allocations of a FileInfo; its errors are the bare errno values.
func lstatType(p string) (fs.FileMode, error) {
	var st syscall.Stat_t
	for {
		err := fsys.Lstat(p, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		break
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return fs.ModeDir, nil
	case syscall.S_IFLNK:
		return fs.ModeSymlink, nil
	case syscall.S_IFREG:
		return 0, nil
	}
	return fs.ModeIrregular, nil
}
