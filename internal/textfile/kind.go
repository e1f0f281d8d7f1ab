package textfile

import (
	"io/fs"
)

// ModeKind names what a file of mode m is, for messages the model can act on:
// "a named pipe (FIFO)", not "p---------".
func ModeKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeIrregular != 0:
		return "a special file"
	}
	return "a regular file"
}
