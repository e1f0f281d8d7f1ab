//go:build !unix

package outside

import (
	"errors"
	"io"
	"os"
)

// openRegular opens the regular file at path for reading; anything else is
// refused with ErrNotRegular.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
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

// readRegular reads a regular file of at most max bytes (noFollow is not
// honoured here: the callers' link checks come first).
func readRegular(path string, max int64, noFollow bool) ([]byte, error) {
	f, fi, err := openRegular(path)
	if errors.Is(err, ErrNotRegular) {
		return nil, ErrNotSmallRegular
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, ErrNotSmallRegular
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
