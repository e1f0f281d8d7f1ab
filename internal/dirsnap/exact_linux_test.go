package dirsnap

import (
	"syscall"
	"testing"
)

// A listing is exact (a missing name cannot be opened) only on the file
// systems whose case folding the directory's flags report, and never for
// procfs or a file system not known to match bytes.
func TestListingExact(t *testing.T) {
	dir := t.TempDir()
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	l, err := Read(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := exactFS[int64(fs.Type)] && getFlagsRequest() != 0; l.Exact != want {
		t.Errorf("Exact = %v on file system %#x; want %v", l.Exact, fs.Type, want)
	}
	if l, err := Read("/proc", 0); err != nil || l.Exact {
		t.Errorf("/proc: exact=%v err=%v; want not exact", l != nil && l.Exact, err)
	}
	if exactFS[0x794C7630] || exactFS[0x58465342] || exactFS[0x2FC12FC1] {
		t.Error("overlayfs, xfs (ascii-ci) and zfs (casesensitivity) may match names in another case")
	}
}
