//go:build !unix

package pathpolicy

import "io/fs"

// devIno is unknown here: working directories are resolved every time.
func devIno(fs.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }
