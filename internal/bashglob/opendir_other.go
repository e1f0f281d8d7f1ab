//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package bashglob

import (
	"errors"
	"io/fs"
	"os"
)

// openDir opens a directory for reading. It checks first that path is a
// directory, so that it does not block on a FIFO.
func openDir(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &os.PathError{Op: "open", Path: path, Err: errNotDir}
	}
	return os.Open(path)
}

var errNotDir = errors.New("not a directory")

// isAbsence reports whether err means that a path does not exist.
func isAbsence(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir)
}
