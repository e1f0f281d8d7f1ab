//go:build unix

package builtin

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/toolscope/toolscope/tool"
)

// notWritable refuses to replace a file the user could not write in place:
// one without any write permission bit (mode 0444, even for root), one
// this user may not write, or one in a directory this user may not change
// (the rename that replaces it would fail, or, in a directory writable by
// others, give the file a new owner and group). It names which is the
// problem.
func notWritable(path string, fi fs.FileInfo) *tool.Chunk {
	mode := fi.Mode().Perm()
	if mode&0o222 == 0 {
		return tool.Errorf("Error: %s is read-only (mode %04o). It was not changed; if it is meant to be edited, make it writable first (chmod u+w).", path, mode)
	}
	if err := syscall.Access(path, 2 /* W_OK */); err != nil {
		owner := ""
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			owner = fmt.Sprintf(", owner uid %d, group gid %d", st.Uid, st.Gid)
		}
		return tool.Errorf("Error: %s is not writable by this user (mode %04o%s): %v. It was not changed.", path, mode, owner, err)
	}
	dir := filepath.Dir(path)
	if err := syscall.Access(dir, 2|1 /* W_OK|X_OK */); err != nil {
		return tool.Errorf("Error: the directory %s is not writable by this user (%v), so %s cannot be replaced. It was not changed.", dir, err, path)
	}
	return nil
}
