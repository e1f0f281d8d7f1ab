package bashglob

// maxWide is the largest character value glibc's UTF-8 converter produces:
// it still accepts the historical five- and six-byte forms, so a file name
// may hold characters up to U+7FFFFFFF even though Unicode stops at
// U+10FFFF.
const maxWide rune = 0x7FFFFFFF

// decodeWide decodes the character at the start of s the way glibc's UTF-8
// converter does in a UTF-8 locale, which is how bash turns a pattern and a
// name into wide characters. Compared with unicode/utf8 it also accepts
// sequences for values above U+10FFFF (up to six bytes), but like it
// rejects overlong forms and UTF-16 surrogates. It returns size 0 when s
// does not begin with a complete, valid sequence.
func decodeWide(s string) (r rune, size int) {
	if s == "" {
		return 0, 0
	}
	b := s[0]
	var n int
	var cp, least rune
	switch {
	case b < 0x80:
		return rune(b), 1
	case b < 0xC2:
		return 0, 0
	case b < 0xE0:
		n, cp, least = 2, rune(b&0x1F), 0x80
	case b < 0xF0:
		n, cp, least = 3, rune(b&0x0F), 0x800
	case b < 0xF8:
		n, cp, least = 4, rune(b&0x07), 0x10000
	case b < 0xFC:
		n, cp, least = 5, rune(b&0x03), 0x200000
	case b < 0xFE:
		n, cp, least = 6, rune(b&0x01), 0x4000000
	default:
		return 0, 0
	}
	if len(s) < n {
		return 0, 0
	}
	for i := 1; i < n; i++ {
		c := s[i]
		if c&0xC0 != 0x80 {
			return 0, 0
		}
		cp = cp<<6 | rune(c&0x3F)
	}
	if cp < least || (cp >= 0xD800 && cp <= 0xDFFF) {
		return 0, 0
	}
	return cp, n
}

// decodeAll decodes all of s with decodeWide. ok is false when s is not
// valid in glibc's sense, in which case bash matches byte by byte.
func decodeAll(s string, buf []rune) (syms []rune, ok bool) {
	syms = buf[:0]
	for i := 0; i < len(s); {
		r, n := decodeWide(s[i:])
		if n == 0 {
			return syms, false
		}
		syms = append(syms, r)
		i += n
	}
	return syms, true
}

// bytesOf returns the bytes of s as symbols for byte-by-byte matching.
func bytesOf(s string, buf []rune) []rune {
	syms := buf[:0]
	for i := 0; i < len(s); i++ {
		syms = append(syms, rune(s[i]))
	}
	return syms
}

// completionRange reports the characters whose encoding begins with tail,
// a proper prefix of one valid multi-byte sequence. Valid sequences sharing
// a byte prefix encode a contiguous range of values. ok is false when no
// valid sequence begins with tail.
func completionRange(tail string) (lo, hi rune, ok bool) {
	if tail == "" {
		return 0, 0, false
	}
	b := tail[0]
	var n int
	var min2, max2 byte = 0x80, 0xBF
	switch {
	case b >= 0xC2 && b < 0xE0:
		n = 2
	case b >= 0xE0 && b < 0xF0:
		n = 3
		if b == 0xE0 {
			min2 = 0xA0
		} else if b == 0xED {
			max2 = 0x9F
		}
	case b >= 0xF0 && b < 0xF8:
		n = 4
		if b == 0xF0 {
			min2 = 0x90
		}
	case b >= 0xF8 && b < 0xFC:
		n = 5
		if b == 0xF8 {
			min2 = 0x88
		}
	case b >= 0xFC && b < 0xFE:
		n = 6
		if b == 0xFC {
			min2 = 0x84
		}
	default:
		return 0, 0, false
	}
	if len(tail) >= n {
		return 0, 0, false
	}
	low := []byte(tail)
	high := []byte(tail)
	for i := len(tail); i < n; i++ {
		if i == 1 {
			low = append(low, min2)
			high = append(high, max2)
		} else {
			low = append(low, 0x80)
			high = append(high, 0xBF)
		}
	}
	l, ln := decodeWide(string(low))
	h, hn := decodeWide(string(high))
	if ln != n || hn != n {
		return 0, 0, false
	}
	return l, h, true
}
