//go:build !linux

package dirsnap

import (
	"os"
	"syscall"
)

// Elsewhere than Linux a stamp only identifies the directory (statDir in
// the unix and windows files): nothing is cached.
func settledStamp(*os.File) (Stamp, bool) { return Stamp{}, false }

func openDir(path string) (*os.File, error) { return os.Open(path) }

var errNotDir error = syscall.ENOTDIR
