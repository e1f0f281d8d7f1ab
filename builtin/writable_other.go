//go:build !unix

package builtin

import (
	"io/fs"

	"github.com/toolscope/toolscope/tool"
)

// notWritable refuses a read-only file (see the unix version).
func notWritable(path string, fi fs.FileInfo) *tool.Chunk {
	if fi.Mode().Perm()&0o222 == 0 {
		return tool.Errorf("Error: %s is read-only. It was not changed; if it is meant to be edited, make it writable first.", path)
	}
	return nil
}
