//go:build !linux

package cli

import "os"

// isTTY reports whether fd is a character device: a terminal, most likely.
func isTTY(fd uintptr) bool {
	fi, err := os.NewFile(fd, "").Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
