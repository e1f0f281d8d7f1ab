package pathpolicy

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tree makes dirs and links under a fresh resolved temp dir and returns it.
func tree(t testing.TB, dirs []string, links map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for l, target := range links {
		if err := os.Symlink(strings.ReplaceAll(target, "@", root), filepath.Join(root, l)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestResolveDotDotAfterLink(t *testing.T) {
	// proj/a/b/c/root -> ../../.. (that is, proj): root/.. is proj's parent.
	r := tree(t, []string{"proj/a/b/c"}, map[string]string{"proj/a/b/c/root": "../../.."})
	got, err := Resolve(r + "/proj/a/b/c/root/../ESCAPED")
	if err != nil {
		t.Fatal(err)
	}
	if want := r + "/ESCAPED"; got.Path != want {
		t.Fatalf("Resolve = %q, want %q (filepath.Clean would say %q)", got.Path, want, filepath.Clean(r+"/proj/a/b/c/root/../ESCAPED"))
	}
	if got.Exists {
		t.Error("ESCAPED does not exist")
	}
	// And the kernel agrees: the file lands there.
	if err := os.WriteFile(r+"/proj/a/b/c/root/../ESCAPED", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r + "/ESCAPED"); err != nil {
		t.Fatalf("kernel wrote elsewhere: %v", err)
	}
}

func TestResolveCases(t *testing.T) {
	r := tree(t, []string{"p/d/e", "out"}, map[string]string{
		"p/up":      "..",
		"p/abs":     "@/out",
		"p/chain":   "up/p/up/out",
		"p/dangle":  "@/out/missing/file",
		"p/loop1":   "loop2",
		"p/loop2":   "loop1",
		"p/d/e/top": "../../..",
	})
	if err := os.WriteFile(r+"/p/file", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in, want string
		exists   bool
		err      error
	}{
		{"/p/d/e", "/p/d/e", true, nil},
		{"/p/d/e/", "/p/d/e", true, nil},
		{"/p//d/./e", "/p/d/e", true, nil},
		{"/p/abs/x", "/out/x", false, nil},
		{"/p/up/out", "/out", true, nil},
		{"/p/chain", "/out", true, nil},
		{"/p/d/e/top/..", "", true, nil}, // top is r: its parent is r's parent
		{"/p/dangle", "/out/missing/file", false, nil},
		{"/p/new/../x", "/p/x", false, nil},
		{"/p/file/x", "", false, ErrNotDir},
		{"/p/file/..", "", false, ErrNotDir},
		{"/p/file/", "", false, ErrNotDir},
		{"/p/loop1", "", false, ErrLoop},
		{"/p/loop1/x", "", false, ErrLoop},
	} {
		got, err := Resolve(r + c.in)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("Resolve(%s) = %v, %v; want error %v", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Resolve(%s): %v", c.in, err)
			continue
		}
		want := r + c.want
		if c.want == "" {
			want = filepath.Dir(r)
		}
		if got.Path != want || got.Exists != c.exists {
			t.Errorf("Resolve(%s) = %q exists=%v, want %q exists=%v", c.in, got.Path, got.Exists, want, c.exists)
		}
	}
}

func TestResolveProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc")
	}
	for _, p := range []string{"/dev/fd/0", "/proc/self/cwd/x", "/proc/self/root/etc/passwd", "/proc/1/task/1/cwd", "/dev/stdin"} {
		got, err := Resolve(p)
		if err != nil {
			t.Errorf("Resolve(%s): %v", p, err)
			continue
		}
		if !got.Proc {
			t.Errorf("Resolve(%s) = %+v, want a /proc magic path", p, got)
		}
	}
	got, err := Resolve("/dev/fd/../environ")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.Path, "/proc/") || !strings.HasSuffix(got.Path, "/environ") {
		t.Errorf("Resolve(/dev/fd/../environ) = %q, want /proc/<pid>/environ", got.Path)
	}
}

func TestResolveBounds(t *testing.T) {
	long := "/" + strings.Repeat("a/", 40000)
	start := time.Now()
	if _, err := Resolve(long); !errors.Is(err, ErrTooLong) {
		t.Errorf("Resolve(80 kB path) error = %v, want ErrTooLong", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Resolve of a hostile path took %v", d) // a gross bound only: the real cost is microseconds
	}
	// A path just under the limit made of existing components and dot-dots,
	// with as many links as the kernel follows.
	r := tree(t, []string{"d"}, map[string]string{"d/up": ".."})
	p := r + strings.Repeat("/d/..", (MaxPathLen-len(r))/5-MaxLinks-1) + strings.Repeat("/d/up", MaxLinks)
	got, err := Resolve(p)
	if err != nil || got.Path != r {
		t.Errorf("Resolve(d/.. and d/up repeated) = %q, %v; want %q", got.Path, err, r)
	}
	if _, kerr := os.Stat(p); kerr != nil {
		t.Errorf("the kernel cannot resolve it: %v", kerr)
	}
	if _, err := Resolve(p + "/d/up"); !errors.Is(err, ErrLoop) {
		t.Errorf("41 links: error %v, want ErrLoop", err)
	}
	if _, kerr := os.Stat(p + "/d/up"); kerr == nil {
		t.Errorf("the kernel follows 41 links")
	}
	if _, err := Resolve("relative/x"); !errors.Is(err, ErrRelative) {
		t.Errorf("Resolve(relative) error = %v", err)
	}
}

// TestResolveKernel compares Resolve with the kernel on random paths through
// a tree of directories and links: a file created at the path lands where
// Resolve says, and a path the kernel cannot reach is never reported as
// existing.
func TestResolveKernel(t *testing.T) {
	r := tree(t, []string{"a/b/c", "a/x", "o/p"}, map[string]string{
		"a/l1":     "b/c",
		"a/b/l2":   "../..",
		"a/b/c/l3": "../../../o",
		"a/x/l4":   "@/a/b",
		"o/p/l5":   "../../a/b/c/l3/p",
		"o/dead":   "nowhere/at/all",
	})
	comps := []string{"a", "b", "c", "x", "o", "p", "l1", "l2", "l3", "l4", "l5", "dead", "..", ".", "n"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 4000; i++ {
		var b strings.Builder
		b.WriteString(r)
		for n := 1 + rng.IntN(7); n > 0; n-- {
			b.WriteString("/" + comps[rng.IntN(len(comps))])
		}
		p := b.String()
		got, err := Resolve(p)
		fi, kerr := os.Stat(p)
		switch {
		case kerr == nil:
			if err != nil || !got.Exists {
				t.Fatalf("kernel reaches %s, Resolve = %+v, %v", p, got, err)
			}
			gi, gerr := os.Stat(got.Path)
			if gerr != nil || !os.SameFile(fi, gi) {
				t.Fatalf("%s: kernel reaches %v, Resolve says %s", p, fi.Name(), got.Path)
			}
		case err == nil && got.Exists:
			t.Fatalf("kernel cannot reach %s (%v), Resolve says it exists at %s", p, kerr, got.Path)
		}
		// Creating the missing last component lands where Resolve says.
		if kerr != nil && err == nil && !got.Exists {
			if parent, perr := os.Stat(filepath.Dir(p)); perr == nil && parent.IsDir() && filepath.Base(p) != "." && filepath.Base(p) != ".." {
				if werr := os.Mkdir(p, 0o755); werr == nil {
					if _, serr := os.Stat(got.Path); serr != nil {
						t.Fatalf("mkdir %s landed elsewhere than %s", p, got.Path)
					}
					os.Remove(got.Path)
				}
			}
		}
	}
}

func FuzzResolve(f *testing.F) {
	r := tree(f, []string{"a/b"}, map[string]string{"a/up": "..", "a/loop": "loop", "a/abs": "/"})
	for _, s := range []string{"a/b", "a/up/a/up/..", "a/loop/x", "a/abs/proc/self/fd/0", "", "..", "a/b/../../.."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Resolve(r + "/" + s)
		if err == nil && (!filepath.IsAbs(got.Path) || filepath.Clean(got.Path) != got.Path) {
			t.Fatalf("Resolve(%q) = %q: not absolute and clean", s, got.Path)
		}
	})
}
