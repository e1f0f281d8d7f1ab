package dirsnap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A directory found too large is remembered as such under its stamp: a
// later Read with the same or a smaller limit fails without reading it
// again; a larger limit, or a change, reads it.
func TestTooManyRemembered(t *testing.T) {
	d := t.TempDir()
	for i := 0; i < 10; i++ {
		os.WriteFile(filepath.Join(d, fmt.Sprint(i)), nil, 0o644)
	}
	settle()
	if _, err := Read(d, 5); !errors.Is(err, ErrTooMany) {
		t.Fatalf("10 entries, limit 5: %v", err)
	}
	before := reads.Load()
	for _, limit := range []int{5, 3} {
		if _, err := Read(d, limit); !errors.Is(err, ErrTooMany) {
			t.Fatalf("limit %d: %v", limit, err)
		}
	}
	if n := reads.Load() - before; n != 0 {
		t.Errorf("a directory known to be too large was read %d more times", n)
	}
	if l, err := Read(d, 0); err != nil || len(l.Names) != 10 {
		t.Fatalf("no limit: %v, %v", l, err)
	}
	for i := 0; i < 5; i++ {
		os.Remove(filepath.Join(d, fmt.Sprint(i)))
	}
	if l, err := Read(d, 5); err != nil || len(l.Names) != 5 {
		t.Fatalf("5 entries left, limit 5: %v, %v", l, err)
	}
}

// The stamp of an lstat of a directory is the one Stat reads: it finds the
// remembered listing. A file's lstat gives no stamp.
func TestStampOf(t *testing.T) {
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, "f"), nil, 0o644)
	settle()
	l, err := Read(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(d, &st); err != nil {
		t.Fatal(err)
	}
	s := StampOf(&st)
	want, _ := Stat(d)
	if s != want {
		t.Fatalf("StampOf(lstat) = %+v, Stat = %+v", s, want)
	}
	if got, ok := Cached(d, s); !ok || got != l {
		t.Error("the lstat's stamp did not find the current listing")
	}
	if err := syscall.Lstat(filepath.Join(d, "f"), &st); err != nil {
		t.Fatal(err)
	}
	if s := StampOf(&st); s.ok {
		t.Error("a file's lstat gave a directory stamp")
	}
	os.WriteFile(filepath.Join(d, "g"), nil, 0o644)
	syscall.Lstat(d, &st)
	if _, ok := Cached(d, StampOf(&st)); ok {
		t.Error("a changed directory's lstat found the old listing")
	}
}
