package bashglob

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeEmpty(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, nil, 0o644)
}

func TestExpandBasics(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{".git/config", ".env", "--pre=sh", "a.go", "b.go", "src/x.go", "src/y.txt"} {
		if err := writeEmpty(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		pattern string
		opts    Options
		want    []string
	}{
		{"*", Options{}, []string{"--pre=sh", "a.go", "b.go", "src"}},
		{"*", Options{DotGlob: true}, []string{"--pre=sh", ".env", ".git", "a.go", "b.go", "src"}},
		{".*", Options{}, []string{".env", ".git"}},
		{".*", Options{DotEntries: true}, []string{".", "..", ".env", ".git"}},
		{".[!x]it/config", Options{}, []string{".git/config"}},
		{"[.]git/config", Options{}, nil},
		{"*/", Options{}, []string{"src/"}},
		{"*/*.go", Options{}, []string{"src/x.go"}},
		{"-*", Options{}, []string{"--pre=sh"}},
		{"*.GO", Options{}, nil},
		{"*.GO", Options{FoldCase: true}, []string{"a.go", "b.go"}},
		{"a.go", Options{}, nil}, // no meta characters: bash leaves the word alone
		{"nothing*", Options{}, nil},
	}
	for _, tt := range tests {
		got, err := Expand(tt.pattern, &ExpandOptions{Options: tt.opts, Dir: dir})
		if err != nil {
			t.Errorf("Expand(%q): %v", tt.pattern, err)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Expand(%q, %+v) = %q, want %q", tt.pattern, tt.opts, got, tt.want)
		}
	}
	// Absolute patterns give absolute results and need no Dir.
	got, err := Expand(escapeAll(dir)+"/src/*", nil)
	if err != nil || !slices.Equal(got, []string{dir + "/src/x.go", dir + "/src/y.txt"}) {
		t.Errorf("absolute Expand = %q, %v", got, err)
	}
	if _, err := Expand("*", nil); err == nil {
		t.Errorf("relative Expand without Dir succeeded")
	}
	if _, err := Expand("[[:bogus:]]*", &ExpandOptions{Dir: dir}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Expand of an unsupported pattern: err = %v, want ErrUnsupported", err)
	}
}

func TestExpandBounds(t *testing.T) {
	dir := t.TempDir()
	for i := range 50 {
		if err := writeEmpty(filepath.Join(dir, fmt.Sprintf("d%d/f%02d", i%5, i))); err != nil {
			t.Fatal(err)
		}
	}
	// 5 entries at the top, 10 in each of the five directories.
	count := func(maxEntries, maxResults int, pattern string) ([]string, error) {
		return Expand(pattern, &ExpandOptions{Dir: dir, MaxEntries: maxEntries, MaxResults: maxResults})
	}
	if res, err := count(55, 0, "*/*"); err != nil || len(res) != 50 {
		t.Errorf("Expand with enough budget: %d results, %v", len(res), err)
	}
	if _, err := count(54, 0, "*/*"); !errors.Is(err, ErrTooManyEntries) {
		t.Errorf("Expand over the entry budget: err = %v, want ErrTooManyEntries", err)
	}
	if _, err := count(0, 49, "*/*"); !errors.Is(err, ErrTooManyResults) {
		t.Errorf("Expand over the result budget: err = %v, want ErrTooManyResults", err)
	}
	if res, err := count(0, 50, "*/*"); err != nil || len(res) != 50 {
		t.Errorf("Expand at the result budget: %d results, %v", len(res), err)
	}
	if res, err := count(-1, -1, "*/*"); err != nil || len(res) != 50 {
		t.Errorf("Expand without bounds: %d results, %v", len(res), err)
	}
	// A literal last component costs no directory reads.
	if res, err := count(5, 0, "*/f00"); err != nil || !slices.Equal(res, []string{"d0/f00"}) {
		t.Errorf("Expand(*/f00) = %q, %v", res, err)
	}
}

func TestExpandSymlinkLoops(t *testing.T) {
	dir := t.TempDir()
	if err := writeEmpty(filepath.Join(dir, "d/file")); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"loop2", "loop1"}, {"loop1", "loop2"}, {"self", "self"}, {"..", "d/up"}, {".", "d/here"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Skipf("cannot create symbolic links: %v", err)
		}
	}
	for _, p := range []string{"loop1/*", "self/*", "loop?/*/*", "*/*/*/*/*/*/*/*/*/*"} {
		if _, err := Expand(p, &ExpandOptions{Dir: dir}); err != nil {
			t.Errorf("Expand(%q): %v", p, err)
		}
	}
	// Cycles through valid links are bounded by the pattern's depth.
	res, err := Expand("d/*/*/*/*/*/file", &ExpandOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res, "d/up/d/up/d/here/file") || !slices.Contains(res, "d/here/here/here/here/here/file") {
		t.Errorf("Expand through link cycles = %q", res)
	}
	for _, r := range res {
		if !strings.HasSuffix(r, "/file") {
			t.Errorf("Expand through link cycles returned %q", r)
		}
	}
	// A budget stops a wide cycle walk.
	if _, err := Expand(strings.Repeat("*/", 30)+"*", &ExpandOptions{Dir: dir, MaxEntries: 1000}); !errors.Is(err, ErrTooManyEntries) {
		t.Errorf("deep walk through cycles: err = %v, want ErrTooManyEntries", err)
	}
}

func TestLongPatterns(t *testing.T) {
	long := strings.Repeat("a", MaxPatternLen+1)
	if err := Unsupported(long); err == nil {
		t.Errorf("Unsupported accepts a pattern of %d bytes", len(long))
	}
	if !Match(long, "b", nil) || !MatchPrefix(long, "b", nil) {
		t.Errorf("Match or MatchPrefix of an overlong pattern is false")
	}
	if _, err := Expand(long+"*", &ExpandOptions{Dir: t.TempDir()}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Expand of an overlong pattern: err = %v", err)
	}
	// The worst case for backtracking matchers, at the length limit.
	n := MaxPatternLen/2 - 1
	p := strings.Repeat("*a", n) + "b"
	if Unsupported(p) != nil {
		t.Fatalf("pattern of %d bytes is unsupported", len(p))
	}
	as := strings.Repeat("a", 2*n)
	if Match(p, as, nil) {
		t.Errorf("Match of *a*a...b against aaa... is true")
	}
	if Match(p, as[:n-1]+"b", nil) {
		t.Errorf("Match with too few a's is true")
	}
	if !Match(p, as[:n]+"b", nil) || !Match(p, as+"b", nil) {
		t.Errorf("Match of *a*a...b against aaa...b is false")
	}
	if !MatchPrefix(p, as[:200], nil) || MatchPrefix(p, as[:200]+"b/", nil) || !MatchPrefix(p, "", nil) {
		t.Errorf("MatchPrefix on a long pattern is wrong")
	}
	q := strings.Repeat("[!a]", MaxPatternLen/4)
	if !Match(q, strings.Repeat("b", MaxPatternLen/4), nil) || Match(q, strings.Repeat("b", MaxPatternLen/4-1)+"a", nil) {
		t.Errorf("Match of a long run of brackets is wrong")
	}
}

// A DirCache's ReadDir replaces the directory reads: Expand matches what
// it returns, and its ErrTooManyEntries stops the expansion.
func TestExpandReadDirHook(t *testing.T) {
	var asked []string
	c := &DirCache{Lister: listerFunc(func(dir string, limit int) ([]string, []fs.FileMode, error) {
		asked = append(asked, dir)
		if limit > 0 && limit < 3 {
			return nil, nil, fmt.Errorf("%w: over %d", ErrTooManyEntries, limit)
		}
		return []string{"b.go", "a.go", "c.txt"}, []fs.FileMode{0, 0, 0}, nil
	})}
	got, err := Expand("/nowhere/*.go", &ExpandOptions{Cache: c})
	if err != nil || !slices.Equal(got, []string{"/nowhere/a.go", "/nowhere/b.go"}) || len(asked) != 1 {
		t.Fatalf("Expand = %q, %v (asked %q)", got, err, asked)
	}
	c2 := &DirCache{Lister: c.Lister}
	if _, err := Expand("/nowhere/*.go", &ExpandOptions{Cache: c2, MaxEntries: 2}); !errors.Is(err, ErrTooManyEntries) {
		t.Fatalf("over the budget: %v", err)
	}
}

type listerFunc func(dir string, limit int) ([]string, []fs.FileMode, error)

func (f listerFunc) ReadDir(dir string, limit int) ([]string, []fs.FileMode, error) {
	return f(dir, limit)
}
