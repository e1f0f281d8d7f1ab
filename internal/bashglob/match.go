package bashglob

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// component is one compiled pattern component (the text between slashes).
type component struct {
	meta     bool      // has a wildcard or bracket expression
	valid    bool      // raw is valid UTF-8 in glibc's sense
	dotFirst bool      // the first element is a literal '.'
	rtoks    []token   // wide-character form; only when valid
	btoks    []token   // byte form
	memo     *memoSlot // nil: nothing is kept (a component of one expansion)
	// head and tail are the ASCII characters every match starts and ends
	// with (the literal tokens before the first other token, and after the
	// last); tail is empty when the component is all literal. A name
	// without them is refused before any decoding.
	head, tail string
}

// memoSlot holds a compiled pattern's component's compMemo, made at the
// first prefix match.
type memoSlot struct{ p atomic.Pointer[compMemo] }

// get returns the slot's compMemo, making it if there is none yet.
func (s *memoSlot) get() *compMemo {
	if m := s.p.Load(); m != nil {
		return m
	}
	s.p.CompareAndSwap(nil, &compMemo{})
	return s.p.Load()
}

// compMemo keeps what prefix matching derives from a component and the
// options alone (see wideGood and byteGood): a compiled pattern is shared
// and asked the same questions again and again.
type compMemo struct {
	wide [numOptKeys]atomic.Pointer[[]uint8]
	byte [2 * numOptKeys]atomic.Pointer[[]uint64]
}

// numOptKeys is the number of distinct Options values (four booleans).
const numOptKeys = 16

// optKey numbers the Options value o.
func optKey(o *Options) int {
	k := 0
	if o.DotGlob {
		k |= 1
	}
	if o.DotEntries {
		k |= 2
	}
	if o.FoldCase {
		k |= 4
	}
	if o.AnyLocale {
		k |= 8
	}
	return k
}

// compiled is a compiled pattern.
type compiled struct {
	comps []component
	err   *UnsupportedError
}

// splitComponents splits a pattern at every '/', escaped or not: bash
// treats a quoted slash in a pathname pattern as a plain separator.
func splitComponents(p string) (comps []string, offs []int) {
	start := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 < len(p) && p[i+1] == '/' {
				comps = append(comps, p[start:i])
				offs = append(offs, start)
				start = i + 2
			}
			i++
		case '/':
			comps = append(comps, p[start:i])
			offs = append(offs, start)
			start = i + 1
		}
	}
	return append(comps, p[start:]), append(offs, start)
}

// validWide reports whether s is valid UTF-8 in glibc's sense.
func validWide(s string) bool {
	for i := 0; i < len(s); {
		_, n := decodeWide(s[i:])
		if n == 0 {
			return false
		}
		i += n
	}
	return true
}

// compileComponent compiles one component.
func compileComponent(raw string) (component, *parseError) {
	c := component{valid: validWide(raw)}
	var perr *parseError
	var bmeta bool
	c.btoks, bmeta, perr = parseComponent(raw, true)
	if c.valid {
		// The wide form is the one bash uses for valid names; its
		// unsupported constructs include those of the byte form.
		var rerr *parseError
		c.rtoks, c.meta, rerr = parseComponent(raw, false)
		if rerr != nil {
			perr = rerr
		}
	} else {
		c.meta = bmeta
	}
	c.dotFirst = len(c.btoks) > 0 && c.btoks[0].kind == tokLit && c.btoks[0].r == '.'
	c.head, c.tail = literalEnds(c.btoks)
	return c, perr
}

// literalEnds returns the ASCII literal characters toks starts and ends
// with.
func literalEnds(toks []token) (head, tail string) {
	lit := func(t token) bool { return t.kind == tokLit && t.r < utf8.RuneSelf }
	i := 0
	for i < len(toks) && lit(toks[i]) {
		i++
	}
	j := len(toks)
	if i < j {
		for j > i && lit(toks[j-1]) {
			j--
		}
	}
	var buf [64]byte
	b := buf[:0]
	for _, t := range toks[:i] {
		b = append(b, byte(t.r))
	}
	head = string(b)
	b = b[:0]
	for _, t := range toks[j:] {
		b = append(b, byte(t.r))
	}
	return head, string(b)
}

// litFits reports whether name, all ASCII, starts with head and ends with
// tail (in any case of letters under fold), without the two overlapping:
// a name that does not cannot match a component with those literal ends.
func litFits(name, head, tail string, fold bool) bool {
	if len(head)+len(tail) > len(name) {
		return false
	}
	eq := func(a, b string) bool {
		if fold {
			return strings.EqualFold(a, b) // both ASCII
		}
		return a == b
	}
	return eq(name[:len(head)], head) && eq(name[len(name)-len(tail):], tail)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// compile compiles a whole pattern.
func compile(pattern string) *compiled {
	if len(pattern) <= maxCachedPattern {
		if v, ok := compileCache.Load(pattern); ok {
			return v.(*compiled)
		}
	}
	c := compileUncached(pattern)
	if len(pattern) <= maxCachedPattern && compileCacheSize.Load() < maxCompileCache {
		if _, loaded := compileCache.LoadOrStore(pattern, c); !loaded {
			compileCacheSize.Add(1)
		}
	}
	return c
}

// The compiled patterns are immutable, so they are shared: callers ask
// about the same few patterns again and again.
var (
	compileCache     sync.Map // string -> *compiled
	compileCacheSize atomic.Int64
)

const (
	maxCompileCache  = 4096
	maxCachedPattern = 512
)

func compileUncached(pattern string) *compiled {
	c := &compiled{}
	raws, offs := splitComponents(pattern)
	slots := make([]memoSlot, len(raws))
	for i, raw := range raws {
		comp, perr := compileComponent(raw)
		comp.memo = &slots[i]
		if perr != nil && c.err == nil {
			c.err = &UnsupportedError{Pattern: pattern, Offset: offs[i] + perr.off, Construct: perr.what}
		}
		c.comps = append(c.comps, comp)
	}
	if i := strings.IndexByte(pattern, 0); i >= 0 {
		c.err = &UnsupportedError{Pattern: pattern, Offset: i, Construct: "NUL byte (no shell word holds one)"}
	}
	if len(pattern) > MaxPatternLen {
		c.err = &UnsupportedError{Pattern: pattern, Offset: MaxPatternLen, Construct: "pattern longer than MaxPatternLen"}
	}
	return c
}

// HasMeta reports whether pattern has pathname-expansion syntax: an
// unescaped '*' or '?', or an unescaped '[' that opens a bracket
// expression (one closed by a ']' in the same path component). A '[' whose
// bracket expression Unsupported reports also counts. A pattern without
// meta characters is not subject to pathname expansion: bash uses it as
// written, with the backslash escapes removed.
func HasMeta(pattern string) bool {
	if !strings.ContainsAny(pattern, "*?[") {
		return false // the common case, without compiling
	}
	for _, c := range compile(pattern).comps {
		if c.meta {
			return true
		}
	}
	return false
}

// Unsupported returns a non-nil *UnsupportedError when pattern uses a
// construct whose meaning in bash this package does not pin down, and nil
// otherwise. Callers should then assume the pattern can match anything; to
// make that the default, Match and MatchPrefix return true for such a
// pattern and Expand returns the error. The constructs are:
//
//   - a backslash at the end of the pattern (no shell quoting produces
//     one; bash's matcher treats it inconsistently);
//   - a NUL byte, or a pattern longer than MaxPatternLen bytes;
//   - in a bracket expression: a character class name other than alnum,
//     alpha, ascii, blank, cntrl, digit, graph, lower, print, punct,
//     space, upper, word and xdigit (other names depend on the locale); a
//     "[:" without ":]"; an equivalence class or collating symbol other
//     than [=c=] or [.c.] with c a single ASCII character other than '[',
//     ']' and '\' (multi-character ones such as [.space.] go through
//     bash's own name table and the locale); an equivalence class
//     directly followed by the closing ']', as in the common [[=a=]]
//     (bash then scans the expression differently depending on the
//     character tested: [[=a=]] matches "a" but also "[a]", and
//     [![=a=]] matches nothing); a collating symbol as a range end
//     point, or "[=", "[:" or "[." right after a range's '-' (the range
//     then uses the locale's collation, or is scanned inconsistently); a
//     range with an end point above U+00FF (ordered by wcscoll); a range
//     '-' at the very end of an unclosed expression, as in "[a-" (bash
//     then never matches the '[', not even literally).
//
// Only the first such construct is reported. Unclosed brackets such as
// "[abc" are supported: the '[' is then an ordinary character, as in
// bash.
func Unsupported(pattern string) error {
	if err := compile(pattern).err; err != nil {
		return err
	}
	return nil
}

// Match reports whether name matches pattern under the rules of bash's
// pathname expansion. Both are split at '/' and must have the same number
// of components; usually name is a single directory entry name without
// '/'. A component of pattern that has meta characters (see HasMeta)
// follows the leading-dot rule: a name that starts with '.' must be
// matched by a pattern component that starts with a literal '.' (or
// Options.DotGlob must be set), and "." and ".." are matched only with
// Options.DotEntries and a literal leading dot. A component without meta
// characters must equal the name component (after removing its escapes),
// so "." and ".." match themselves.
//
// Match uses wide characters when both the pattern component and the name
// component are valid UTF-8 (in glibc's sense, which also admits values
// beyond U+10FFFF), and bytes otherwise, like bash. It runs in time
// proportional to the pattern length times the name length, without
// backtracking. It returns true for a pattern that Unsupported reports.
func Match(pattern, name string, opts *Options) bool {
	return compile(pattern).match(name, optsOrZero(opts))
}

// Glob is a compiled pattern, for asking one pattern about many names
// (Match and MatchPrefix look the pattern up in a process-wide cache on
// every call). Its methods answer exactly as the functions of the same
// names do. The zero Glob is the empty pattern.
type Glob struct{ c *compiled }

// Compile compiles pattern. It never fails: a pattern that Unsupported
// reports matches everything, as with Match.
func Compile(pattern string) Glob { return Glob{compile(pattern)} }

// Match is Match(pattern, name, opts) for the compiled pattern.
func (g Glob) Match(name string, opts *Options) bool {
	if g.c == nil {
		g.c = compile("")
	}
	return g.c.match(name, optsOrZero(opts))
}

// MatchPrefix is MatchPrefix(pattern, prefix, opts) for the compiled
// pattern.
func (g Glob) MatchPrefix(prefix string, opts *Options) bool {
	if g.c == nil {
		g.c = compile("")
	}
	return g.c.matchPrefix(prefix, optsOrZero(opts))
}

// HasMeta is HasMeta(pattern) for the compiled pattern.
func (g Glob) HasMeta() bool {
	if g.c == nil {
		return false
	}
	for _, c := range g.c.comps {
		if c.meta {
			return true
		}
	}
	return false
}

// match is Match for a compiled pattern.
func (c *compiled) match(name string, o *Options) bool {
	if c.err != nil {
		return true
	}
	if strings.Count(name, "/")+1 != len(c.comps) {
		return false
	}
	var room [64]rune
	buf := room[:0]
	for i := range c.comps {
		p := name
		if j := strings.IndexByte(name, '/'); j >= 0 {
			p, name = name[:j], name[j+1:]
		}
		var ok bool
		if ok, buf = c.comps[i].match(p, o, buf); !ok {
			return false
		}
	}
	return true
}

func optsOrZero(o *Options) *Options {
	if o == nil {
		return &Options{}
	}
	return o
}

// dotAllowed applies the leading-dot rules to a whole name component.
func (c *component) dotAllowed(name string, o *Options) bool {
	if !c.meta {
		return true
	}
	if name == "." || name == ".." {
		return o.DotEntries && c.dotFirst
	}
	if name != "" && name[0] == '.' {
		return o.DotGlob || c.dotFirst
	}
	return true
}

// match matches one name component. buf is scratch space.
func (c *component) match(name string, o *Options, buf []rune) (bool, []rune) {
	if !c.dotAllowed(name, o) {
		return false, buf
	}
	if (c.head != "" || c.tail != "") && isASCII(name) && !litFits(name, c.head, c.tail, o.FoldCase) {
		return false, buf
	}
	if c.valid {
		syms, ok := decodeAll(name, buf)
		buf = syms
		if ok {
			return matchTokens(c.rtoks, syms, false, o), buf
		}
	}
	syms := bytesOf(name, buf)
	return matchTokens(c.btoks, syms, true, o), syms
}

// matches reports whether t matches the character c.
func (t *token) matches(c rune, byteMode bool, o *Options) bool {
	if t.matchExact(c, byteMode, o) {
		return true
	}
	if !o.FoldCase || t.kind == tokAny || t.kind == tokStar {
		return false
	}
	return variants(c, byteMode, func(v rune) bool { return t.matchExact(v, byteMode, o) })
}

func (t *token) matchExact(c rune, byteMode bool, o *Options) bool {
	switch t.kind {
	case tokLit:
		return c == t.r
	case tokSet:
		return t.br.matchOne(c, byteMode, o)
	}
	return true
}

// matchTokens matches a whole name against a compiled component with the
// classic two-pointer algorithm: since every element other than '*'
// consumes exactly one character, it suffices to remember the most recent
// '*' and let it absorb one more character on a mismatch. It takes
// O(len(toks)*len(name)) time and no extra space.
func matchTokens(toks []token, name []rune, byteMode bool, o *Options) bool {
	p, n := 0, 0
	starP, starN := -1, 0
	for n < len(name) {
		if p < len(toks) {
			t := &toks[p]
			if t.kind == tokStar {
				starP, starN = p, n
				p++
				continue
			}
			if t.matches(name[n], byteMode, o) {
				p++
				n++
				continue
			}
		}
		if starP < 0 {
			return false
		}
		starN++
		n = starN
		p = starP + 1
	}
	for p < len(toks) && toks[p].kind == tokStar {
		p++
	}
	return p == len(toks)
}
