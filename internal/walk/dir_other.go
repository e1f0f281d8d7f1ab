//go:build !(linux && (amd64 || arm64))

package walk

import (
	"io/fs"
	"os"
	"time"
)

// dirHandle is a directory whose entries are in the scratch buffer. Off
// Linux (amd64, arm64) it is read with os.File.ReadDir and its files are
// statted by path.
type dirHandle struct{}

// readNames lists the directory at path in sc.ents.
func readNames(path string, sc *scratch) (dirHandle, error) {
	sc.ents = sc.ents[:0]
	f, err := os.Open(path)
	if err != nil {
		return dirHandle{}, err
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	for _, de := range ents {
		sc.ents = append(sc.ents, rawEnt{name: de.Name(), typ: de.Type()})
	}
	return dirHandle{}, err
}

func (dirHandle) close() {}

// typeOf returns the type of an entry that the listing left unknown (never
// here: ReadDir reports every type).
func (dirHandle) typeOf(dir string, e *rawEnt) fs.FileMode {
	fi, err := os.Lstat(dir + string(os.PathSeparator) + e.name)
	if err != nil {
		return fs.ModeIrregular
	}
	return fi.Mode().Type()
}

// modTime returns a file's modification time (lstat), zero when it cannot
// be had.
func (dirHandle) modTime(dir string, e *rawEnt) time.Time {
	fi, err := os.Lstat(dir + string(os.PathSeparator) + e.name)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}
