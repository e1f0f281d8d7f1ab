package bashglob

import "slices"

// tokKind says what one element of a compiled pattern component matches.
type tokKind uint8

const (
	tokLit  tokKind = iota // one particular character
	tokAny                 // ?: any one character
	tokStar                // *: any string, also empty
	tokSet                 // [...]: one character of a set
)

// token is one element of a compiled pattern component.
type token struct {
	kind tokKind
	r    rune     // the character, for tokLit
	br   *bracket // the set, for tokSet
}

// bracket is a compiled bracket expression.
type bracket struct {
	neg      bool   // [!...] or [^...]
	items    rset   // single characters, [=c=], [.c.] and valid ranges
	classes  uint16 // bit k set for [:k:]
	equivs   []rune // characters named by [=c=]
	hasRange bool   // has a valid range; used by Options.AnyLocale
	ascii    [2]uint64
}

// base reports whether c is listed by the expression, before negation.
func (b *bracket) base(c rune, byteMode bool) bool {
	if c >= 0 && c < 0x80 {
		return b.ascii[c>>6]&(1<<(c&63)) != 0
	}
	if b.items.has(c) {
		return true
	}
	if b.classes != 0 && !byteMode {
		for k := class(0); k < numClasses; k++ {
			if b.classes&(1<<k) != 0 && classHas(k, c, false) {
				return true
			}
		}
	}
	return false
}

// unknown reports whether, in some locale other than C.UTF-8, bash might
// decide differently whether c belongs to b.
func (b *bracket) unknown(c rune, byteMode bool) bool {
	if len(b.equivs) > 0 && !slices.Contains(b.equivs, c) {
		return true
	}
	if byteMode {
		return false
	}
	return (b.classes != 0 && c > 0x7F) || (b.hasRange && c > 0xFF)
}

// matchOne reports whether the expression matches the character c.
func (b *bracket) matchOne(c rune, byteMode bool, o *Options) bool {
	if o.AnyLocale && b.unknown(c, byteMode) {
		return true
	}
	return b.base(c, byteMode) != b.neg
}

// parseError describes a construct whose bash meaning is not pinned down.
type parseError struct {
	off  int // byte offset within the component
	what string
}

// bracket parse outcomes.
const (
	brClosed   = iota // a bracket expression
	brUnclosed        // not one: the [ is an ordinary character
	brBad             // a construct reported by Unsupported
)

// parseComponent compiles one pattern component (a part between slashes,
// still holding its backslash escapes). In byte mode every byte is a
// character; otherwise raw must be valid UTF-8 (in glibc's sense) and is
// decoded to wide characters, as bash does. meta reports whether the
// component has a wildcard or a bracket expression (an unsupported bracket
// expression counts).
func parseComponent(raw string, byteMode bool) (toks []token, meta bool, perr *parseError) {
	syms := make([]rune, 0, len(raw))
	offs := make([]int, 0, len(raw))
	for i := 0; i < len(raw); {
		r, n := rune(raw[i]), 1
		if !byteMode {
			if r2, n2 := decodeWide(raw[i:]); n2 > 0 {
				r, n = r2, n2
			}
		}
		syms = append(syms, r)
		offs = append(offs, i)
		i += n
	}
	fail := func(at int, what string) {
		if perr == nil {
			off := len(raw)
			if at < len(offs) {
				off = offs[at]
			}
			perr = &parseError{off: off, what: what}
		}
	}
	lit := func(r rune) { toks = append(toks, token{kind: tokLit, r: r}) }
	for i := 0; i < len(syms); {
		switch c := syms[i]; c {
		case '\\':
			if i+1 >= len(syms) {
				fail(i, "backslash at the end of the pattern")
				lit('\\')
				i++
				continue
			}
			lit(syms[i+1])
			i += 2
		case '*':
			meta = true
			if len(toks) == 0 || toks[len(toks)-1].kind != tokStar {
				toks = append(toks, token{kind: tokStar})
			}
			i++
		case '?':
			meta = true
			toks = append(toks, token{kind: tokAny})
			i++
		case '[':
			br, end, status, at, what := parseBracket(syms, i, byteMode)
			switch status {
			case brClosed:
				meta = true
				toks = append(toks, token{kind: tokSet, br: br})
				i = end
			case brUnclosed:
				lit('[')
				i++
			default:
				meta = true
				fail(at, what)
				lit('[')
				i++
			}
		default:
			lit(c)
			i++
		}
	}
	return toks, meta, perr
}

// parseBracket parses the bracket expression whose [ is s[start].
//
// Bash does not parse a bracket expression once: it scans it afresh for
// every character it tests, and after a successful test it skips to the
// closing ] by different rules. The two scans agree, and the expression is
// an ordinary set, for everything this function accepts; the constructs on
// which they can disagree, or whose meaning depends on the locale, are
// reported as brBad with the index of the offending symbol and a
// description.
func parseBracket(s []rune, start int, byteMode bool) (br *bracket, end, status, at int, what string) {
	n := len(s)
	b := &bracket{}
	j := start + 1
	if j < n && (s[j] == '!' || s[j] == '^') {
		b.neg = true
		j++
	}
	bad := func(i int, w string) (*bracket, int, int, int, string) {
		return nil, 0, brBad, i, w
	}
	var items []rng
	first := true
	afterEquiv := false
	for {
		if j >= n {
			return nil, 0, brUnclosed, 0, ""
		}
		c := s[j]
		if c == ']' && !first {
			if afterEquiv {
				return bad(j, "equivalence class [=c=] right before the closing ]")
			}
			b.items = normalize(items)
			for k := rune(0); k < 0x80; k++ {
				in := b.items.has(k)
				for cl := class(0); cl < numClasses && !in; cl++ {
					in = b.classes&(1<<cl) != 0 && asciiClass(k, cl)
				}
				if in {
					b.ascii[k>>6] |= 1 << (k & 63)
				}
			}
			return b, j + 1, brClosed, 0, ""
		}
		first = false
		afterEquiv = false
		if c == '[' && j+1 < n && (s[j+1] == ':' || s[j+1] == '=' || s[j+1] == '.') {
			switch s[j+1] {
			case ':':
				k := j + 2
				for k+1 < n && !(s[k] == ':' && s[k+1] == ']') {
					k++
				}
				if k+1 >= n {
					return bad(j, "[: without a closing :]")
				}
				name := make([]byte, 0, k-j-2)
				for _, r := range s[j+2 : k] {
					if r < 'a' || r > 'z' {
						name = nil
						break
					}
					name = append(name, byte(r))
				}
				cl, ok := classNames[string(name)]
				if name == nil || !ok {
					return bad(j, "character class name other than the POSIX ones")
				}
				b.classes |= 1 << cl
				j = k + 2
				continue
			case '=':
				if j+4 >= n || s[j+3] != '=' || s[j+4] != ']' {
					return bad(j, "equivalence class other than [=c=] with one character")
				}
				e := s[j+2]
				if !plainASCII(e) {
					return bad(j, "equivalence class of a non-ASCII character or of [, ] or \\")
				}
				b.equivs = append(b.equivs, e)
				items = append(items, rng{e, e})
				j += 5
				afterEquiv = true
				continue
			default: // '.'
				k := j + 2
				for k+1 < n && !(s[k] == '.' && s[k+1] == ']') {
					k++
				}
				if k+1 >= n {
					return bad(j, "[. without a closing .]")
				}
				if k != j+3 || !plainASCII(s[j+2]) {
					return bad(j, "collating symbol other than [.c.] with one ASCII character other than [, ] or \\")
				}
				e := s[j+2]
				j = k + 2
				if j >= n {
					return nil, 0, brUnclosed, 0, ""
				}
				if s[j] == '-' && (j+1 >= n || s[j+1] != ']') {
					return bad(j, "collating symbol as a range end point")
				}
				items = append(items, rng{e, e})
				continue
			}
		}
		// One character, maybe escaped, maybe the start of a range.
		lo := c
		if c == '\\' {
			if j+1 >= n {
				return bad(j, "backslash at the end of the pattern")
			}
			lo = s[j+1]
			j += 2
		} else {
			j++
		}
		if j >= n {
			return nil, 0, brUnclosed, 0, ""
		}
		if s[j] != '-' || (j+1 < n && s[j+1] == ']') {
			items = append(items, rng{lo, lo})
			continue
		}
		dash := j
		k := j + 1
		if k >= n {
			return bad(dash, "range without an end point")
		}
		hi := s[k]
		escaped := false
		k++
		if hi == '\\' {
			if k >= n {
				return bad(k-1, "backslash at the end of the pattern")
			}
			hi = s[k]
			escaped = true
			k++
		}
		if hi == '[' && k < n && (s[k] == '.' || (!escaped && (s[k] == ':' || s[k] == '='))) {
			return bad(k-1, "[. [: or [= as a range end point")
		}
		if !byteMode && (lo > 0xFF || hi > 0xFF) {
			return bad(dash, "range with an end point above U+00FF (its order depends on the locale)")
		}
		if lo <= hi {
			b.hasRange = true
			items = append(items, rng{lo, hi})
		}
		j = k
	}
}

// plainASCII reports whether c may appear in [=c=] or [.c.].
func plainASCII(c rune) bool {
	return c > 0 && c < 0x80 && c != '[' && c != ']' && c != '\\'
}
