package dirsnap

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// settle waits until directories made now are old enough to be cached.
func settle() { time.Sleep(1100 * time.Millisecond) }

func names(t *testing.T, dir string) []string {
	t.Helper()
	l, err := Read(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	return l.Names
}

func TestReadSortedWithTypes(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, "b"), nil, 0o644)
	os.Mkdir(filepath.Join(d, "a"), 0o755)
	os.Symlink("/", filepath.Join(d, "c"))
	l, err := Read(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Names, []string{"a", "b", "c"}) {
		t.Fatalf("names %q", l.Names)
	}
	for name, want := range map[string]fs.FileMode{"a": fs.ModeDir, "b": 0, "c": fs.ModeSymlink} {
		if got, ok := l.Type(name); !ok || got != want {
			t.Errorf("Type(%q) = %v, %v; want %v", name, got, ok, want)
		}
	}
	if _, ok := l.Type("x"); ok {
		t.Error("Type of a missing name found")
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	f := filepath.Join(d, "f")
	os.WriteFile(f, nil, 0o644)
	if _, err := Read(f, 0); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("a file: %v", err)
	}
	if _, err := Read(filepath.Join(d, "missing"), 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing dir: %v", err)
	}
	for i := 0; i < 5; i++ {
		os.WriteFile(filepath.Join(d, fmt.Sprint("n", i)), nil, 0o644)
	}
	if _, err := Read(d, 3); !errors.Is(err, ErrTooMany) {
		t.Errorf("limit: %v", err)
	}
	if _, err := Read(d, 6); err != nil {
		t.Errorf("within the limit: %v", err)
	}
}

// Every change of a directory's entries, made by any means after a listing
// was cached, shows in the next Read.
func TestCachedListingFollowsChanges(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("listings are cached on Linux only")
	}
	changes := []struct {
		name string
		do   func(d, other string) error
		want []string
	}{
		{"create", func(d, _ string) error { return os.WriteFile(filepath.Join(d, "--pre=sh"), nil, 0o644) }, []string{"--pre=sh", "f", "g", "sub"}},
		{"remove", func(d, _ string) error { return os.Remove(filepath.Join(d, "g")) }, []string{"f", "sub"}},
		{"rename over", func(d, _ string) error { return os.Rename(filepath.Join(d, "g"), filepath.Join(d, "f")) }, []string{"f", "sub"}},
		{"symlink", func(d, _ string) error { return os.Symlink("/etc", filepath.Join(d, "l")) }, []string{"f", "g", "l", "sub"}},
		{"hard link", func(d, _ string) error { return os.Link(filepath.Join(d, "f"), filepath.Join(d, "h")) }, []string{"f", "g", "h", "sub"}},
		{"rename in", func(d, other string) error {
			os.WriteFile(filepath.Join(other, "in"), nil, 0o644)
			return os.Rename(filepath.Join(other, "in"), filepath.Join(d, "in"))
		}, []string{"f", "g", "in", "sub"}},
		{"rmdir", func(d, _ string) error { return os.Remove(filepath.Join(d, "sub")) }, []string{"f", "g"}},
		{"file replaced by a link", func(d, _ string) error {
			os.Remove(filepath.Join(d, "f"))
			return os.Symlink("/", filepath.Join(d, "f"))
		}, []string{"f", "g", "sub"}},
		// touch -d cannot set the change time back: mtime restored, ctime moved.
		{"mtime restored", func(d, _ string) error {
			fi, _ := os.Stat(d)
			if err := os.WriteFile(filepath.Join(d, "t"), nil, 0o644); err != nil {
				return err
			}
			return os.Chtimes(d, fi.ModTime(), fi.ModTime())
		}, []string{"f", "g", "sub", "t"}},
	}
	// One directory per change, made first and left to settle once.
	dirs := make([]string, len(changes))
	other := t.TempDir()
	for i := range changes {
		d := filepath.Join(t.TempDir(), "d")
		os.Mkdir(d, 0o755)
		os.WriteFile(filepath.Join(d, "f"), nil, 0o644)
		os.WriteFile(filepath.Join(d, "g"), nil, 0o644)
		os.Mkdir(filepath.Join(d, "sub"), 0o755)
		dirs[i] = d
	}
	settle()
	for i, c := range changes {
		d := dirs[i]
		t.Run(c.name, func(t *testing.T) {
			first, err := Read(d, 0)
			if err != nil {
				t.Fatal(err)
			}
			if second, _ := Read(d, 0); first != second {
				t.Fatal("a settled directory was read twice (not cached)")
			}
			if err := c.do(d, other); err != nil {
				t.Fatal(err)
			}
			l, err := Read(d, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(l.Names, c.want) {
				t.Errorf("%q, want %q", l.Names, c.want)
			}
			if c.name == "file replaced by a link" {
				if typ, _ := l.Type("f"); typ != fs.ModeSymlink {
					t.Errorf("f has type %v, want a link", typ)
				}
			}
		})
	}
}

// A directory changed in the second before it was read is not cached: a
// later change in the same clock tick could leave its times as they were.
func TestFreshDirectoryNotCached(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	a, _ := Read(d, 0)
	b, _ := Read(d, 0)
	if a == b {
		t.Fatal("a directory changed just now was cached")
	}
}

// A path that is made to lead to another directory gets that directory's
// listing.
func TestPathRetargeted(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	os.Mkdir(a, 0o755)
	os.Mkdir(b, 0o755)
	os.WriteFile(filepath.Join(a, "in-a"), nil, 0o644)
	os.WriteFile(filepath.Join(b, "in-b"), nil, 0o644)
	link := filepath.Join(root, "l")
	os.Symlink("a", link)
	settle()
	if got := names(t, link); !slices.Equal(got, []string{"in-a"}) {
		t.Fatalf("through the link: %q", got)
	}
	names(t, link)
	os.Remove(link)
	os.Symlink("b", link)
	if got := names(t, link); !slices.Equal(got, []string{"in-b"}) {
		t.Fatalf("after retargeting: %q, want [in-b]", got)
	}
	// The same with a directory renamed away and another put in its place.
	os.Rename(a, filepath.Join(root, "a2"))
	os.Rename(b, a)
	if got := names(t, a); !slices.Equal(got, []string{"in-b"}) {
		t.Fatalf("after replacing the directory: %q, want [in-b]", got)
	}
}

// procfs keeps no change times that follow its entries: never cached.
func TestProcNotCached(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("no /proc")
	}
	a, err := Read("/proc", 0)
	if err != nil {
		t.Skip(err)
	}
	b, _ := Read("/proc", 0)
	if a == b {
		t.Fatal("/proc was cached")
	}
}

// Writers racing with readers: once the writers are done, a Read sees
// every file they made.
func TestRacingWriters(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	settle()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					Read(d, 0)
				}
			}
		}()
	}
	want := []string{}
	for i := 0; i < 200; i++ {
		n := fmt.Sprintf("f%03d", i)
		os.WriteFile(filepath.Join(d, n), nil, 0o644)
		want = append(want, n)
	}
	close(stop)
	wg.Wait()
	if got := names(t, d); !slices.Equal(got, want) {
		t.Fatalf("after racing writers: %d names, want %d", len(got), len(want))
	}
}

func TestCachedNeedsTheSameStamp(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("listings are cached on Linux only")
	}
	d := t.TempDir()
	settle()
	l, _ := Read(d, 0)
	st, err := Stat(d)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := Cached(d, st); !ok || got != l {
		t.Fatal("Cached missed a current listing")
	}
	os.WriteFile(filepath.Join(d, "new"), nil, 0o644)
	if _, ok := Cached(d, st); ok {
		// The old stamp still matches the cache: the caller must stat again.
		t.Log("an old stamp finds the old listing, as documented")
	}
	st2, _ := Stat(d)
	if _, ok := Cached(d, st2); ok {
		t.Fatal("Cached answered with a listing older than the directory")
	}
}
