package textfile

import (
	"strings"
	"testing"
)

func TestDetectCRLF(t *testing.T) {
	for in, want := range map[string]bool{
		"":                 false,
		"abc":              false,
		"a\nb\n":           false,
		"a\r\nb\r\n":       true,
		"a\r\nb\r\nc\n":    true,
		"a\r\nb\nc\n":      false,
		"a\r\nb\n":         false, // a tie is LF
		"a\rb\rc\r\n":      true,  // lone CRs do not count
		"no final\r\nline": true,
	} {
		if got := DetectCRLF([]byte(in)); got != want {
			t.Errorf("DetectCRLF(%q) = %v", in, got)
		}
	}
}

func TestToLFToCRLF(t *testing.T) {
	for _, tc := range []struct{ in, lf, crlf string }{
		{"", "", ""},
		{"a", "a", "a"},
		{"a\nb\n", "a\nb\n", "a\r\nb\r\n"},
		{"a\r\nb\r\n", "a\nb\n", "a\r\nb\r\n"},
		{"a\r\nb\n", "a\nb\n", "a\r\nb\r\n"},
		{"a\rb", "a\nb", "a\rb"},
		{"\n\n", "\n\n", "\r\n\r\n"},
		{"\r\r\n", "\n\n", "\r\r\n"},
		{"x\n\r\n\ry", "x\n\n\ny", "x\r\n\r\n\ry"},
	} {
		if got := ToLF(tc.in); got != tc.lf {
			t.Errorf("ToLF(%q) = %q, want %q", tc.in, got, tc.lf)
		}
		if got := ToCRLF(tc.in); got != tc.crlf {
			t.Errorf("ToCRLF(%q) = %q, want %q", tc.in, got, tc.crlf)
		}
	}
}

func FuzzToCRLF(f *testing.F) {
	for _, s := range []string{"", "a\nb", "a\r\nb\n", "\r\r\n\n\r", "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := ToCRLF(s)
		if c2 := ToCRLF(c); c2 != c {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, c, c2)
		}
		// Every LF is preceded by CR, none was doubled, and nothing else changed.
		if strings.Count(c, "\n") != strings.Count(c, "\r\n") {
			t.Fatalf("bare LF left in %q", c)
		}
		if strings.Contains(c, "\r\r\n") && !strings.Contains(s, "\r\r\n") {
			t.Fatalf("CR doubled: %q -> %q", s, c)
		}
		if strings.ReplaceAll(c, "\r\n", "\n") != strings.ReplaceAll(s, "\r\n", "\n") {
			t.Fatalf("content changed: %q -> %q", s, c)
		}
		// The LF view is unchanged, and has no CR at all.
		if ToLF(c) != ToLF(s) || strings.Contains(ToLF(s), "\r") {
			t.Fatalf("ToLF(%q) = %q, ToLF(%q) = %q", c, ToLF(c), s, ToLF(s))
		}
		// Pure-CRLF text round-trips.
		if !strings.Contains(ToLF(c), "\r") && strings.Count(c, "\r") == strings.Count(c, "\r\n") && ToCRLF(ToLF(c)) != c {
			t.Fatalf("round trip of %q", c)
		}
		if DetectCRLF([]byte(c)) != strings.Contains(c, "\n") {
			t.Fatalf("DetectCRLF(%q)", c)
		}
	})
}
