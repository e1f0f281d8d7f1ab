package sedexpr

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		expr  string
		quiet bool
		kind  string
		bad   bool
	}{
		{"s/a/b/g", false, "s", false},
		{"s/a/b/w out", false, "", true},
		{"s/a/b/e", false, "", true},
		{"1,5p", true, "np", false},
		{"/x/d", false, "other", false},
		{"1e ls", false, "", true},
		{"{p}", false, "", true},
		{"1!d", false, "", true},
		{"w out", false, "", true},
	} {
		kind, err := Classify(c.expr, c.quiet)
		if kind != c.kind || (err != "") != c.bad {
			t.Errorf("Classify(%q, %v) = %q, %q; want %q, refused %v", c.expr, c.quiet, kind, err, c.kind, c.bad)
		}
	}
}

// FuzzClassify: any script is classified or refused, never both, and the
// same way twice; a script that writes or runs (w, W, e after a command)
// is never classified as harmless by a naive look at its last letter.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"s/a/b/g", "1,5p", "/x/d", "s/a/b/w out", "1e ls", "s|a|b|e", "$!N", "y/ab/cd/"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, e string, quiet bool) {
		kind, err := Classify(e, quiet)
		if (kind == "") == (err == "") {
			t.Fatalf("Classify(%q) = %q, %q: want exactly one", e, kind, err)
		}
		if k2, e2 := Classify(e, quiet); k2 != kind || e2 != err {
			t.Fatalf("Classify(%q) differs on a second look", e)
		}
		if kind != "" && (strings.Contains(e, "\n") && strings.ContainsAny(e, "we")) {
			// A second line could hold a command of its own: only the
			// substitution form may carry one, as its flags are checked.
			if kind != "s" {
				t.Fatalf("Classify(%q) = %q for a multi-line script with w or e", e, kind)
			}
		}
	})
}
