package search

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
)

// windowOf returns the window finder the Go engine would use for pattern
// (nil when it would not), with the engine's flags.
func windowOf(t testing.TB, pattern string, fold bool) (*windowFinder, *regexp.Regexp) {
	flags := syntax.Perl &^ syntax.OneLine
	prefix := "(?m)"
	if fold {
		flags |= syntax.FoldCase
		prefix += "(?i)"
	}
	tree, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil, nil
	}
	re, err := regexp.Compile(prefix + pattern)
	if err != nil {
		return nil, nil
	}
	return newWindowFinder(tree.Simplify(), 0), re
}

func TestWindowFinder(t *testing.T) {
	for _, c := range []struct {
		pattern string
		fold    bool
		window  int // the window's length; 0: none
		hit     string
		miss    string
	}{
		{`[a-z]+_[0-9]{3}x`, false, 6, "see seen_042x here", "gamma_12 foo_bar seen_04x"},
		{`\d{3}-\d{4}`, false, 8, "call 555-1234", "555-123 55-1234"},
		{`(?:ab|cd)=[0-9]{4}`, false, 5, "x ab=2024", "ab=123"},
		{`(?:ab|cd)[0-9]{4}`, false, 0, "", ""}, // four digits say too little
		{`QUUX[0-9]`, true, 5, "quux7", "quu x7"},
		{`\bfoo\d+bar`, false, 4, "foo1bar", "foo bar"},
		{`[a-z]+`, false, 0, "", ""},
		{`.*`, false, 0, "", ""},
		{`k#[0-9]{3}`, true, 4, "K#123 \u212a#123", "k#12"},
		{`é[0-9]{2}`, false, 4, "é12", "e12"},
	} {
		wf, re := windowOf(t, c.pattern, c.fold)
		if c.window == 0 {
			if wf != nil {
				t.Errorf("%q: window of %d sets, want none", c.pattern, len(wf.sets))
			}
			continue
		}
		if wf == nil || len(wf.sets) != c.window {
			t.Errorf("%q: window %v, want %d sets", c.pattern, wf, c.window)
			continue
		}
		if re.MatchString(c.hit) != (wf.index([]byte(c.hit)) >= 0) || !re.MatchString(c.hit) {
			t.Errorf("%q on %q: regexp %v, window at %d", c.pattern, c.hit, re.MatchString(c.hit), wf.index([]byte(c.hit)))
		}
		if wf.index([]byte(c.miss)) >= 0 {
			t.Errorf("%q: the window is in %q", c.pattern, c.miss)
		}
	}
}

// FuzzWindowFinder checks that the window prefilter never misses a line the
// regular expression matches (it may find the window where there is no
// match: the line is then verified).
func FuzzWindowFinder(f *testing.F) {
	for _, s := range []string{`[a-z]+_[0-9]{3}x`, `\d{3}-\d{4}`, `(a|b)c+[de]`, `(?i)x[kK]y`, `é+[0-9]z`, `^\w+\s*=\s*[0-9]{2}$`, `\bk\d\d`} {
		f.Add(s, "abc_123x k12 é9z a = 42\nx_999x\u212a12", false)
	}
	f.Fuzz(func(t *testing.T, pattern, text string, fold bool) {
		wf, re := windowOf(t, pattern, fold)
		if wf == nil {
			return
		}
		for line := range strings.SplitSeq(text, "\n") {
			if re.MatchString(line) && wf.index([]byte(line)) < 0 {
				t.Fatalf("%q (fold %v) matches %q, but its window %v is not found", pattern, fold, line, wf.sets)
			}
		}
	})
}
