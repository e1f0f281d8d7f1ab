package sedexpr

import "testing"

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
