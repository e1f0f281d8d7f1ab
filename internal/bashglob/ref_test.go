package bashglob

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// This file holds a slow reference matcher for supported patterns. It
// shares nothing with the package's compiler and matcher but the UTF-8
// decoder and the class tables: it interprets the pattern text directly,
// by recursion with memoization, evaluating bracket expressions afresh for
// every character, and it implements FoldCase by trying every case
// variant of the name.

// refMatch is the reference for Match.
func refMatch(pattern, name string, o Options) bool {
	pcs, _ := splitComponents(pattern)
	ncs := strings.Split(name, "/")
	if len(pcs) != len(ncs) {
		return false
	}
	for i := range pcs {
		if !refComponent(pcs[i], ncs[i], o) {
			return false
		}
	}
	return true
}

func refComponent(p, n string, o Options) bool {
	if o.FoldCase {
		o.FoldCase = false
		found := false
		refVariants(n, validWide(p) && validWide(n), func(v string) bool {
			found = refComponent(p, v, o)
			return found
		})
		return found
	}
	if refMeta(p) {
		dotFirst := strings.HasPrefix(p, ".") || strings.HasPrefix(p, `\.`)
		switch {
		case n == "." || n == "..":
			if !o.DotEntries || !dotFirst {
				return false
			}
		case strings.HasPrefix(n, ".") && !o.DotGlob && !dotFirst:
			return false
		}
	}
	var ps, ns []rune
	byteMode := !(validWide(p) && validWide(n))
	if byteMode {
		ps, ns = bytesOf(p, nil), bytesOf(n, nil)
	} else {
		ps, _ = decodeAll(p, nil)
		ns, _ = decodeAll(n, nil)
	}
	memo := map[[2]int]bool{}
	var rec func(i, j int) bool
	rec = func(i, j int) bool {
		key := [2]int{i, j}
		if v, ok := memo[key]; ok {
			return v
		}
		var r bool
		switch {
		case i == len(ps):
			r = j == len(ns)
		case ps[i] == '*':
			r = rec(i+1, j) || (j < len(ns) && rec(i, j+1))
		case j == len(ns):
			r = false
		case ps[i] == '?':
			r = rec(i+1, j+1)
		case ps[i] == '\\' && i+1 < len(ps):
			r = ns[j] == ps[i+1] && rec(i+2, j+1)
		case ps[i] == '[':
			if end, ok := refBracket(ps[i:], ns[j], byteMode, o); end > 0 {
				r = ok && rec(i+end, j+1)
			} else {
				r = ns[j] == '[' && rec(i+1, j+1)
			}
		default:
			r = ns[j] == ps[i] && rec(i+1, j+1)
		}
		memo[key] = r
		return r
	}
	return rec(0, 0)
}

// refVariants calls f with every string that equals s up to case, until f
// returns true. wide says whether s is compared as wide characters.
func refVariants(s string, wide bool, f func(string) bool) {
	// choices[k] lists the encodings the k-th character may take; the
	// first is its own (which may be beyond what unicode/utf8 encodes).
	var choices [][]string
	for i := 0; i < len(s); {
		n := 1
		c := rune(s[i])
		if wide {
			c, n = decodeWide(s[i:])
		}
		opts := []string{s[i : i+n]}
		variants(c, !wide, func(v rune) bool {
			if wide {
				opts = append(opts, string(v))
			} else {
				opts = append(opts, string([]byte{byte(v)}))
			}
			return false
		})
		choices = append(choices, opts)
		i += n
	}
	cur := make([]string, len(choices))
	var rec func(k int) bool
	rec = func(k int) bool {
		if k == len(choices) {
			return f(strings.Join(cur, ""))
		}
		for _, c := range choices[k] {
			cur[k] = c
			if rec(k + 1) {
				return true
			}
		}
		return false
	}
	rec(0)
}

// refMeta reports whether a component has a wildcard or a closed bracket
// expression.
func refMeta(p string) bool {
	ps := bytesOf(p, nil)
	for i := 0; i < len(ps); i++ {
		switch ps[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if end, _ := refBracket(ps[i:], 'x', true, Options{}); end > 0 {
				return true
			}
		}
	}
	return false
}

// refBracket evaluates the bracket expression at the start of p for the
// character c. It returns the length of the expression, or 0 when the '['
// does not start one, and whether c matches.
func refBracket(p []rune, c rune, byteMode bool, o Options) (end int, ok bool) {
	i := 1
	neg := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		neg = true
		i++
	}
	in, hasClass, hasRange := false, false, false
	var equivs []rune
	for first := true; ; first = false {
		if i >= len(p) {
			return 0, false
		}
		if p[i] == ']' && !first {
			break
		}
		if p[i] == '[' && i+1 < len(p) && p[i+1] == ':' {
			j := i + 2
			for j+1 < len(p) && !(p[j] == ':' && p[j+1] == ']') {
				j++
			}
			k := classNames[string(p[i+2:j])]
			if classHas(k, c, byteMode) {
				in = true
			}
			hasClass = true
			i = j + 2
			continue
		}
		if p[i] == '[' && i+4 < len(p) && (p[i+1] == '=' || p[i+1] == '.') {
			e := p[i+2]
			if c == e {
				in = true
			}
			if p[i+1] == '=' {
				equivs = append(equivs, e)
			}
			i += 5
			continue
		}
		lo := p[i]
		if lo == '\\' {
			i++
			lo = p[i]
		}
		i++
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi := p[i+1]
			i += 2
			if hi == '\\' {
				hi = p[i]
				i++
			}
			if lo <= hi {
				if lo <= c && c <= hi {
					in = true
				}
				hasRange = true
			}
			continue
		}
		if c == lo {
			in = true
		}
	}
	unknown := false
	if o.AnyLocale {
		for _, e := range equivs {
			unknown = unknown || c != e
		}
		if len(equivs) > 0 && slices.Contains(equivs, c) {
			unknown = false
		}
		unknown = unknown || (!byteMode && ((hasClass && c > 0x7F) || (hasRange && c > 0xFF)))
	}
	return i + 1, unknown || in != neg
}

// TestMatchAgreesWithReference compares Match with the reference matcher
// under every combination of options, on random patterns and names.
func TestMatchAgreesWithReference(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	names := append(slices.Clone(caseNames), "src/x.go", ".git/config", "a/b", "Ab/é")
	checked := 0
	for i := range 3000 {
		var p string
		switch i % 3 {
		case 0:
			p = randomPattern(r, r.IntN(4) == 0)
		case 1:
			p = randomBracketPattern(r)
		default:
			p = mutatedPattern(r, names[r.IntN(len(names))])
		}
		if Unsupported(p) != nil {
			continue
		}
		for range 8 {
			n := names[r.IntN(len(names))]
			if r.IntN(3) == 0 {
				n = randomName(r)
			}
			o := fuzzOptions(uint8(r.IntN(16)))
			if o.FoldCase && foldableCount(n) > 6 {
				continue
			}
			checked++
			if got, want := Match(p, n, &o), refMatch(p, n, o); got != want {
				t.Errorf("Match(%q, %q, %+v) = %v, reference says %v", p, n, o, got, want)
			}
		}
	}
	t.Logf("checked %d (pattern, name, options) triples", checked)
}

// randomName returns a short random name.
func randomName(r *rand.Rand) string {
	syms := []string{"a", "b", "A", "k", "K", "\u212a", ".", "-", "]", "[", "!", "é", "É", "日", "\xff",
		"\xc3", "\xa9", " ", "0", "_", "ß", "ſ", "s", "S"}
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(syms[r.IntN(len(syms))])
	}
	return b.String()
}
