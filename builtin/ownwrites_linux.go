//go:build linux

package builtin

import (
	"os"
	"syscall"
)

// changed reports whether the file fi described has changed since, as now
// describes it: its change time, which no process can set back, moved.
func changed(fi, now os.FileInfo) bool {
	a, ok1 := fi.Sys().(*syscall.Stat_t)
	b, ok2 := now.Sys().(*syscall.Stat_t)
	return !ok1 || !ok2 || a.Ctim != b.Ctim
}
