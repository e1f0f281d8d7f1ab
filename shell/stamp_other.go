//go:build !linux

package shell

import "os"

// linkStamp is empty off Linux: git config files, indexes and HEAD files
// are read every time.
type linkStamp struct{}

// statFile stats path, following links.
func statFile(path string) (fileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileInfo{}, err
	}
	return fileInfo{regular: fi.Mode().IsRegular(), dir: fi.IsDir(), size: fi.Size()}, nil
}

// regularStamp is never ok here.
func regularStamp(string) (linkStamp, bool) { return linkStamp{}, false }
