package screen

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestReject(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ls -la", ""},
		{"echo a\rb", "a carriage return"},
		{"echo \u202ex", "invisible or bidirectional character U+202E"},
		{"echo\u00a0x", "non-ASCII whitespace U+00A0"},
		{"echo \xff", "invalid UTF-8"},
		{strings.Repeat("(", 40), "brackets nested more than 32 deep"},
		{strings.Repeat("x", 101), "more than 100 bytes"},
	} {
		if got := Reject(c.in, 100, 32); got != c.want {
			t.Errorf("Reject(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestScan(t *testing.T) {
	for _, c := range []struct {
		in     string
		kind   string
		n      int
		substs bool
	}{
		{"ls; pwd | wc -l", "", 3, false},
		{"echo $(date)", "", 2, true},
		{"echo $((1+2))", "arithmetic_expansion", 1, false},
		{"f() { ls; }", "function_definition", 1, false},
		{"echo ${x:-y}", "expansion", 1, false},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(c.in), "")
		if err != nil {
			t.Fatal(err)
		}
		kind, n, substs := Scan(f)
		if kind != c.kind || n != c.n || substs != c.substs {
			t.Errorf("Scan(%q) = %q, %d, %v; want %q, %d, %v", c.in, kind, n, substs, c.kind, c.n, c.substs)
		}
	}
}
