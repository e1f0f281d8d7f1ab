//go:build unix && !(linux && (amd64 || arm64))

package fsys

import "syscall"

// Stat is syscall.Stat (it follows links); errors are bare errno values.
func Stat(path string, st *syscall.Stat_t) error { return syscall.Stat(path, st) }

// Lstat is syscall.Lstat (it does not follow a final link); errors are
// bare errno values.
func Lstat(path string, st *syscall.Stat_t) error { return syscall.Lstat(path, st) }

const fastPath = false
