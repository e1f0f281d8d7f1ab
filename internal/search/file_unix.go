//go:build unix

package search

import (
	"errors"
	"io"
	"io/fs"
	"syscall"
)

// rawFile reads a file with plain system calls: os.File would add an fstat
// and poller bookkeeping per file, which shows when searching many small files.
type rawFile struct{ fd int }

// openFile opens a regular file for searching. O_NONBLOCK keeps the open
// of a named pipe from waiting for a writer (forever, past any deadline);
// anything but a regular file is then refused.
func openFile(path string) (*rawFile, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			syscall.Close(fd)
			if err == nil {
				err = errNotRegular
			}
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return &rawFile{fd}, nil
	}
}

var errNotRegular = errors.New("not a regular file")

func (f *rawFile) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(f.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *rawFile) Close() error { return syscall.Close(f.fd) }
