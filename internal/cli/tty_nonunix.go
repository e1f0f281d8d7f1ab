//go:build !unix

package cli

// isTTY reports false: toolscope treats the terminal as absent here.
func isTTY(fd uintptr) bool { return false }
