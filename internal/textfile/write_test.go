package textfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// dirNames lists dir, to check that no temporary file was left behind.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func umask() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}

func TestWriteAtomicModes(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []fs.FileMode{0o600, 0o755, 0o640, 0o444, 0o777, fs.ModeSetuid | fs.ModeSetgid | 0o755} {
		p := filepath.Join(dir, fmt.Sprintf("f%o", mode))
		os.WriteFile(p, []byte("old"), 0o600)
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := WriteAtomic(p, []byte("new"), &WriteOptions{Perm: 0o600}); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(p)
		if fi.Mode() != mode || readString(t, p) != "new" {
			t.Errorf("mode %v after write, want %v; content %q", fi.Mode(), mode, readString(t, p))
		}
	}
	// New files: Perm (0644 by default), through the umask.
	for perm, want := range map[fs.FileMode]fs.FileMode{0: 0o644, 0o600: 0o600, 0o755: 0o755} {
		p := filepath.Join(dir, fmt.Sprintf("new%o", perm))
		if err := WriteAtomic(p, []byte("x"), &WriteOptions{Perm: perm}); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(p); fi.Mode() != want&^umask() {
			t.Errorf("new file with Perm %v: mode %v, want %v", perm, fi.Mode(), want&^umask())
		}
	}
	if err := WriteAtomic(filepath.Join(dir, "nilopts"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "nilopts")); fi.Size() != 0 || fi.Mode() != 0o644&^umask() {
		t.Errorf("nil options: %v", fi.Mode())
	}
	if names := dirNames(t, dir); slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, ".") }) {
		t.Errorf("stray files: %v", names)
	}
}

func TestWriteAtomicKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root can give a file away")
	}
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("old"), 0o644)
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(p, []byte("new"), nil); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 65534 || st.Gid != 65534 {
		t.Errorf("owner %d:%d, want 65534:65534", st.Uid, st.Gid)
	}
}

func TestWriteAtomicCreateDirs(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "c.txt")
	if err := WriteAtomic(p, []byte("x"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("without CreateDirs: %v", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Fatalf("left %v", names)
	}
	if err := WriteAtomic(p, []byte("x"), &WriteOptions{CreateDirs: true}); err != nil {
		t.Fatal(err)
	}
	if readString(t, p) != "x" {
		t.Error("content")
	}
	if fi, _ := os.Stat(filepath.Join(dir, "a", "b")); fi.Mode().Perm() != 0o755&^umask() {
		t.Errorf("dir mode %v", fi.Mode())
	}
}

func TestWriteAtomicSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real", "target.txt")
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	os.WriteFile(target, []byte("old"), 0o600)
	link1 := filepath.Join(dir, "link1")
	link2 := filepath.Join(dir, "link2")
	os.Symlink("real/target.txt", link1) // relative
	os.Symlink(link1, link2)             // absolute, to a link

	if err := WriteAtomic(link2, []byte("new"), nil); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link1, link2} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink", l)
		}
	}
	if fi, _ := os.Stat(target); readString(t, target) != "new" || fi.Mode() != 0o600 {
		t.Errorf("target: %q, %v", readString(t, target), fi.Mode())
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"link1", "link2", "real"}) {
		t.Errorf("dir: %v", names)
	}
	if names := dirNames(t, filepath.Join(dir, "real")); !slices.Equal(names, []string{"target.txt"}) {
		t.Errorf("dir: %v", names)
	}

	// A dangling link creates its target.
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("real/created.txt", dangling)
	if err := WriteAtomic(dangling, []byte("c"), nil); err != nil {
		t.Fatal(err)
	}
	if readString(t, filepath.Join(dir, "real", "created.txt")) != "c" {
		t.Error("dangling link target not created")
	}

	// A loop is an error.
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if err := WriteAtomic(loop, []byte("x"), nil); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("loop: %v", err)
	}
}

// TestWriteAtomicFailures covers failures that happen for real, even as root.
func TestWriteAtomicFailures(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("original"), 0o644)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "inner"), []byte("i"), 0o644)

	for _, tc := range []struct {
		name string
		path string
		opts *WriteOptions
		is   error
	}{
		{"parent is a file", filepath.Join(file, "x"), nil, syscall.ENOTDIR},
		{"parent is a file, CreateDirs", filepath.Join(file, "x", "y"), &WriteOptions{CreateDirs: true}, syscall.ENOTDIR},
		{"target is a directory", sub, nil, ErrNotRegular},
		{"target is the root directory", "/", nil, ErrNotRegular},
		{"empty path", "", nil, fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := WriteAtomic(tc.path, []byte("new"), tc.opts)
			if !errors.Is(err, tc.is) {
				t.Fatalf("err = %v, want %v", err, tc.is)
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"file", "sub"}) {
				t.Errorf("dir: %v", names)
			}
			if names := dirNames(t, sub); !slices.Equal(names, []string{"inner"}) {
				t.Errorf("sub: %v", names)
			}
			if readString(t, file) != "original" {
				t.Error("original changed")
			}
		})
	}
}

func TestWriteAtomicReadOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions; TestWriteAtomicFailures and TestWriteAtomicFileSizeLimit fail for real instead")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("original"), 0o644)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	if err := WriteAtomic(p, []byte("new"), nil); !errors.Is(err, fs.ErrPermission) {
		t.Fatalf("err = %v", err)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"f"}) || readString(t, p) != "original" {
		t.Errorf("dir %v, content %q", names, readString(t, p))
	}
}

// TestWriteAtomicHook fails each step in turn: the temporary file is removed and the
// original survives.
func TestWriteAtomicHook(t *testing.T) {
	for _, step := range []string{"write", "chmod", "sync", "close", "rename"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f")
			os.WriteFile(p, []byte("original"), 0o640)
			injected := errors.New("injected")
			var seen []string
			testHook = func(s string) error {
				seen = append(seen, s)
				if s == step {
					return injected
				}
				return nil
			}
			defer func() { testHook = nil }()
			err := WriteAtomic(p, []byte("new content"), nil)
			if !errors.Is(err, injected) {
				t.Fatalf("err = %v", err)
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != p {
				t.Errorf("error %v does not name the target", err)
			}
			if seen[len(seen)-1] != step {
				t.Errorf("steps %v", seen)
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"f"}) {
				t.Errorf("dir: %v", names)
			}
			if fi, _ := os.Stat(p); readString(t, p) != "original" || fi.Mode() != 0o640 {
				t.Errorf("original changed: %q %v", readString(t, p), fi.Mode())
			}
		})
	}
}

// fsizeChildEnv switches the test binary into the child role of TestWriteAtomicFileSizeLimit.
const fsizeChildEnv = "TEXTFILE_FSIZE_CHILD"

// TestWriteAtomicFileSizeLimit makes the write itself fail, for real and as any user: a child
// process with RLIMIT_FSIZE of 1 MiB (and SIGXFSZ ignored) writes 2 MiB.
func TestWriteAtomicFileSizeLimit(t *testing.T) {
	if p := os.Getenv(fsizeChildEnv); p != "" {
		err := WriteAtomic(p, bytes.Repeat([]byte("n"), 2<<20), nil)
		fmt.Printf("child error: %v\n", err)
		if errors.Is(err, syscall.EFBIG) {
			os.Exit(0)
		}
		os.Exit(3)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("original"), 0o644)
	// ulimit -f counts 512-byte blocks; trap '' XFSZ turns the signal into EFBIG.
	cmd := exec.Command("/bin/sh", "-c", `trap '' XFSZ; ulimit -f 2048 && exec "$0" -test.run='^TestWriteAtomicFileSizeLimit$'`, os.Args[0])
	cmd.Env = append(os.Environ(), fsizeChildEnv+"="+p)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("%s", bytes.TrimSpace(bytes.SplitN(out, []byte("\n"), 2)[0]))
	if names := dirNames(t, dir); !slices.Equal(names, []string{"f"}) || readString(t, p) != "original" {
		t.Errorf("dir %v, content %q", names, readString(t, p))
	}
}

// TestWriteAtomicConcurrent: readers never see a mix of two writes.
func TestWriteAtomicConcurrent(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	const size = 256 << 10
	os.WriteFile(p, bytes.Repeat([]byte{'@'}, size), 0o644)
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data := bytes.Repeat([]byte{byte('a' + w)}, size)
			for range 25 {
				if err := WriteAtomic(p, data, nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	var reads int
	go func() {
		defer close(done)
		for {
			select {
			case <-done:
				return
			default:
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Error(err)
				return
			}
			reads++
			if len(b) != size || bytes.Count(b, b[:1]) != size {
				t.Errorf("torn file: %d bytes, first %q", len(b), b[0])
				return
			}
		}
	}()
	wg.Wait()
	done <- struct{}{}
	<-done
	t.Logf("%d reads", reads)
	if names := dirNames(t, dir); !slices.Equal(names, []string{"f"}) {
		t.Errorf("dir: %v", names)
	}
}

func BenchmarkWriteAtomic(b *testing.B) {
	p := filepath.Join(b.TempDir(), "f")
	data := bytes.Repeat([]byte("0123456789abcdef\n"), 4<<10) // 68 KiB
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := WriteAtomic(p, data, nil); err != nil {
			b.Fatal(err)
		}
	}
}
