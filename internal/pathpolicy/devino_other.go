//go:build !unix

package pathpolicy

import (
	"io/fs"
	"os"

	"github.com/toolscope/toolscope/internal/dirsnap"
)

// lstatStamp is lstatType; no stamp is known here.
func lstatStamp(p string) (fs.FileMode, dirsnap.Stamp, error) {
	m, err := lstatType(p)
	return m, dirsnap.Stamp{}, err
}

// lstatType is os.Lstat reduced to the file's type.
func lstatType(p string) (fs.FileMode, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0, err
	}
	switch m := fi.Mode(); {
	case m.IsDir():
		return fs.ModeDir, nil
	case m&fs.ModeSymlink != 0:
		return fs.ModeSymlink, nil
	case m.IsRegular():
		return 0, nil
	}
	return fs.ModeIrregular, nil
}
