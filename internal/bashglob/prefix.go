package bashglob

import (
	"math/bits"
	"sort"
	"strings"
)

// MatchPrefix reports whether some name that begins with prefix matches
// pattern: whether there is a string w without NUL bytes such that
// Match(pattern, prefix+w, opts) holds. Because w may be empty, prefix
// itself is one candidate, and because w may contain '/', so are longer
// paths: prefix's complete components must match the pattern's components
// one by one, the component prefix ends in must be completable, and the
// pattern's later components must each match some name.
//
// The answer is exact. A pattern component is a regular language over
// characters, so MatchPrefix runs the component's automaton over prefix
// and then asks, by a backward pass over the automaton, whether an
// accepting state is still reachable; the leading-dot rules, the
// exclusion of "." and "..", and the choice between wide-character and
// byte matching (a name that is not valid UTF-8 is matched byte by byte,
// and a completion may make prefix invalid or complete a partial UTF-8
// sequence) are tracked by a small finite automaton alongside. It takes
// time linear in the pattern length times the prefix length.
//
// For example, MatchPrefix("*", "-") and MatchPrefix(".e*", ".env.") are
// true; MatchPrefix("[!-]*", "-"), MatchPrefix("*.go", ".env.") (leading
// dot) and MatchPrefix("?", "ab") are false. It returns true for a pattern
// that Unsupported reports.
func MatchPrefix(pattern, prefix string, opts *Options) bool {
	return compile(pattern).matchPrefix(prefix, optsOrZero(opts))
}

// matchPrefix is MatchPrefix for a compiled pattern.
func (c *compiled) matchPrefix(prefix string, o *Options) bool {
	if c.err != nil {
		return true
	}
	parts := strings.Split(prefix, "/")
	k := len(parts) - 1
	if k >= len(c.comps) {
		return false
	}
	var buf []rune
	for j := 0; j < k; j++ {
		var ok bool
		if ok, buf = c.comps[j].match(parts[j], o, buf); !ok {
			return false
		}
	}
	if !c.comps[k].prefixMatch(parts[k], o) {
		return false
	}
	for j := k + 1; j < len(c.comps); j++ {
		if !c.comps[j].prefixMatch("", o) {
			return false
		}
	}
	return true
}

// Name trackers: what the name read so far is, as far as the leading-dot
// rules care.
const (
	trEmpty  = iota // nothing read yet
	trDot           // "."
	trDotDot        // ".."
	trOther         // anything else
	numTrackers
)

func trackerStep(t int, isDot bool) int {
	if !isDot {
		return trOther
	}
	switch t {
	case trEmpty:
		return trDot
	case trDot:
		return trDotDot
	}
	return trOther
}

// trackerAccepts reports whether a name in tracker state t may match.
func (c *component) trackerAccepts(t int, o *Options) bool {
	if (t == trDot || t == trDotDot) && c.meta {
		return o.DotEntries && c.dotFirst
	}
	return true
}

// consumeAllowed reports whether element i may consume the next character
// of a name in tracker state t, as far as the leading-dot rule goes: a
// leading '.' must be matched by a literal '.' as the first element.
func (c *component) consumeAllowed(i, t int, isDot bool, o *Options) bool {
	if !isDot || t != trEmpty || !c.meta || o.DotGlob {
		return true
	}
	return i == 0 && c.dotFirst
}

// prefixMatch reports whether some completion of the name component
// prefix s matches c.
func (c *component) prefixMatch(s string, o *Options) bool {
	if !c.valid {
		return c.bytePrefix(s, o, false)
	}
	return c.widePrefix(s, o) || c.bytePrefix(s, o, true)
}

// stateSet is a set of positions in a token list (0..len).
type stateSet []uint64

func newStateSet(n int) stateSet  { return make(stateSet, n/64+1) }
func (s stateSet) set(i int)      { s[i>>6] |= 1 << (i & 63) }
func (s stateSet) has(i int) bool { return s[i>>6]&(1<<(i&63)) != 0 }
func (s stateSet) clear()         { clear(s) }

func (s stateSet) empty() bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// each calls f for every member, in increasing order.
func (s stateSet) each(f func(int)) {
	for wi, w := range s {
		for w != 0 {
			f(wi*64 + bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
}

// closeStars adds, for every position holding '*', the next position:
// a '*' may match the empty string.
func closeStars(s stateSet, toks []token) {
	for i := 0; i < len(toks); i++ {
		if s.has(i) && toks[i].kind == tokStar {
			s.set(i + 1)
		}
	}
}

// simulate runs toks over syms from the start state and returns the set of
// positions reached, with the tracker state. It applies the leading-dot
// rule.
func (c *component) simulate(toks []token, syms []rune, byteMode bool, o *Options) (stateSet, int) {
	cur := newStateSet(len(toks) + 1)
	next := newStateSet(len(toks) + 1)
	cur.set(0)
	closeStars(cur, toks)
	tr := trEmpty
	for _, r := range syms {
		next.clear()
		isDot := r == '.'
		cur.each(func(i int) {
			if i >= len(toks) || !c.consumeAllowed(i, tr, isDot, o) {
				return
			}
			t := &toks[i]
			switch {
			case t.kind == tokStar:
				next.set(i)
			case t.matches(r, byteMode, o):
				next.set(i + 1)
			}
		})
		closeStars(next, toks)
		cur, next = next, cur
		tr = trackerStep(tr, isDot)
		if cur.empty() {
			break
		}
	}
	return cur, tr
}

// widePrefix decides the question for names that are valid UTF-8, which
// bash matches as wide characters.
func (c *component) widePrefix(s string, o *Options) bool {
	var syms []rune
	i := 0
	for i < len(s) {
		r, n := decodeWide(s[i:])
		if n == 0 {
			break
		}
		syms = append(syms, r)
		i += n
	}
	var lo, hi rune
	tail := s[i:]
	if tail != "" {
		var ok bool
		if lo, hi, ok = completionRange(tail); !ok {
			return false
		}
	}
	toks := c.rtoks
	good := c.wideGood(o)
	cur, tr := c.simulate(toks, syms, false, o)
	found := false
	cur.each(func(i int) {
		if found {
			return
		}
		if tail == "" {
			found = good[i]&(1<<tr) != 0
			return
		}
		// The next character completes the partial sequence: it is in
		// [lo, hi], above 0x7F, so it is not '.' and the tracker becomes
		// trOther.
		if i >= len(toks) {
			return
		}
		t := &toks[i]
		if !tokenHasIn(t, lo, hi, o) {
			return
		}
		j := i + 1
		if t.kind == tokStar {
			j = i
		}
		found = good[j]&(1<<trOther) != 0
	})
	return found
}

// wideGood returns, for every position, the tracker states from which the
// rest of the component can still be matched by valid wide characters.
// The slice is shared: never modify it.
func (c *component) wideGood(o *Options) []uint8 {
	if c.memo == nil {
		return c.computeWideGood(o)
	}
	slot := &c.memo.get().wide[optKey(o)]
	if g := slot.Load(); g != nil {
		return *g
	}
	g := c.computeWideGood(o)
	slot.Store(&g)
	return g
}

func (c *component) computeWideGood(o *Options) []uint8 {
	toks := c.rtoks
	n := len(toks)
	good := make([]uint8, n+1)
	for t := 0; t < numTrackers; t++ {
		if c.trackerAccepts(t, o) {
			good[n] |= 1 << t
		}
	}
	for i := n - 1; i >= 0; i-- {
		t := &toks[i]
		canDot := t.matches('.', false, o)
		canOther := tokenHasOther(t, o)
		step := func(target uint8) uint8 {
			var g uint8
			for tr := 0; tr < numTrackers; tr++ {
				if canDot && c.consumeAllowed(i, tr, true, o) && target&(1<<trackerStep(tr, true)) != 0 {
					g |= 1 << tr
				}
				if canOther && target&(1<<trOther) != 0 {
					g |= 1 << tr
				}
			}
			return g
		}
		if t.kind != tokStar {
			good[i] = step(good[i+1])
			continue
		}
		g := good[i+1]
		for {
			ng := g | step(g)
			if ng == g {
				break
			}
			g = ng
		}
		good[i] = g
	}
	return good
}

// otherExcluded are the values a character other than '.' of a name
// component cannot take.
var otherExcluded = union(nameExcluded, rset{{'.', '.'}})

// tokenHasOther reports whether t matches some valid wide character of a
// name component other than '.'.
func tokenHasOther(t *token, o *Options) bool {
	switch t.kind {
	case tokLit:
		return t.r != '.' && !nameExcluded.has(t.r)
	case tokSet:
		return bracketHasIn(t.br, 1, maxWide, otherExcluded, o)
	}
	return true
}

// tokenHasIn reports whether t matches some character in [lo, hi], a range
// of valid non-ASCII wide characters.
func tokenHasIn(t *token, lo, hi rune, o *Options) bool {
	switch t.kind {
	case tokLit:
		if t.r >= lo && t.r <= hi {
			return true
		}
		return o.FoldCase && variants(t.r, false, func(v rune) bool { return v >= lo && v <= hi })
	case tokSet:
		return bracketHasIn(t.br, lo, hi, nameExcluded, o)
	}
	return true
}

// effective returns the set of wide characters b matches, FoldCase aside.
func (b *bracket) effective(o *Options) rset {
	base := b.items
	for k := class(0); k < numClasses; k++ {
		if b.classes&(1<<k) != 0 {
			base = union(base, wideClassSets()[k])
		}
	}
	m := base
	if b.neg {
		m = complement(base)
	}
	if o.AnyLocale {
		var u rset
		if b.classes != 0 {
			u = append(u, rng{0x80, maxWide})
		}
		if b.hasRange {
			u = append(u, rng{0x100, maxWide})
		}
		if len(b.equivs) > 0 {
			var eq []rng
			for _, e := range b.equivs {
				eq = append(eq, rng{e, e})
			}
			u = union(u, complement(normalize(eq)))
		}
		m = union(m, normalize(u))
	}
	return m
}

// bracketHasIn reports whether b matches some wide character in [lo, hi]
// that is not in excl.
func bracketHasIn(b *bracket, lo, hi rune, excl rset, o *Options) bool {
	m := b.effective(o)
	if m.anyIn(lo, hi, excl) {
		return true
	}
	if !o.FoldCase {
		return false
	}
	// A character also matches when one of its case variants is in m.
	fs := foldableRunes()
	i := sort.Search(len(fs), func(i int) bool { return fs[i] >= lo })
	for ; i < len(fs) && fs[i] <= hi; i++ {
		c := fs[i]
		if excl.has(c) {
			continue
		}
		if variants(c, false, m.has) {
			return true
		}
	}
	return false
}

// UTF-8 validity automaton states, following glibc's converter: the
// boundary between characters, waiting for 1..5 continuation bytes, the
// states after a lead byte that restricts the next byte, and a sink for
// invalid input.
const (
	u8Start = iota
	u8Need1
	u8Need2
	u8Need3
	u8Need4
	u8Need5
	u8AfterE0
	u8AfterED
	u8AfterF0
	u8AfterF8
	u8AfterFC
	u8Bad
	numU8
)

func utf8Step(u int, b byte) int {
	cont := b >= 0x80 && b <= 0xBF
	switch u {
	case u8Start:
		switch {
		case b < 0x80:
			return u8Start
		case b < 0xC2:
			return u8Bad
		case b < 0xE0:
			return u8Need1
		case b == 0xE0:
			return u8AfterE0
		case b == 0xED:
			return u8AfterED
		case b < 0xF0:
			return u8Need2
		case b == 0xF0:
			return u8AfterF0
		case b < 0xF8:
			return u8Need3
		case b == 0xF8:
			return u8AfterF8
		case b < 0xFC:
			return u8Need4
		case b == 0xFC:
			return u8AfterFC
		case b == 0xFD:
			return u8Need5
		}
		return u8Bad
	case u8Need1, u8Need2, u8Need3, u8Need4, u8Need5:
		if cont {
			return u - 1 // u8Need1-1 == u8Start
		}
	case u8AfterE0:
		if b >= 0xA0 && b <= 0xBF {
			return u8Need1
		}
	case u8AfterED:
		if b >= 0x80 && b <= 0x9F {
			return u8Need1
		}
	case u8AfterF0:
		if b >= 0x90 && b <= 0xBF {
			return u8Need2
		}
	case u8AfterF8:
		if b >= 0x88 && b <= 0xBF {
			return u8Need3
		}
	case u8AfterFC:
		if b >= 0x84 && b <= 0xBF {
			return u8Need4
		}
	}
	return u8Bad
}

// byteClass groups the bytes that may occur in a name component by how the
// automata above treat them; classRep holds one byte of each group.
var byteClass [256]int8
var classRep []byte

func init() {
	bounds := []struct{ lo, hi byte }{
		{0x01, 0x7F}, {'.', '.'},
		{0x80, 0x83}, {0x84, 0x87}, {0x88, 0x8F}, {0x90, 0x9F}, {0xA0, 0xBF},
		{0xC0, 0xC1}, {0xC2, 0xDF}, {0xE0, 0xE0}, {0xE1, 0xEC}, {0xED, 0xED},
		{0xEE, 0xEF}, {0xF0, 0xF0}, {0xF1, 0xF7}, {0xF8, 0xF8}, {0xF9, 0xFB},
		{0xFC, 0xFC}, {0xFD, 0xFD}, {0xFE, 0xFF},
	}
	for i := range byteClass {
		byteClass[i] = -1
	}
	for k, r := range bounds {
		for b := int(r.lo); b <= int(r.hi); b++ {
			byteClass[b] = int8(k)
		}
		classRep = append(classRep, r.hi)
	}
	byteClass['/'] = -1
	classRep[0] = 'a'
}

// bytePrefix decides the question for names matched byte by byte: all
// names when the pattern component is not valid UTF-8, and otherwise
// (requireInvalid) only names that are not valid UTF-8.
func (c *component) bytePrefix(s string, o *Options, requireInvalid bool) bool {
	toks := c.btoks
	good := c.byteGood(o, requireInvalid)
	syms := bytesOf(s, nil)
	cur, tr := c.simulate(toks, syms, true, o)
	u := u8Start
	for i := 0; i < len(s); i++ {
		u = utf8Step(u, s[i])
	}
	aux := uint(tr*numU8 + u)
	found := false
	cur.each(func(i int) {
		if good[i]&(1<<aux) != 0 {
			found = true
		}
	})
	return found
}

// byteGood returns, for every position, the (tracker, UTF-8 state) pairs
// from which the rest of the component can be matched byte by byte. The
// slice is shared: never modify it.
func (c *component) byteGood(o *Options, requireInvalid bool) []uint64 {
	if c.memo == nil {
		return c.computeByteGood(o, requireInvalid)
	}
	k := optKey(o)
	if requireInvalid {
		k += numOptKeys
	}
	slot := &c.memo.get().byte[k]
	if g := slot.Load(); g != nil {
		return *g
	}
	g := c.computeByteGood(o, requireInvalid)
	slot.Store(&g)
	return g
}

func (c *component) computeByteGood(o *Options, requireInvalid bool) []uint64 {
	toks := c.btoks
	n := len(toks)
	good := make([]uint64, n+1)
	for tr := 0; tr < numTrackers; tr++ {
		for u := 0; u < numU8; u++ {
			if c.trackerAccepts(tr, o) && (!requireInvalid || u != u8Start) {
				good[n] |= 1 << uint(tr*numU8+u)
			}
		}
	}
	for i := n - 1; i >= 0; i-- {
		t := &toks[i]
		var mask uint32
		for b := 1; b < 256; b++ {
			if k := byteClass[b]; k >= 0 && mask&(1<<k) == 0 && t.matches(rune(b), true, o) {
				mask |= 1 << k
			}
		}
		step := func(target uint64) uint64 {
			var g uint64
			for tr := 0; tr < numTrackers; tr++ {
				for u := 0; u < numU8; u++ {
					a := uint(tr*numU8 + u)
					if g&(1<<a) != 0 {
						continue
					}
					for k := 0; k < len(classRep); k++ {
						if mask&(1<<k) == 0 {
							continue
						}
						b := classRep[k]
						isDot := b == '.'
						if !c.consumeAllowed(i, tr, isDot, o) {
							continue
						}
						na := uint(trackerStep(tr, isDot)*numU8 + utf8Step(u, b))
						if target&(1<<na) != 0 {
							g |= 1 << a
							break
						}
					}
				}
			}
			return g
		}
		if t.kind != tokStar {
			good[i] = step(good[i+1])
			continue
		}
		g := good[i+1]
		for {
			ng := g | step(g)
			if ng == g {
				break
			}
			g = ng
		}
		good[i] = g
	}
	return good
}
