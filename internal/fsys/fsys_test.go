//go:build unix

package fsys

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The calls answer as syscall's own do, for files, links, missing paths,
// paths through a file, and paths at and beyond the fast path's length.
func TestSameAsSyscall(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "l")
	if err := os.Symlink("f", link); err != nil {
		t.Fatal(err)
	}
	// A path of exactly MaxFastPath bytes and one a byte longer, both
	// naming dir through "./" steps.
	pad := func(n int) string {
		p := dir
		for len(p)+2 <= n-len("/f") {
			p += "/."
		}
		return p + strings.Repeat("/", n-len(p)-len("/f")) + "/f"
	}
	paths := []string{dir, file, link, filepath.Join(dir, "missing"), filepath.Join(file, "x"), "", "rel-missing",
		pad(MaxFastPath), pad(MaxFastPath + 1), "a\x00b"}
	for _, p := range paths {
		for _, c := range []struct {
			name string
			ours func(string, *syscall.Stat_t) error
			std  func(string, *syscall.Stat_t) error
		}{{"Stat", Stat, syscall.Stat}, {"Lstat", Lstat, syscall.Lstat}} {
			var a, b syscall.Stat_t
			ea, eb := c.ours(p, &a), c.std(p, &b)
			if !errors.Is(ea, eb) && !(ea == nil && eb == nil) {
				t.Errorf("%s(%.40q...): %v, syscall says %v", c.name, p, ea, eb)
			}
			if ea == nil && (a.Ino != b.Ino || a.Mode != b.Mode || a.Size != b.Size) {
				t.Errorf("%s(%.40q...): ino %d mode %o, syscall says ino %d mode %o", c.name, p, a.Ino, a.Mode, b.Ino, b.Mode)
			}
		}
	}
	var st syscall.Stat_t
	if err := Stat(filepath.Join(dir, "missing"), &st); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing path: %v, want fs.ErrNotExist", err)
	}
	if err := Lstat(link, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFLNK {
		t.Errorf("Lstat of a link: mode %o, %v", st.Mode, err)
	}
}

func TestNoAllocation(t *testing.T) {
	dir := t.TempDir()
	var st syscall.Stat_t
	n := testing.AllocsPerRun(100, func() { Stat(dir, &st); Lstat(dir, &st) })
	if fastPath && n != 0 {
		t.Errorf("%v allocations per Stat and Lstat, want 0", n)
	}
}

func BenchmarkStat(b *testing.B) {
	dir := b.TempDir()
	var st syscall.Stat_t
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Stat(dir, &st)
	}
}

func BenchmarkSyscallStat(b *testing.B) {
	dir := b.TempDir()
	var st syscall.Stat_t
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		syscall.Stat(dir, &st)
	}
}
