package search

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/bmatcuk/doublestar/v4"
)

// This file is the fast path of the exclusion test, which runs on every
// entry of a walk and every file an engine prints. An Exclude list is
// mostly made of two kinds of pattern, both answered by comparing path
// components, without building the absolute path or running doublestar:
//
//   - base names, most of them literal (".env", ".netrc", ".ssh"): one map
//     lookup of the entry's name answers them all;
//   - absolute patterns whose segments are literal, except perhaps a "**"
//     first and a "**" last (a [fastAbs]): "/**/.config/gh" (the secret
//     policy's component sequences), "/home/u/proj/secrets/**" (a deny
//     rule). Those that start with "**" are filed in the same map under
//     their last segment, so that an entry whose name is none of them costs
//     nothing more.
//
// Any other absolute pattern ("/**/secrets/*.key", "/a/{b,c}") keeps the
// general path: doublestar on the absolute path, which is written into a
// buffer on the stack rather than concatenated.
//
// The fast forms give the answers doublestar gives on the whole path (the
// reference, [GrepOptions.Exclude]): TestExcludeMatcherDifferential and
// FuzzExcludeMatcher compare them with the general path on generated trees
// and on random patterns.

// fastAbs is an absolute pattern of the form "/[**/]lit/.../lit[/**]": its
// segments are literals (no wildcard, brace, class or escape), except that
// the first may be "**" (lead) and the last may be "**" (trail). Matched
// against the components C of an absolute path it means
//
//	neither lead nor trail   C equals lits
//	trail                    C starts with lits
//	lead                     C ends with lits
//	lead and trail           lits occur in C, consecutively
//
// (so "/**" and "/**/**" match every path, and "/" none below the root).
type fastAbs struct {
	given       string // as given, for messages
	lead, trail bool
	lits        []string
}

// newFastAbs returns the fast form of a compiled absolute pattern, or false
// when it has none. Patterns with braces never have one: doublestar's
// reading of braces next to stars is its own, and the general path keeps it.
func newFastAbs(a *absPattern) (fastAbs, bool) {
	if strings.ContainsAny(a.pat, "{}") {
		return fastAbs{}, false
	}
	f := fastAbs{given: a.given}
	if a.pat == "/" {
		return f, true
	}
	segs := strings.Split(a.pat[1:], "/")
	for i, s := range segs {
		switch {
		case s == "**" && i == 0:
			f.lead = true
		case s == "**" && i == len(segs)-1:
			f.trail = true
		case literalSegment(s):
			f.lits = append(f.lits, s)
		default:
			return fastAbs{}, false
		}
	}
	return f, true
}

// literalSegment reports a segment that doublestar matches only with the
// same bytes: no special character, and no U+FFFD (which doublestar matches
// with any byte that is not UTF-8).
func literalSegment(s string) bool {
	return s != "" && !strings.ContainsAny(s, `*?[]{}\,`) && !strings.ContainsRune(s, utf8.RuneError)
}

// match reports whether the absolute path whose components are root
// followed by rel's matches f.
func (f *fastAbs) match(root, rel []string) bool {
	n, total := len(f.lits), len(root)+len(rel)
	at := func(i int) string {
		if i < len(root) {
			return root[i]
		}
		return rel[i-len(root)]
	}
	from := func(s int) bool { // lits occur at C[s:]
		for i, l := range f.lits {
			if at(s+i) != l {
				return false
			}
		}
		return true
	}
	switch {
	case !f.lead && !f.trail:
		return total == n && from(0)
	case !f.lead:
		return total >= n && from(0)
	case !f.trail:
		return total >= n && from(total-n)
	}
	for s := 0; s+n <= total; s++ {
		if from(s) {
			return true
		}
	}
	return false
}

// nameIndex is what the exclusion map holds for one name: the literal
// base-name pattern equal to it (-1 for none), and the fast absolute
// patterns that start with "**" and end with it.
type nameIndex struct {
	name   int
	suffix []int
}

// fastExcluder is the part of an excluder compiled for the fast path.
type fastExcluder struct {
	byName map[string]*nameIndex
	// byExt files the base-name patterns "*.ext" (one dot, the first byte
	// of ext) by ".ext": a name is looked up by its extension once, not
	// compared with each of them.
	byExt     map[string]int
	nameOther []int     // other base-name patterns that are not literals: indices into excluder.names
	abs       []fastAbs // the absolute patterns that have a fast form
	other     []int     // of those, the ones byName does not file
	slow      []int     // absolute patterns without one: indices into excluder.abs

	// A quick test before nameOther: otherFirst holds the first bytes of
	// its prefix patterns ("id_rsa*"), otherLast the last bytes of its
	// suffix patterns ("*.pem"); otherAll is set when one of them is
	// neither (a glob, or an empty fixed part). A name whose first and
	// last bytes are in neither matches none of nameOther, unless
	// otherAll: most names are tested with two loads.
	otherFirst, otherLast [256]bool
	otherAll              bool
}

// fastPart returns ex's patterns filed for the fast path, filing them on
// first use (compileExclude does; an excluder made by hand in a test may
// not have).
func (ex *excluder) fastPart() *fastExcluder {
	ex.fastOnce.Do(ex.compileFast)
	return &ex.fast
}

// compileFast files ex's patterns for the fast path.
func (ex *excluder) compileFast() {
	fx := &ex.fast
	fx.byName = map[string]*nameIndex{}
	entry := func(name string) *nameIndex {
		e := fx.byName[name]
		if e == nil {
			e = &nameIndex{name: -1}
			fx.byName[name] = e
		}
		return e
	}
	for i := range ex.names {
		if n := &ex.names[i]; n.kind == nameLiteral {
			if e := entry(n.lit); e.name < 0 {
				e.name = i
			}
		} else if n.kind == nameSuffix && len(n.lit) > 1 && strings.LastIndexByte(n.lit, '.') == 0 {
			if fx.byExt == nil {
				fx.byExt = map[string]int{}
			}
			if _, dup := fx.byExt[n.lit]; !dup {
				fx.byExt[n.lit] = i
			}
		} else {
			fx.nameOther = append(fx.nameOther, i)
			switch {
			case n.kind == namePrefix && n.lit != "":
				fx.otherFirst[n.lit[0]] = true
			case n.kind == nameSuffix && n.lit != "":
				fx.otherLast[n.lit[len(n.lit)-1]] = true
			default:
				fx.otherAll = true
			}
		}
	}
	for i := range ex.abs {
		f, ok := newFastAbs(&ex.abs[i])
		if !ok {
			fx.slow = append(fx.slow, i)
			continue
		}
		k := len(fx.abs)
		fx.abs = append(fx.abs, f)
		if f.lead && !f.trail && len(f.lits) > 0 {
			e := entry(f.lits[len(f.lits)-1])
			e.suffix = append(e.suffix, k)
		} else {
			fx.other = append(fx.other, k)
		}
	}
}

// maxSplit is how many components of a relative path splitRel keeps on the
// stack; deeper paths are split on the heap.
const maxSplit = 48

// splitRel splits a clean, slash-separated relative path into its
// components, in buf when they fit.
func splitRel(rel string, buf *[maxSplit]string) []string {
	out := buf[:0]
	for {
		i := strings.IndexByte(rel, '/')
		if i < 0 {
			return append(out, rel)
		}
		out = append(out, rel[:i])
		rel = rel[i+1:]
	}
}

// fastIndex tests one entry below the root by itself against the base-name
// patterns and the fast absolute patterns, and returns which one excludes it
// (see given) and whether one does. It does not allocate.
func (rx *rootExcluder) fastIndex(rel string) (int, bool) {
	ex, fx := rx.ex, rx.ex.fastPart()
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	var e *nameIndex
	if len(fx.byName) > 0 {
		if e = fx.byName[name]; e != nil && e.name >= 0 {
			return e.name, true
		}
	}
	if fx.byExt != nil {
		if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
			if i, ok := fx.byExt[name[dot:]]; ok {
				return i, true
			}
		}
	}
	if name == "" || fx.otherAll || fx.otherFirst[name[0]] || fx.otherLast[name[len(name)-1]] {
		for _, i := range fx.nameOther {
			if ex.names[i].match(name) {
				return i, true
			}
		}
	}
	// Patterns anchored at "/" whose leading segments the root matched
	// (mayMatchBelow) need only their remaining segments, relPrefix,
	// compared with the start of rel.
	for _, o := range rx.fastOther {
		if f := &fx.abs[o.k]; !f.lead && o.anchored(rel, f.trail) {
			return len(ex.names) + o.k, true
		}
	}
	if (e == nil || len(e.suffix) == 0) && !rx.unanchored {
		return 0, false
	}
	var buf [maxSplit]string
	comps := splitRel(rel, &buf)
	if e != nil {
		for _, k := range e.suffix {
			for _, root := range rx.spaces {
				if fx.abs[k].match(root, comps) {
					return len(ex.names) + k, true
				}
			}
		}
	}
	for _, o := range rx.fastOther {
		if f := &fx.abs[o.k]; f.lead && f.match(rx.spaces[o.space], comps) {
			return len(ex.names) + o.k, true
		}
	}
	return 0, false
}

// anchored is fastAbs.match for a pattern without lead, bound to a root
// whose components are its leading segments: rel must be relPrefix (with
// trail, or start with it).
func (o *fastRef) anchored(rel string, trail bool) bool {
	switch {
	case rel == o.relPrefix:
		return true
	case !trail:
		return false
	case o.relPrefix == "":
		return true
	}
	return len(rel) > len(o.relPrefix) && rel[len(o.relPrefix)] == '/' && strings.HasPrefix(rel, o.relPrefix)
}

// given names the pattern fastIndex returned.
func (rx *rootExcluder) given(k int) string {
	if k < len(rx.ex.names) {
		return rx.ex.names[k].given
	}
	return rx.ex.fast.abs[k-len(rx.ex.names)].given
}

// slowHit matches the absolute patterns without a fast form (rx.abs holds
// them) against the entry's absolute path, in both spellings of the root,
// with doublestar. The path is written into a buffer on the stack
// (doublestar does not keep it), so that only paths too long for it cost an
// allocation.
func (rx *rootExcluder) slowHit(rel string) *absPattern {
	var buf [512]byte
	for i := range rx.abs {
		a := &rx.abs[i]
		if !a.mayMatch(rel) || len(a.tail) <= len(rel) && !strings.HasSuffix(rel, a.tail) {
			continue
		}
		full := buf[:0]
		if a.root != "/" {
			full = append(full, a.root...)
		}
		full = append(full, '/')
		full = append(full, rel...)
		if doublestar.MatchUnvalidated(a.pat, unsafe.String(unsafe.SliceData(full), len(full))) {
			return a.absPattern
		}
	}
	return nil
}

// slowPruned is pruned for the absolute patterns without a fast form: their
// root-relative suffixes (see suffixStates) matched against rel.
func (rx *rootExcluder) slowPruned(rel string) bool { return suffixHit(rx.abs, rel) }

// suffixHit reports whether one of the root-relative suffixes of the
// patterns abs matches rel.
func suffixHit(abs []activeAbs, rel string) bool {
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	for i := range abs {
		a := &abs[i]
		if !a.mayMatch(rel) {
			continue
		}
		for k := range a.names {
			if a.names[k].match(name) {
				return true
			}
		}
		for _, g := range a.globs {
			if doublestar.MatchUnvalidated(g, rel) {
				return true
			}
		}
	}
	return false
}

// fastRef is a fast absolute pattern (an index into fastExcluder.abs) bound
// to one spelling of the root (an index into rootExcluder.spaces). For a
// pattern without lead, which mayMatchBelow has compared with the root,
// relPrefix is the rest of its literal segments, joined by "/".
type fastRef struct {
	k, space  int
	relPrefix string
}

// mayMatchBelow reports whether f may match a path below the root whose
// components are given: false only when it cannot, because a pattern
// anchored at "/" (no lead) disagrees with the root's components, or has
// no segments left for an entry.
func (f *fastAbs) mayMatchBelow(root []string) bool {
	if f.lead {
		return true
	}
	for i := 0; i < len(root) && i < len(f.lits); i++ {
		if root[i] != f.lits[i] {
			return false
		}
	}
	return f.trail || len(root) < len(f.lits)
}
