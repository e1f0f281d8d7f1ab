//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bashglob

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openDir opens a directory for reading without ever blocking on a FIFO:
// O_DIRECTORY makes the open fail at once for anything but a directory.
func openDir(path string) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}

// isAbsence reports whether err means that a path does not resolve to
// something usable, as opposed to a failure to look.
func isAbsence(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) ||
		errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENAMETOOLONG)
}
