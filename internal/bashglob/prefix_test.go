package bashglob

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestMatchPrefixCases(t *testing.T) {
	dotEntries := &Options{DotEntries: true}
	dotGlob := &Options{DotGlob: true}
	fold := &Options{FoldCase: true}
	tests := []struct {
		pattern, prefix string
		opts            *Options
		want            bool
	}{
		{"*", "-", nil, true},
		{"[!-]*", "-", nil, false},
		{"[^-]*", "-", nil, false},
		{"-[!-]*", "--", nil, false},
		{"-[!-]*", "-", nil, true},
		{".e*", ".env.", nil, true},
		{"*.go", ".env.", nil, false},
		{"*.go", ".env.", dotGlob, true},
		{"*", ".env.", dotGlob, true},
		{"?", "ab", nil, false},
		{"?", "a", nil, true},
		{"?", "", nil, true},
		{"[z-a]", "", nil, false},
		{"[z-a]*", "", nil, false},
		{"[!z-a]", "", nil, true},
		{"x/[z-a]", "x", nil, false},
		{".[.]", "..", nil, false},
		{".[.]", "..", dotEntries, true},
		{".[.]", ".", nil, false},
		{".?", ".", nil, true},
		{".*", ".", nil, true},
		{".*", "..", nil, true},
		{"..", "..", nil, true},
		{".", "", nil, true},
		{"*", ".", nil, false},
		{"*", ".", dotGlob, true},
		{"[.]*", ".", dotGlob, true},
		{"[.]*", ".", nil, false},
		{"?*", "", nil, true},
		{"/home/*/.ss[!x]/*", "/home/u/.ssh/", nil, true},
		{"/home/*/.ss[!x]/*", "/home/u/.ssh/id", nil, true},
		{"/home/*/.ss[!x]/*", "/home/u/.ssx/", nil, false},
		{"/home/*/.ss[!x]", "/home/u/.ssh/", nil, false},
		{"/home/*/.ss[!x]", "/home/u/.ss", nil, true},
		{"/home/*/.ss[!x]", "/home/.u/.ss", nil, false},
		{"*/", "a", nil, true},
		{"*/", "a/", nil, true},
		{"*/", "a/b", nil, false},
		{"src/*.go", "src/", nil, true},
		{"src/*.go", "sr", nil, true},
		{"src/*.go", "x", nil, false},
		{`src\/*.go`, "src/m", nil, true},
		{"[[:upper:]]*", "a", nil, false},
		{"[[:upper:]]*", "a", fold, true},
		{".SS?/*", ".ssh/", fold, true},
		{".SS?/*", ".ssh/", nil, false},
		{"[!a]", "a", fold, true},
		{"?", "é", nil, true},
		{"??", "é", nil, true},
		{"?", "\xc3", nil, true},
		{"[é]", "\xc3", nil, true},
		{"[é]", "é", nil, true},
		{"[a]", "\xc3", nil, false},
		{"a", "a\xff", nil, false},
		{"a*", "a\xff", nil, true},
		{"?\xf4\x90\x80\x80", "", nil, true},
		{"[[:alpha:]]", "\xf4\x90", nil, false},
		{"??", "\xf4\x90", nil, true},
		{"?", "\xf4\x90", nil, true},
		{`\*`, "*", nil, true},
		{`\*`, "a", nil, false},
		{"[", "[", nil, true},
		{"[a", "[", nil, true},
		{"[a", "a", nil, false},
		{"*[!a]", "", nil, true},
		{"*[!a]", "aaa", nil, true},
		{"[ab][ab]", "ab", nil, true},
		{"[ab][ab]", "abc", nil, false},
		{"a/b", "a/b/", nil, false},
		{"[[:bogus:]]", "anything", nil, true}, // unsupported
		{"?", ".", &Options{DotGlob: true, DotEntries: true}, false},
		{"??", "..", &Options{DotGlob: true, DotEntries: true}, false},
		{"?", ".", dotGlob, false},
		{"?*", ".", dotGlob, true},
		{".?", ".", dotEntries, true},
		{"[!.]", "", nil, true},
		{"[!.]", ".", dotGlob, false},
		{"[Ÿ]", "\xc3", fold, true},
		{"[Ÿ]", "\xc3", nil, false},
		{"[!À-ÿ]", "\xc3", nil, false},
		{"[[:alpha:]]", "\xc3", nil, true},
		{"[![:alpha:]]", "\xc3", nil, true},
		{"[[:digit:]]", "\xc3", nil, false},
		{"[[:digit:]]", "\xc3", &Options{AnyLocale: true}, true},
		{"[a-z]", "\xe4\xb8", nil, false},
		{"[a-z]", "\xe4\xb8", &Options{AnyLocale: true}, true},
		{"[[=a=]x]", "b", nil, false},
		{"[[=a=]x]", "b", &Options{AnyLocale: true}, true},
	}
	for _, tt := range tests {
		if got := MatchPrefix(tt.pattern, tt.prefix, tt.opts); got != tt.want {
			t.Errorf("MatchPrefix(%q, %q, %+v) = %v, want %v", tt.pattern, tt.prefix, tt.opts, got, tt.want)
		}
	}
}

// TestMatchPrefixBruteForce checks MatchPrefix against a search for a
// completion. Soundness: a completion found means MatchPrefix is true.
// Completeness, for patterns of one component with at most two
// elements other than '*': when MatchPrefix is true, a completion of at
// most one symbol more than there are such elements from an alphabet that has a member of every element
// exists.
func TestMatchPrefixBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	base := []string{"a", "A", "b", "0", "-", ".", " ", "_", "\x01", "]", "[", "!", "é", "É",
		"日", "\xff", "\xc3", "\xa9", "\x80", "\x80\x80", "\xf4\x90\x80\x80", "k", "\u212a"}
	prefixSyms := []string{"a", "-", ".", "é", "\xc3", "\xe9", "\xf4\x90", "A", "[", "/", "b", "x"}
	cases, trueCases := 0, 0
	for cases < 4000 {
		var p string
		if cases%3 == 2 {
			p = randomBracketPattern(r)
		} else {
			p = randomPatternN(r, r.IntN(5) == 0, 1+r.IntN(2)*6)
		}
		if Unsupported(p) != nil {
			continue
		}
		cases++
		var prefix strings.Builder
		for range r.IntN(4) {
			prefix.WriteString(prefixSyms[r.IntN(len(prefixSyms))])
		}
		s := prefix.String()
		o := Options{DotGlob: r.IntN(4) == 0, DotEntries: r.IntN(4) == 0, FoldCase: r.IntN(4) == 0, AnyLocale: r.IntN(6) == 0}
		got := MatchPrefix(p, s, &o)
		alphabet := slices.Clone(base)
		for _, c := range p {
			alphabet = append(alphabet, string(c))
		}
		for i := 0; i < len(p); i++ {
			if p[i] >= 0x80 {
				alphabet = append(alphabet, p[i:i+1])
			}
		}
		if strings.Contains(p, "/") {
			alphabet = append(alphabet, "/")
		}
		slices.Sort(alphabet)
		alphabet = slices.Compact(alphabet)
		maxLen := 2
		c := compile(p)
		small := len(c.comps) == 1 && nonStar(c.comps[0].btoks) <= 2
		if small {
			// Each element other than '*' needs one character; one
			// more may be needed to make the name invalid UTF-8.
			maxLen = nonStar(c.comps[0].btoks) + 1
		}
		if got && !small {
			continue // nothing to check cheaply
		}
		// Look for completions that make a valid name (matched as wide
		// characters) and ones that make an invalid name (matched as
		// bytes), and check both halves of MatchPrefix separately.
		valid, invalid := findCompletions(c, s, alphabet, maxLen, &o)
		if valid.found && !got {
			t.Errorf("MatchPrefix(%q, %q, %+v) = false, but %q matches", p, s, o, s+valid.w)
		}
		if invalid.found && !got {
			t.Errorf("MatchPrefix(%q, %q, %+v) = false, but %q matches", p, s, o, s+invalid.w)
		}
		if len(c.comps) == 1 && !strings.Contains(s, "/") {
			comp := &c.comps[0]
			wide := comp.valid && comp.widePrefix(s, &o)
			bytes := comp.bytePrefix(s, &o, comp.valid)
			if valid.found && comp.valid && !wide {
				t.Errorf("widePrefix(%q, %q, %+v) = false, but %q matches", p, s, o, s+valid.w)
			}
			if invalid.found && !bytes {
				t.Errorf("bytePrefix(%q, %q, %+v) = false, but %q matches", p, s, o, s+invalid.w)
			}
			if small && wide && !valid.found {
				t.Errorf("widePrefix(%q, %q, %+v) = true, but no valid completion of up to %d symbols matches", p, s, o, maxLen)
			}
			if small && bytes && !invalid.found {
				t.Errorf("bytePrefix(%q, %q, %+v) = true, but no invalid completion of up to %d symbols matches", p, s, o, maxLen)
			}
			if small && (wide || bytes) {
				trueCases++
			}
		}
	}
	t.Logf("checked %d (pattern, prefix) pairs; %d true answers were confirmed by a completion", cases, trueCases)
}

func nonStar(toks []token) int {
	n := 0
	for _, t := range toks {
		if t.kind != tokStar {
			n++
		}
	}
	return n
}

// completion is a string found by findCompletions.
type completion struct {
	w     string
	found bool
}

// findCompletions searches for strings w of at most maxLen symbols such
// that the compiled pattern c matches s+w, and returns the first found for
// which s+w is valid UTF-8 (in glibc's sense) and the first for which it
// is not.
func findCompletions(c *compiled, s string, alphabet []string, maxLen int, o *Options) (valid, invalid completion) {
	var rec func(w string, depth int)
	rec = func(w string, depth int) {
		if (!valid.found || !invalid.found) && c.match(s+w, o) {
			if validWide(s + w) {
				if !valid.found {
					valid = completion{w, true}
				}
			} else if !invalid.found {
				invalid = completion{w, true}
			}
		}
		if depth == maxLen || (valid.found && invalid.found) {
			return
		}
		for _, a := range alphabet {
			rec(w+a, depth+1)
		}
	}
	rec("", 0)
	return valid, invalid
}
