package fsys

import (
	"io/fs"
	"syscall"
)

// Type is the file type of a stat's mode as package io/fs names it: 0 for
// a regular file, fs.ModeDir, fs.ModeSymlink, and fs.ModeIrregular for
// anything else (a FIFO, a socket, a device).
func Type(mode uint32) fs.FileMode {
	switch mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		return 0
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}
