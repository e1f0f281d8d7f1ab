package bashglob

import (
	"strings"
	"testing"
)

func fuzzOptions(flags uint8) Options {
	return Options{DotGlob: flags&1 != 0, DotEntries: flags&2 != 0, FoldCase: flags&4 != 0, AnyLocale: flags&8 != 0}
}

// foldableCount counts the characters of s that have case variants.
func foldableCount(s string) int {
	n := 0
	for _, c := range s {
		if variants(c, false, func(rune) bool { return true }) {
			n++
		}
	}
	return n
}

func addSeeds(f *testing.F, add func(p, n string)) {
	for _, p := range handPatterns {
		add(p, "x")
	}
	for i, n := range caseNames {
		add(handPatterns[(i*7)%len(handPatterns)], n)
		add("*", n)
		add("[!a]*", n)
	}
	add(".[!x]it/config", ".git/config")
	add("/home/*/.ss[!x]/*", "/home/u/.ssh/id_rsa")
	add("[[:upper:]]*", "Ab")
	add("*a*a*a*b", "aaaaaaaaaaaaaaaa")
	add("[é-ü]", "\xc3")
}

// FuzzMatch checks that Match never panics and agrees with the slow
// reference matcher on supported patterns, and that MatchPrefix accepts
// every prefix of a matching name.
func FuzzMatch(f *testing.F) {
	addSeeds(f, func(p, n string) {
		for _, flags := range []uint8{0, 1, 2, 4, 8, 15} {
			f.Add(p, n, flags)
		}
	})
	f.Fuzz(func(t *testing.T, pattern, name string, flags uint8) {
		o := fuzzOptions(flags)
		got := Match(pattern, name, &o)
		g := Compile(pattern)
		if g.Match(name, &o) != got || g.HasMeta() != HasMeta(pattern) {
			t.Fatalf("Compile(%q) answers otherwise than Match and HasMeta for %q", pattern, name)
		}
		if Unsupported(pattern) != nil {
			if !got {
				t.Fatalf("Match(%q, %q) = false for an unsupported pattern", pattern, name)
			}
			return
		}
		if len(pattern) > 64 || len(name) > 64 || (o.FoldCase && foldableCount(name) > 6) {
			return // the reference is too slow
		}
		if want := refMatch(pattern, name, o); got != want {
			t.Fatalf("Match(%q, %q, %+v) = %v, reference says %v", pattern, name, o, got, want)
		}
		if got {
			for k := 0; k <= len(name); k++ {
				if !MatchPrefix(pattern, name[:k], &o) {
					t.Fatalf("Match(%q, %q, %+v) holds but MatchPrefix(%q) = false", pattern, name, o, name[:k])
				}
			}
		}
	})
}

// FuzzMatchPrefix checks that MatchPrefix never panics, accepts the
// prefixes of matching names, and is monotone: if some name starting with
// prefix+suffix matches, some name starting with prefix does.
func FuzzMatchPrefix(f *testing.F) {
	addSeeds(f, func(p, n string) {
		k := len(n) / 2
		f.Add(p, n[:k], n[k:], uint8(0))
		f.Add(p, n[:k], n[k:], uint8(5))
	})
	f.Fuzz(func(t *testing.T, pattern, prefix, suffix string, flags uint8) {
		o := fuzzOptions(flags)
		suffix = strings.ReplaceAll(suffix, "\x00", "")
		mp := MatchPrefix(pattern, prefix, &o)
		if Compile(pattern).MatchPrefix(prefix, &o) != mp {
			t.Fatalf("Compile(%q).MatchPrefix(%q) answers otherwise than MatchPrefix", pattern, prefix)
		}
		if Unsupported(pattern) != nil {
			if !mp {
				t.Fatalf("MatchPrefix(%q, %q) = false for an unsupported pattern", pattern, prefix)
			}
			return
		}
		if !mp && Match(pattern, prefix+suffix, &o) {
			t.Fatalf("MatchPrefix(%q, %q, %+v) = false, but %q matches", pattern, prefix, o, prefix+suffix)
		}
		if !mp && MatchPrefix(pattern, prefix+suffix, &o) {
			t.Fatalf("MatchPrefix(%q, %q, %+v) = false, but MatchPrefix(%q) = true", pattern, prefix, o, prefix+suffix)
		}
	})
}

// FuzzExpand checks that Expand never panics on arbitrary patterns (in a
// small tree) and is consistent with Match for single components.
func FuzzExpand(f *testing.F) {
	for _, p := range handPatterns {
		f.Add(p)
	}
	dir := f.TempDir()
	for _, n := range []string{".a", "-x", "b", "é", "[x]", "\xff"} {
		if err := writeEmpty(dir + "/" + n); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		res, err := Expand(pattern, &ExpandOptions{Dir: dir, MaxEntries: 1000})
		if err != nil {
			if Unsupported(pattern) == nil && !strings.HasPrefix(pattern, "/") {
				t.Fatalf("Expand(%q): %v", pattern, err)
			}
			return
		}
		if strings.ContainsAny(pattern, "/") {
			return
		}
		for _, r := range res {
			if !Match(pattern, r, nil) {
				t.Fatalf("Expand(%q) returned %q, which Match rejects", pattern, r)
			}
		}
	})
}

func TestZeroGlob(t *testing.T) {
	var g Glob
	if g.HasMeta() || !g.Match("", nil) || g.Match("x", nil) || !g.MatchPrefix("", nil) {
		t.Fatal("the zero Glob is not the empty pattern")
	}
	if Match("", "", nil) != g.Match("", nil) || MatchPrefix("", "x", nil) != g.MatchPrefix("x", nil) {
		t.Fatal("the zero Glob answers otherwise than the empty pattern")
	}
}
