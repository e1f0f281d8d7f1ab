package search

import (
	"bytes"
	"math"
	"regexp/syntax"
	"unicode/utf8"
)

// A regular expression without a long literal still tells which bytes
// every match holds, side by side. `[a-z]+_[0-9]{3}x` matches nothing
// without a letter, "_", three digits and "x" in a row: a window of six
// byte sets. The Go engine scans for the window's rarest set (with
// IndexByte when it holds one or two bytes) and checks the rest of the
// window around each hit; only lines holding the whole window are handed
// to the regexp, whose matcher costs tens of nanoseconds a byte. This is
// the prefilter ripgrep gets from its regex engine's literal and class
// analysis, in the small: ASCII classes, literals, and the first and last
// repetition of a "+".

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }
func (s *byteSet) addRange(lo, hi int) {
	for c := lo; c <= hi; c++ {
		s.add(byte(c))
	}
}

// members returns the set's bytes, up to max+1 of them.
func (s *byteSet) members(max int) []byte {
	var out []byte
	for c := 0; c < 256 && len(out) <= max; c++ {
		if s.has(byte(c)) {
			out = append(out, byte(c))
		}
	}
	return out
}

// bits is how much a byte of the set says, from the byte frequencies of
// source code (byteRank): -log2 of the chance that a byte is in the set.
func (s *byteSet) bits() float64 {
	p := 0.0
	for c := range 256 {
		if s.has(byte(c)) {
			// The most frequent byte (rank 255, a space) makes ~15% of
			// source code; each 20 ranks down halves the share.
			p += 0.15 * math.Exp2(-float64(255-int(byteRank[c]))/20)
		}
	}
	return -math.Log2(min(p, 1))
}

// classWindows returns the runs of byte sets that every match of re holds
// contiguously, read from its top-level concatenation. A piece that can
// match text of varying length (or a non-ASCII rune under case folding, or
// any non-ASCII class) ends a run.
func classWindows(re *syntax.Regexp) [][]byteSet {
	var wins [][]byteSet
	var cur []byteSet
	flush := func() {
		if len(cur) > 0 {
			wins = append(wins, cur)
			cur = nil
		}
	}
	var items func(re *syntax.Regexp)
	items = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpCapture:
			items(re.Sub[0])
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				items(sub)
			}
		case syntax.OpLiteral:
			for _, r := range re.Rune {
				sets, ok := runeSets(r, re.Flags&syntax.FoldCase != 0)
				if !ok {
					flush()
					continue
				}
				cur = append(cur, sets...)
			}
		case syntax.OpCharClass:
			if s, ok := classSet(re.Rune); ok {
				cur = append(cur, s)
			} else {
				flush()
			}
		case syntax.OpPlus:
			// The first repetition follows what comes before, the last
			// precedes what comes after.
			if s, ok := singleByte(re.Sub[0]); ok {
				cur = append(cur, s)
				flush()
				cur = []byteSet{s}
			} else {
				flush()
			}
		case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
			syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
			// Empty: what is on either side stays side by side.
		default:
			flush()
		}
	}
	items(re)
	flush()
	return wins
}

// runeSets returns the byte sets of one literal rune: its UTF-8 bytes,
// or with fold an ASCII letter in both cases. ok is false for what the
// regexp may match with bytes of another length: a folded non-ASCII rune,
// a "k" or "s" (which fold to the Kelvin sign and the long s), and U+FFFD
// (which matches any byte that is not UTF-8).
func runeSets(r rune, fold bool) ([]byteSet, bool) {
	if r == utf8.RuneError || fold && (r >= utf8.RuneSelf || r == 'k' || r == 'K' || r == 's' || r == 'S') {
		return nil, false
	}
	if r >= utf8.RuneSelf {
		var out []byteSet
		for _, c := range utf8.AppendRune(nil, r) {
			var s byteSet
			s.add(c)
			out = append(out, s)
		}
		return out, true
	}
	var s byteSet
	s.add(byte(r))
	if fold && 'a' <= r|0x20 && r|0x20 <= 'z' {
		s.add(byte(r | 0x20))
		s.add(byte(r &^ 0x20))
	}
	return []byteSet{s}, true
}

// classSet returns the set of an ASCII character class (ranges as pairs).
func classSet(ranges []rune) (byteSet, bool) {
	var s byteSet
	if len(ranges) == 0 {
		return s, false
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1] >= utf8.RuneSelf {
			return s, false
		}
		s.addRange(int(ranges[i]), int(ranges[i+1]))
	}
	return s, true
}

// singleByte returns the set of a piece that matches exactly one ASCII byte.
func singleByte(re *syntax.Regexp) (byteSet, bool) {
	switch re.Op {
	case syntax.OpCharClass:
		return classSet(re.Rune)
	case syntax.OpLiteral:
		if len(re.Rune) == 1 && re.Rune[0] < utf8.RuneSelf {
			if sets, ok := runeSets(re.Rune[0], re.Flags&syntax.FoldCase != 0); ok {
				return sets[0], true
			}
		}
	case syntax.OpCapture:
		return singleByte(re.Sub[0])
	}
	return byteSet{}, false
}

// minWindowBits is how selective a window must be to be worth scanning
// for: below it, most lines would hold it and the regexp's own scan is as
// good.
const minWindowBits = 8

// windowFinder finds where a window of byte sets occurs.
type windowFinder struct {
	sets   []byteSet
	at     int    // the position scanned for: the window's most selective set
	anchor []byte // its bytes, when there are one or two (IndexByte)
}

// newWindowFinder picks the most selective window of re's, or returns nil
// when none says enough (minWindowBits) or when it says less than a
// literal of litBits.
func newWindowFinder(re *syntax.Regexp, litBits float64) *windowFinder {
	var best []byteSet
	bestBits := 0.0
	for _, w := range classWindows(re) {
		b := 0.0
		for i := range w {
			b += w[i].bits()
		}
		if b > bestBits {
			best, bestBits = w, b
		}
	}
	if bestBits < minWindowBits || bestBits <= litBits {
		return nil
	}
	f := &windowFinder{sets: best}
	// Scan for a set of one or two bytes if there is one (IndexByte is
	// many times faster than testing every byte), the most selective.
	atBits, small := -1.0, false
	for i := range best {
		m := best[i].members(2)
		isSmall := len(m) <= 2
		b := best[i].bits()
		if isSmall && !small || isSmall == small && b > atBits {
			f.at, atBits, small = i, b, isSmall
			f.anchor = nil
			if isSmall {
				f.anchor = m
			}
		}
	}
	return f
}

// index returns the offset of the first occurrence of the window in h, or -1.
func (f *windowFinder) index(h []byte) int {
	n := len(f.sets)
	lo, hi := -2, -2 // the next hits of the anchor's two bytes, -1 for none
	for i := f.at; i < len(h); {
		p := -1
		switch len(f.anchor) {
		case 1:
			if j := bytes.IndexByte(h[i:], f.anchor[0]); j >= 0 {
				p = i + j
			}
		case 2:
			if lo != -1 && lo < i {
				lo = indexFrom(h, f.anchor[0], i)
			}
			if hi != -1 && hi < i {
				hi = indexFrom(h, f.anchor[1], i)
			}
			switch {
			case lo < 0:
				p = hi
			case hi < 0:
				p = lo
			default:
				p = min(lo, hi)
			}
		default:
			set := &f.sets[f.at]
			for j := i; j < len(h); j++ {
				if set.has(h[j]) {
					p = j
					break
				}
			}
		}
		if p < 0 {
			return -1
		}
		if s := p - f.at; s+n <= len(h) && f.matchAt(h[s:s+n]) {
			return s
		}
		i = p + 1
	}
	return -1
}

// matchAt reports whether w (as long as the window) is in it.
func (f *windowFinder) matchAt(w []byte) bool {
	for k := range f.sets {
		if !f.sets[k].has(w[k]) {
			return false
		}
	}
	return true
}
