//go:build unix && !linux

package dirsnap

import (
	"os"
	"syscall"

	"github.com/toolscope/toolscope/internal/fsys"
)

type stamp struct{ dev, ino uint64 }

// StampOf is never ok here: nothing is cached.
func StampOf(*syscall.Stat_t) Stamp { return Stamp{} }

// statDir stats dir for its identity; the listing is never cached.
func statDir(dir string) (stamp, bool, error) {
	var st syscall.Stat_t
	if err := fsys.Stat(dir, &st); err != nil {
		return stamp{}, false, &os.PathError{Op: "stat", Path: dir, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return stamp{}, false, &os.PathError{Op: "open", Path: dir, Err: errNotDir}
	}
	return stamp{uint64(st.Dev), uint64(st.Ino)}, false, nil
}
