//go:build unix

package outside

import (
	"errors"
	"os"
	"syscall"
)

// openRegular opens the regular file at path for reading. The open never
// blocks: a FIFO, a device or a socket is refused with ErrNotRegular.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	var fd int
	for {
		var err error
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		break
	}
	f := os.NewFile(uintptr(fd), path)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, ErrNotRegular
	}
	return f, fi, nil
}

// readRegular reads a regular file of at most max bytes with four system
// calls (open, fstat, read, close; an empty file needs no read), without the os.File machinery. The
// open never blocks (a FIFO is refused, not waited on); noFollow makes a
// final symbolic link fail with ELOOP.
func readRegular(path string, max int64, noFollow bool) ([]byte, error) {
	flags := syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NONBLOCK | syscall.O_NOCTTY
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	var fd int
	for {
		var err error
		fd, err = syscall.Open(path, flags, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		break
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, ErrNotSmallRegular
	}
	if st.Size > max {
		return nil, ErrNotSmallRegular
	}
	b := make([]byte, st.Size+1)
	n := 0
	for n < len(b) {
		m, err := syscall.Read(fd, b[n:])
		if err == syscall.EINTR || err == syscall.EAGAIN {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
		if int64(n) == st.Size {
			break // all fstat promised: the file is read as it was then
		}
	}
	if int64(n) > st.Size {
		return nil, errors.New("the file grew while it was read")
	}
	return b[:n], nil
}
