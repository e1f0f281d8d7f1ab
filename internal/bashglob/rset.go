package bashglob

import (
	"sort"
	"unicode"
)

// rng is an inclusive range of character values.
type rng struct{ lo, hi rune }

// rset is a set of character values: sorted, disjoint, non-adjacent ranges.
type rset []rng

// normalize sorts and merges rs into an rset. It may reorder rs.
func normalize(rs []rng) rset {
	if len(rs) == 0 {
		return nil
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].lo < rs[j].lo })
	out := rset{rs[0]}
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r.lo <= last.hi+1 && last.hi != maxWide {
			if r.hi > last.hi {
				last.hi = r.hi
			}
			continue
		}
		if last.hi == maxWide {
			break
		}
		out = append(out, r)
	}
	return out
}

// has reports whether c is in s.
func (s rset) has(c rune) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i].hi >= c })
	return i < len(s) && s[i].lo <= c
}

// union returns the union of a and b.
func union(a, b rset) rset {
	rs := make([]rng, 0, len(a)+len(b))
	rs = append(rs, a...)
	rs = append(rs, b...)
	return normalize(rs)
}

// complement returns the values in [0, maxWide] that are not in a.
func complement(a rset) rset {
	var out rset
	next := rune(0)
	for _, r := range a {
		if r.lo > next {
			out = append(out, rng{next, r.lo - 1})
		}
		if r.hi == maxWide {
			return out
		}
		next = r.hi + 1
	}
	return append(out, rng{next, maxWide})
}

// minus returns the values of a that are not in b.
func minus(a, b rset) rset {
	return intersect(a, complement(b))
}

// intersect returns the values in both a and b.
func intersect(a, b rset) rset {
	var out rset
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		lo := max(a[i].lo, b[j].lo)
		hi := min(a[i].hi, b[j].hi)
		if lo <= hi {
			out = append(out, rng{lo, hi})
		}
		if a[i].hi < b[j].hi {
			i++
		} else {
			j++
		}
	}
	return out
}

// fromTable converts a unicode.RangeTable to an rset.
func fromTable(t *unicode.RangeTable) rset {
	var rs []rng
	for _, r := range t.R16 {
		if r.Stride == 1 {
			rs = append(rs, rng{rune(r.Lo), rune(r.Hi)})
			continue
		}
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			rs = append(rs, rng{c, c})
		}
	}
	for _, r := range t.R32 {
		if r.Stride == 1 {
			rs = append(rs, rng{rune(r.Lo), rune(r.Hi)})
			continue
		}
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			rs = append(rs, rng{c, c})
		}
	}
	return normalize(rs)
}

// excluded lists values that can never be characters of a file name
// component: NUL, '/', and the UTF-16 surrogates (which no valid encoding
// produces).
var nameExcluded = rset{{0, 0}, {'/', '/'}, {0xD800, 0xDFFF}}

// anyIn reports whether s has a value in [lo, hi] that is not in excl.
func (s rset) anyIn(lo, hi rune, excl rset) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i].hi >= lo })
	for ; i < len(s) && s[i].lo <= hi; i++ {
		a, b := max(s[i].lo, lo), min(s[i].hi, hi)
		if a > b {
			continue
		}
		if len(minus(rset{{a, b}}, excl)) > 0 {
			return true
		}
	}
	return false
}
