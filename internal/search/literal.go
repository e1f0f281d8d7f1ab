package search

import (
	"bytes"
	"regexp/syntax"
	"unicode/utf8"
)

// requiredLiteral finds a literal every match must contain: the whole
// pattern when it is a literal that needs no verification (whole is then
// true), otherwise the longest literal among the top-level concatenation.
// fold reports a case-insensitive literal, returned in lower case; since
// ASCII folding must be exact, a folded literal is cut at "k" and "s" (which
// also fold to non-ASCII runes) and at non-ASCII runes, and the longest
// piece is used.
func requiredLiteral(re *syntax.Regexp) (lit []byte, fold, whole bool) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	switch re.Op {
	case syntax.OpLiteral:
		return literalBytes(re)
	case syntax.OpConcat:
		var best []byte
		var bestFold bool
		for _, sub := range re.Sub {
			for sub.Op == syntax.OpCapture {
				sub = sub.Sub[0]
			}
			if sub.Op != syntax.OpLiteral {
				continue
			}
			if l, f, _ := literalBytes(sub); len(l) > len(best) {
				best, bestFold = l, f
			}
		}
		return best, bestFold, false
	}
	return nil, false, false
}

func literalBytes(re *syntax.Regexp) (lit []byte, fold, whole bool) {
	if re.Flags&syntax.FoldCase == 0 {
		for _, r := range re.Rune {
			lit = utf8.AppendRune(lit, r)
		}
		return lit, false, true
	}
	var cur []byte
	whole = true
	for _, r := range append(re.Rune, -1) {
		if r < 0 || r >= utf8.RuneSelf || r == 'k' || r == 'K' || r == 's' || r == 'S' {
			if len(cur) > len(lit) {
				lit = cur
			}
			cur = nil
			if r >= 0 {
				whole = false
			}
			continue
		}
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		cur = append(cur, byte(r))
	}
	return lit, hasLetter(lit), whole
}

func hasLetter(b []byte) bool {
	for _, c := range b {
		if 'a' <= c && c <= 'z' {
			return true
		}
	}
	return false
}

// foldFinder finds an ASCII literal case-insensitively. It scans for the
// literal's rarest byte (both cases, for a letter) with IndexByte and checks
// the bytes around each hit.
type foldFinder struct {
	lit    []byte // lower case
	at     int    // offset of the rare byte in lit
	lo, up byte   // the rare byte in lower and upper case (equal for a non-letter)
}

func newFoldFinder(lit []byte) *foldFinder {
	f := &foldFinder{lit: lit}
	best := 1 << 30
	for i, c := range lit {
		r := int(byteRank[c])
		if 'a' <= c && c <= 'z' {
			r = max(r, int(byteRank[c-'a'+'A'])) + 16 // two scans cost more
		}
		if r < best {
			best, f.at = r, i
		}
	}
	f.lo = lit[f.at]
	f.up = f.lo
	if 'a' <= f.lo && f.lo <= 'z' {
		f.up = f.lo - 'a' + 'A'
	}
	return f
}

// index returns the offset of the first case-insensitive occurrence of the literal in h, or -1.
func (f *foldFinder) index(h []byte) int {
	n := len(f.lit)
	i := f.at // the next offset at which the rare byte may sit
	// Hits of the lower- and upper-case byte at or after i; -1 when there are no more.
	lo, up := -2, -2
	for i < len(h) {
		p := -1
		if f.lo == f.up {
			if j := bytes.IndexByte(h[i:], f.lo); j >= 0 {
				p = i + j
			}
		} else {
			if lo != -1 && lo < i {
				lo = indexFrom(h, f.lo, i)
			}
			if up != -1 && up < i {
				up = indexFrom(h, f.up, i)
			}
			switch {
			case lo < 0:
				p = up
			case up < 0:
				p = lo
			default:
				p = min(lo, up)
			}
		}
		if p < 0 {
			return -1
		}
		s := p - f.at
		if s+n <= len(h) && equalFoldASCII(h[s:s+n], f.lit) {
			return s
		}
		i = p + 1
	}
	return -1
}

// indexFrom returns the index of c in h at or after i, or -1.
func indexFrom(h []byte, c byte, i int) int {
	if j := bytes.IndexByte(h[i:], c); j >= 0 {
		return i + j
	}
	return -1
}

func equalFoldASCII(s, lower []byte) bool {
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// byteRank orders bytes by how often they occur in source code (0 = rarest),
// measured on the Go source tree.
var byteRank = [256]uint8{
	0, 46, 36, 37, 38, 39, 47, 48, 1, 252, 248, 2, 3, 60, 4, 5,
	40, 6, 7, 8, 41, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
	255, 182, 226, 164, 167, 172, 178, 175, 232, 231, 186, 180, 243, 190, 235, 233,
	250, 236, 229, 220, 222, 204, 218, 199, 209, 201, 228, 183, 177, 224, 171, 159,
	157, 216, 191, 207, 202, 215, 193, 185, 184, 206, 163, 173, 196, 200, 192, 208,
	203, 170, 211, 221, 217, 187, 194, 181, 197, 179, 166, 189, 205, 188, 160, 219,
	165, 247, 223, 240, 238, 254, 239, 227, 225, 246, 168, 198, 241, 230, 249, 244,
	234, 169, 251, 245, 253, 237, 210, 195, 242, 214, 174, 213, 176, 212, 156, 20,
	155, 144, 154, 148, 125, 145, 138, 97, 149, 132, 136, 90, 111, 77, 98, 71,
	108, 91, 94, 112, 137, 139, 88, 129, 141, 135, 68, 72, 133, 140, 103, 78,
	87, 96, 85, 93, 128, 122, 110, 113, 92, 134, 109, 117, 121, 115, 100, 82,
	84, 130, 123, 120, 99, 101, 86, 161, 95, 147, 124, 104, 142, 116, 131, 83,
	21, 22, 162, 127, 63, 59, 51, 69, 58, 81, 80, 62, 119, 79, 152, 106,
	73, 67, 50, 53, 55, 75, 76, 89, 150, 153, 65, 66, 56, 42, 49, 52,
	107, 146, 158, 151, 102, 126, 143, 114, 105, 74, 70, 57, 61, 54, 43, 64,
	118, 23, 24, 25, 44, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 45,
}
