package bashglob

import (
	"slices"
	"sync"
	"unicode"
)

// class is a POSIX character class usable as [:name:] in a bracket
// expression.
type class uint8

const (
	clsAlnum class = iota
	clsAlpha
	clsASCII
	clsBlank
	clsCntrl
	clsDigit
	clsGraph
	clsLower
	clsPrint
	clsPunct
	clsSpace
	clsUpper
	clsWord
	clsXdigit
	numClasses
)

// classNames maps the class names bash accepts in every locale to classes.
var classNames = map[string]class{
	"alnum": clsAlnum, "alpha": clsAlpha, "ascii": clsASCII, "blank": clsBlank,
	"cntrl": clsCntrl, "digit": clsDigit, "graph": clsGraph, "lower": clsLower,
	"print": clsPrint, "punct": clsPunct, "space": clsSpace, "upper": clsUpper,
	"word": clsWord, "xdigit": clsXdigit,
}

// asciiClass reports whether the ASCII character c (c < 0x80) is in class
// k, as the C library classifies it in every locale.
func asciiClass(c rune, k class) bool {
	isUpper := c >= 'A' && c <= 'Z'
	isLower := c >= 'a' && c <= 'z'
	isDigit := c >= '0' && c <= '9'
	isCntrl := c < 0x20 || c == 0x7F
	isSpace := c == ' ' || (c >= '\t' && c <= '\r')
	isGraph := c > 0x20 && c < 0x7F
	switch k {
	case clsAlnum:
		return isUpper || isLower || isDigit
	case clsAlpha:
		return isUpper || isLower
	case clsASCII:
		return true
	case clsBlank:
		return c == ' ' || c == '\t'
	case clsCntrl:
		return isCntrl
	case clsDigit:
		return isDigit
	case clsGraph:
		return isGraph
	case clsLower:
		return isLower
	case clsPrint:
		return isGraph || c == ' '
	case clsPunct:
		return isGraph && !isUpper && !isLower && !isDigit
	case clsSpace:
		return isSpace
	case clsUpper:
		return isUpper
	case clsWord:
		return isUpper || isLower || isDigit || c == '_'
	case clsXdigit:
		return isDigit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
	}
	return false
}

var (
	wideOnce    sync.Once
	wideClasses [numClasses]rset
)

// wideClassSets returns, for every class, the set of wide characters in it.
// The definitions follow the rules glibc uses to generate the LC_CTYPE
// tables of its UTF-8 locales (including C.UTF-8) from the Unicode
// character database, evaluated with the Unicode tables of the Go standard
// library. The ASCII part of every set is asciiClass exactly.
func wideClassSets() *[numClasses]rset {
	wideOnce.Do(buildWideClasses)
	return &wideClasses
}

func buildWideClasses() {
	set := func(ts ...*unicode.RangeTable) rset {
		var s rset
		for _, t := range ts {
			s = union(s, fromTable(t))
		}
		return s
	}
	nonASCII := rset{{0x80, maxWide}}
	asciiPart := func(k class) rset {
		var rs []rng
		for c := rune(0); c < 0x80; c++ {
			if asciiClass(c, k) {
				rs = append(rs, rng{c, c})
			}
		}
		return normalize(rs)
	}
	var hasLower, hasUpper []rng
	for _, cr := range unicode.CaseRanges {
		for c := rune(cr.Lo); c <= rune(cr.Hi); c++ {
			if unicode.ToLower(c) != c {
				hasLower = append(hasLower, rng{c, c})
			}
			if unicode.ToUpper(c) != c {
				hasUpper = append(hasUpper, rng{c, c})
			}
		}
	}
	noBreak := rset{{0xA0, 0xA0}, {0x2007, 0x2007}, {0x202F, 0x202F}}
	zs := minus(set(unicode.Zs), noBreak)
	alpha := minus(set(unicode.L, unicode.Nl, unicode.Other_Alphabetic, unicode.Nd), rset{{'0', '9'}})
	digit := rset{{'0', '9'}}
	upper := union(normalize(hasLower), set(unicode.Lu, unicode.Other_Uppercase))
	lower := union(union(normalize(hasUpper), rset{{0xDF, 0xDF}}), set(unicode.Ll, unicode.Other_Lowercase))
	space := union(rset{{'\t', '\r'}, {' ', ' '}}, union(set(unicode.Zl, unicode.Zp), zs))
	cc := set(unicode.Cc)
	named := set(unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf, unicode.Co)
	graph := minus(minus(named, cc), space)
	wide := [numClasses]rset{
		clsAlnum:  union(alpha, digit),
		clsAlpha:  alpha,
		clsASCII:  nil,
		clsBlank:  union(rset{{'\t', '\t'}}, zs),
		clsCntrl:  union(cc, set(unicode.Zl, unicode.Zp)),
		clsDigit:  digit,
		clsGraph:  graph,
		clsLower:  lower,
		clsPrint:  minus(minus(named, cc), set(unicode.Zl, unicode.Zp)),
		clsPunct:  minus(minus(graph, alpha), digit),
		clsSpace:  space,
		clsUpper:  upper,
		clsWord:   union(union(alpha, digit), rset{{'_', '_'}}),
		clsXdigit: nil,
	}
	for k := class(0); k < numClasses; k++ {
		wideClasses[k] = union(asciiPart(k), intersect(wide[k], nonASCII))
	}
}

// classHas reports whether character c is in class k. In byte mode c is a
// byte; bytes above 0x7F belong to no class in a UTF-8 locale.
func classHas(k class, c rune, byteMode bool) bool {
	if c < 0x80 {
		return c >= 0 && asciiClass(c, k)
	}
	if byteMode {
		return false
	}
	return wideClassSets()[k].has(c)
}

var (
	foldOnce  sync.Once
	foldables []rune
)

// foldableRunes returns, in increasing order, every character whose
// simple case-folding orbit has more than one member.
func foldableRunes() []rune {
	foldOnce.Do(func() {
		// Every character with a non-trivial folding orbit has a case
		// mapping, so the spans of unicode.CaseRanges cover them all.
		seen := map[rune]bool{}
		for _, cr := range unicode.CaseRanges {
			for c := rune(cr.Lo); c <= rune(cr.Hi); c++ {
				for v := unicode.SimpleFold(c); v != c && !seen[v]; v = unicode.SimpleFold(v) {
					seen[v] = true
				}
				if unicode.SimpleFold(c) != c {
					seen[c] = true
				}
			}
		}
		for c := range seen {
			foldables = append(foldables, c)
		}
		slices.Sort(foldables)
	})
	return foldables
}

// variants calls f for every character other than c that a case-folding
// comparison treats as equal to c, stopping when f returns true. In byte
// mode only ASCII letters have variants.
func variants(c rune, byteMode bool, f func(rune) bool) bool {
	if byteMode || c < 0x80 {
		switch {
		case c >= 'a' && c <= 'z':
			if f(c - 'a' + 'A') {
				return true
			}
		case c >= 'A' && c <= 'Z':
			if f(c - 'A' + 'a') {
				return true
			}
		}
		if byteMode {
			return false
		}
	}
	if c < 0 || c > unicode.MaxRune {
		return false
	}
	for v := unicode.SimpleFold(c); v != c; v = unicode.SimpleFold(v) {
		if c < 0x80 && v < 0x80 {
			continue // already reported above
		}
		if f(v) {
			return true
		}
	}
	return false
}
