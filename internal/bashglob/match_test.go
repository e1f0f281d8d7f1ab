package bashglob

import (
	"errors"
	"testing"
)

func TestMatchCases(t *testing.T) {
	dotGlob := &Options{DotGlob: true}
	dotEntries := &Options{DotEntries: true}
	fold := &Options{FoldCase: true}
	tests := []struct {
		pattern, name string
		opts          *Options
		want          bool
	}{
		{".[!x]it", ".git", nil, true},
		{"[!x]git", ".git", nil, false},   // a bracket never matches a leading dot
		{"[.]git", ".git", nil, false},    // not even [.]
		{"[.]git", ".git", dotGlob, true}, // unless dotglob
		{"?git", ".git", nil, false},
		{"*", ".env", nil, false},
		{"*", ".env", dotGlob, true},
		{".*", ".", nil, false}, // globskipdots
		{".*", "..", nil, false},
		{".*", "..", dotEntries, true},
		{"*", "..", &Options{DotGlob: true, DotEntries: true}, false},
		{"..", "..", nil, true}, // a literal component
		{".", ".", nil, true},
		{"[!x]", "x", nil, false},
		{"[!x]", "!", nil, true},
		{"[^x]", "y", nil, true},
		{"[!]x]", "]", nil, false},
		{"[]x]", "]", nil, true},
		{"[a-]", "-", nil, true},
		{"[--0]", "/", nil, false}, // no name component holds '/'
		{"[[:alpha:]]", "é", nil, true},
		{"[[:alpha:]]", "\xe9", nil, false}, // invalid UTF-8: bytes, no class
		{"?", "é", nil, true},
		{"??", "é", nil, false},
		{"??", "\xc3\xff", nil, true},
		{"?", "\xf4\x90\x80\x80", nil, true}, // one character for glibc
		{"[é]", "\xc3", nil, true},           // bytes when the name is invalid
		{`\*`, "*", nil, true},
		{`\*`, "a", nil, false},
		{"[", "[", nil, true},
		{"[ab", "[ab", nil, true},
		{"a*", "A", nil, false},
		{"a*", "A", fold, true},
		{"[!a]", "A", fold, true},
		{"[[:upper:]]", "k", fold, true},
		{"k", "\u212a", fold, true}, // Kelvin sign
		{"src/*.go", "src/x.go", nil, true},
		{"src/*.go", "src/.x.go", nil, false},
		{`src\/*.go`, "src/x.go", nil, true},
		{"*/", "a/", nil, true},
		{"*/", "a", nil, false},
		{"*", "a/b", nil, false},
		{"[a/b]", "a/b]", nil, false}, // "[a" and "b]": both literal
		{"[a/b]", "[a/b]", nil, true},
		{"*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", nil, false},
		{"[[:bogus:]]", "x", nil, true}, // unsupported: assume a match
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.name, tt.opts); got != tt.want {
			t.Errorf("Match(%q, %q, %+v) = %v, want %v", tt.pattern, tt.name, tt.opts, got, tt.want)
		}
	}
}

func TestHasMeta(t *testing.T) {
	tests := []struct {
		pattern string
		want    bool
	}{
		{"abc", false}, {"*", true}, {"a?c", true}, {"[ab]", true}, {"[ab", false}, {"[]", false},
		{"[]]", true}, {"[!]", false}, {`\*`, false}, {`\[a]`, false}, {`[a\]`, false},
		{"[a/b]", false}, {"/x/*/y", true}, {"[[:bogus:]]", true}, {`abc\`, false}, {"a]", false},
	}
	for _, tt := range tests {
		if got := HasMeta(tt.pattern); got != tt.want {
			t.Errorf("HasMeta(%q) = %v, want %v", tt.pattern, got, tt.want)
		}
	}
}

func TestUnsupported(t *testing.T) {
	bad := []string{
		`abc\`, "a\x00b", "[[:bogus:]]", "[[:alpha]]", "[[=ab=]]", "[[=a=]]", "[[.space.]]",
		"[[.a.]-z]", "[a-[.z.]]", "[a-[:alpha:]]", "[a-日]", "[\u0100-\u0200]", "[a-", "[]-", "[[=é=]x]",
		"[x[=", "[x[:", "[x[.",
	}
	for _, p := range bad {
		err := Unsupported(p)
		var ue *UnsupportedError
		if !errors.As(err, &ue) || !errors.Is(err, ErrUnsupported) {
			t.Errorf("Unsupported(%q) = %v, want an *UnsupportedError", p, err)
			continue
		}
		if ue.Offset < 0 || ue.Offset > len(p) || ue.Construct == "" || ue.Error() == "" {
			t.Errorf("Unsupported(%q) = %+v", p, ue)
		}
	}
	good := []string{
		"*", "[[:alpha:]]", "[[=a=]b]", "[[.a.]]", "[[.-.]x]", "[a-é]", "[ab", "[!]", "[]", `\\`,
		"[[=a=]-z]", "[日]", "[\xff-\xfe]", "x/[[:upper:]]/y",
	}
	for _, p := range good {
		if err := Unsupported(p); err != nil {
			t.Errorf("Unsupported(%q) = %v, want nil", p, err)
		}
	}
}
