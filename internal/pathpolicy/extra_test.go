package pathpolicy

import (
	"path/filepath"
	"testing"
)

func FuzzClean(f *testing.F) {
	for _, s := range []string{"/", "/a", "/a/", "//a", "/a/./b", "/a/../b", "/a/..", "/a/.", "/.a/..b/...", "a/b", "", ".", "/a//", "/..."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		want := filepath.Clean(p)
		if got := Clean(p); got != want {
			t.Fatalf("Clean(%q) = %q, want %q", p, got, want)
		}
		if filepath.IsAbs(p) && isClean(p) != (want == p) {
			t.Fatalf("isClean(%q) = %v, but filepath.Clean gives %q", p, isClean(p), want)
		}
	})
}
