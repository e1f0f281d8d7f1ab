//go:build !linux

package shell

import "os"

type linkStamp struct{}

// fileInfo is what statFile learns of a path. Off Linux nothing is
// stamped: git config files and indexes are read every time.
type fileInfo struct {
	regular, dir bool
	size         int64
	stamp        linkStamp
	stamped      bool
}

// statFile stats path, following links.
func statFile(path string) (fileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileInfo{}, err
	}
	return fileInfo{regular: fi.Mode().IsRegular(), dir: fi.IsDir(), size: fi.Size()}, nil
}

// regularStamp is never ok here: HEAD files are read every time.
func regularStamp(string) (linkStamp, bool) { return linkStamp{}, false }
