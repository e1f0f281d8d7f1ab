//go:build !linux && !darwin && !freebsd && !netbsd && !dragonfly

package builtin

import "os"

// changed reports whether the file fi described has changed since, as now
// describes it (by its modification time and size here).
func changed(fi, now os.FileInfo) bool {
	return !fi.ModTime().Equal(now.ModTime()) || fi.Size() != now.Size()
}
