//go:build !unix

package shell

import (
	"errors"
	"io"
	"os"
)

// readRegular reads a regular file of at most max bytes (noFollow is not
// honoured here: the callers' link checks come first).
func readRegular(path string, max int64, noFollow bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, errNotSmallRegular
	}
	b := make([]byte, fi.Size()+1)
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if int64(n) > fi.Size() {
		return nil, errors.New("the file grew while it was read")
	}
	return b[:n], nil
}
