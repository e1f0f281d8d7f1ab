//go:build !linux

package host

import "os"

// reserve: elsewhere than Linux the room for a save is not checked ahead.
func reserve(*os.File, int64) error { return nil }
