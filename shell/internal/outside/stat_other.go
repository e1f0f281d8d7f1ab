//go:build !linux

package outside

import (
	"io/fs"
	"os"
)

// Stamp is empty off Linux: nothing is stamped, and git config files,
// indexes and HEAD files are read every time.
type Stamp struct{}

// Stat implements [Access].
func (System) Stat(path string, follow bool) (Info, error) {
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	fi, err := stat(path)
	if err != nil {
		return Info{}, err
	}
	t := fi.Mode().Type()
	if t != 0 && t != fs.ModeDir && t != fs.ModeSymlink {
		t = fs.ModeIrregular
	}
	return Info{Type: t, Size: fi.Size()}, nil
}
