//go:build unix

package pathpolicy

import (
	"io/fs"
	"syscall"
)

// dirID returns the device and inode of directory p (following links);
// ok is false if p is no directory or cannot be reached.
func dirID(p string) (dev, ino uint64, ok bool) {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(p, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			return 0, 0, false
		}
		return uint64(st.Dev), uint64(st.Ino), true
	}
}

// lstatType is os.Lstat reduced to the file's type, without the
// allocations of a FileInfo; its errors are the bare errno values.
func lstatType(p string) (fs.FileMode, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(p, &st)
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
