package walk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// With ModTime and NoPath, every file has the modification time lstat (or,
// for a link, stat) gives, Path is left empty below a directory root, and
// Info still works.
func TestModTimeNoPath(t *testing.T) {
	root := t.TempDir()
	for i := range 30 {
		p := filepath.Join(root, fmt.Sprintf("d%d", i%3), fmt.Sprintf("f%02d", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := time.Date(2020, 1, 1, 0, 0, i, i*1000+7, time.UTC)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("d0/f00", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	n := 0
	for e, err := range Files(context.Background(), root, &Options{ModTime: true, NoPath: true}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		path := filepath.Join(root, e.Rel)
		fi, err := os.Stat(path) // the target's, for the link
		if err != nil {
			t.Fatal(err)
		}
		if !e.ModTime.Equal(fi.ModTime()) {
			t.Errorf("%s: ModTime %v, stat %v", e.Rel, e.ModTime, fi.ModTime())
		}
		if e.Target == "" && e.Path != "" {
			t.Errorf("%s: Path %q with NoPath", e.Rel, e.Path)
		}
		if info, err := e.Info(); err != nil || info.Size() != 1 && e.Target == "" {
			t.Errorf("%s: Info() = %v, %v", e.Rel, info, err)
		}
	}
	if n != 31 {
		t.Errorf("%d files, want 31", n)
	}
}
