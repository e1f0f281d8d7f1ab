//go:build !linux && unix

package cli

import "syscall"

// isTTY reports whether fd is a character device: a terminal, most likely.
// (fstat on the number itself: an os.File made around it would close it,
// the caller's descriptor, when collected.)
func isTTY(fd uintptr) bool {
	var st syscall.Stat_t
	return syscall.Fstat(int(fd), &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFCHR
}
