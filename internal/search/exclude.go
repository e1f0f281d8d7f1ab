package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/toolscope/toolscope/internal/walk"
)

// This file implements [GrepOptions.Exclude] and [GlobOptions.Exclude]. A list
// is compiled into an excluder once (excluderCache keeps the last few), then,
// for each call, bound to the searched path by forPath, which refuses an
// excluded path outright and prepares three things for the search below it:
//
//   - pruned, the per-entry test that prunes the walk of the Go engine and
//     of Glob (ancestors have been pruned already, so only the entry itself
//     is tested);
//   - rgGlobs, the absolute patterns made relative to the root, as ripgrep
//     --glob flags;
//   - relHit and fileHit, the full test of one output path (every directory
//     on the way, and the target of a symbolic link) by entryHit, which
//     filters what the engines print: defence in depth should the walk or
//     the translation for rg be wrong.
//
// entryHit answers what doublestar answers on the absolute path. Most
// patterns (literal base names, "/**/.config/gh", "/home/u/p/secrets/**")
// have a fast form that compares path components instead (exclfast.go);
// for the others it runs doublestar, and pruned matches their suffixes
// relative to the root.

// BadExcludeError reports an Exclude pattern that cannot be used. The search
// does not run: a deny rule that silently matched nothing would expose what
// it was meant to hide.
type BadExcludeError struct {
	Pattern string
	Reason  string
}

func (e *BadExcludeError) Error() string {
	return fmt.Sprintf("invalid exclude pattern %q: %s", e.Pattern, e.Reason)
}

// Unwrap makes every BadExcludeError match [doublestar.ErrBadPattern].
func (e *BadExcludeError) Unwrap() error { return doublestar.ErrBadPattern }

// ExcludedError reports that the path given to [Grep] or [Glob] is itself
// excluded by an Exclude pattern. [Grep] returns it inside a [ToolError].
type ExcludedError struct {
	Path     string // the path asked for, absolute
	Resolved string // Path with symbolic links resolved, when it was the resolved path that matched
	Matched  string // what matched: Path or Resolved, or a directory above it
	Pattern  string // the Exclude pattern that matched
}

// Error says which path matched which pattern, for the model to read:
//
//	/p/.env is excluded by a deny rule: it matches the pattern ".env"
//	/p/secrets/a.txt is excluded by a deny rule: the directory /p/secrets matches the pattern "/p/secrets/**"
//	/p/link is excluded by a deny rule: it resolves to /p/.env, which matches the pattern ".env"
func (e *ExcludedError) Error() string {
	var what string
	switch {
	case e.Resolved == "" && e.Matched == e.Path:
		what = "it matches"
	case e.Resolved == "":
		what = "the directory " + e.Matched + " matches"
	case e.Matched == e.Resolved:
		what = "it resolves to " + e.Resolved + ", which matches"
	default:
		what = "it resolves to " + e.Resolved + ", and the directory " + e.Matched + " matches"
	}
	return fmt.Sprintf("%s is excluded by a deny rule: %s the pattern %q", e.Path, what, e.Pattern)
}

// excluder is a compiled Exclude list.
type excluder struct {
	names []namePattern
	abs   []absPattern
	// The same patterns filed for the fast path (exclfast.go), by
	// compileFast, once: see fastPart.
	fast     fastExcluder
	fastOnce sync.Once
	// fold are the ExcludeFold patterns, lower-cased, matched against
	// lower-cased paths (nil when there are none). Its own fold is nil.
	// merged holds both lists, the fold's lower-cased: on a path without
	// upper-case letters, below a root without any, it answers for both
	// in one pass (the usual case: two passes cost twice one).
	fold, merged *excluder

	// roots caches forPath's verdicts by the root's two spellings: a
	// session searches the same few directories again and again, and
	// testing a root's every ancestor against every absolute pattern with
	// doublestar costs more than listing a small directory.
	rootsMu sync.Mutex
	roots   map[rootKey]boundRoot
}

// rootKey is a root as forPath sees it: absolute, and with symbolic links
// resolved (which forPath does again on every call, so a link changed
// since gives another key).
type rootKey struct{ abs, real string }

// boundRoot is forPath's verdict on a root: the root's excluder, whose
// per-walk state (dirs, lastDir, lastHit) is empty and is never used
// itself, only copied; or why the root is excluded.
type boundRoot struct {
	rx  *rootExcluder
	err *ExcludedError
}

// maxCachedRoots bounds excluder.roots; when full, it starts over.
const maxCachedRoots = 64

// namePattern is a pattern without a slash, matched against base names.
type namePattern struct {
	given string // as given, for messages
	pat   string // as matched: stars collapsed
	kind  nameKind
	lit   string // nameLiteral: the name; nameSuffix, namePrefix: the fixed part
}

type nameKind uint8

const (
	nameGlob    nameKind = iota // anything else: doublestar
	nameLiteral                 // "id_rsa"
	nameSuffix                  // "*.pem"
	namePrefix                  // "id_rsa*"
)

func (p *namePattern) match(name string) bool {
	switch p.kind {
	case nameLiteral:
		return name == p.lit
	case nameSuffix:
		return strings.HasSuffix(name, p.lit)
	case namePrefix:
		return strings.HasPrefix(name, p.lit)
	}
	return doublestar.MatchUnvalidated(p.pat, name)
}

// absPattern is a pattern starting with "/", matched against absolute paths.
type absPattern struct {
	given string     // as given, for messages
	pat   string     // as matched: stars collapsed, a trailing slash dropped
	base  string     // the literal directory the pattern starts with ("/" when none): nothing outside it can match
	alts  [][]string // the segments of each alternative, braces expanded (doublestar reads "{*}*" as "**")
	tail  string     // the literal text the pattern ends with: every path it matches ends so too
}

// maxAlternatives bounds the expansion of a pattern's braces: rg gets one
// glob per alternative (see rgSafe).
const maxAlternatives = 256

// compileExclude checks and compiles an Exclude list; see [GrepOptions.Exclude].
func compileExclude(patterns []string) (*excluder, error) {
	ex := &excluder{}
	for _, p := range patterns {
		bad := func(reason string) error { return &BadExcludeError{Pattern: p, Reason: reason} }
		if p == "" {
			return nil, bad("the pattern is empty")
		}
		if !utf8.ValidString(p) {
			return nil, bad("the pattern is not valid UTF-8")
		}
		if !doublestar.ValidatePattern(p) {
			return nil, bad("not a valid glob (check for an unclosed [ or {, or a trailing backslash)")
		}
		if _, ok := expandBraces(p, maxAlternatives); !ok {
			return nil, bad(fmt.Sprintf("its braces expand to more than %d alternatives", maxAlternatives))
		}
		// Matching segment by segment (see suffixStates) needs every "/"
		// to separate segments.
		if reason := oddSlash(p); reason != "" {
			return nil, bad(reason)
		}
		norm := collapseStars(p)
		if !strings.HasPrefix(p, "/") {
			if strings.Contains(p, "/") {
				return nil, bad(`a relative pattern cannot hold "/": give a base name (like ".env") or an absolute pattern (like "/home/me/project/secrets/**")`)
			}
			ex.names = append(ex.names, newNamePattern(p, norm))
			continue
		}
		pat := norm
		if len(pat) > 1 {
			pat = strings.TrimRight(pat, "/") // "/a/b/" means "/a/b"
			if pat == "" {
				pat = "/"
			}
		}
		if path.Clean(pat) != pat {
			return nil, bad(`an absolute pattern must be a clean path, without "//", "." or ".." segments`)
		}
		a := absPattern{given: p, pat: pat, base: "/", tail: literalTail(pat)}
		if b, _ := doublestar.SplitPattern(pat); strings.HasPrefix(b, "/") {
			a.base = b
		}
		alts, _ := expandBraces(pat, maxAlternatives)
		for _, alt := range alts {
			alt = collapseStars(alt)
			var segs []string
			if alt != "/" {
				segs = strings.Split(alt[1:], "/")
			}
			// "/a/{,}/b" gives "/a//b", which matches no clean path.
			if !slices.ContainsFunc(segs, func(s string) bool { return s == "" || s == "." || s == ".." }) {
				a.alts = append(a.alts, segs)
			}
		}
		ex.abs = append(ex.abs, a)
	}
	ex.fastPart()
	return ex, nil
}

// excluderCache holds the excluders of the last few Exclude lists: a
// session sends the same list (its secret policy and deny rules) with
// every call, and compiling it costs more than a small search. An excluder
// is not changed once compiled, so calls share it. The lists are filed by
// a hash of their patterns and compared in full: looking one up allocates
// nothing.
var excluderCache struct {
	sync.Mutex
	m map[uint64][]cachedExcluder
	n int
}

type cachedExcluder struct {
	patterns, fold []string
	ex             *excluder
}

// maxCachedExcluders bounds excluderCache; when full, it starts over.
const maxCachedExcluders = 16

// compileExcludes compiles an Exclude and an ExcludeFold list into one
// excluder, nil when both are empty. The ExcludeFold patterns are compiled
// lower-cased (as strings.ToLower folds them) into the excluder's fold,
// which is given lower-cased paths: a path matches one of them when its
// lower-case form matches the pattern's.
func compileExcludes(patterns, fold []string) (*excluder, error) {
	if len(patterns) == 0 && len(fold) == 0 {
		return nil, nil
	}
	return compileExcludeCached(patterns, fold)
}

// compileExcludeCached is compileExclude with excluderCache, for an
// Exclude and an ExcludeFold list.
func compileExcludeCached(patterns, fold []string) (*excluder, error) {
	k := patternsHash(patterns)*31 + patternsHash(fold)
	excluderCache.Lock()
	for _, c := range excluderCache.m[k] {
		if slices.Equal(c.patterns, patterns) && slices.Equal(c.fold, fold) {
			excluderCache.Unlock()
			return c.ex, nil
		}
	}
	excluderCache.Unlock()
	ex, err := compileExclude(patterns)
	if err != nil {
		return nil, err
	}
	if len(fold) > 0 {
		lower := make([]string, len(fold))
		for i, p := range fold {
			lower[i] = strings.ToLower(p)
		}
		if ex.fold, err = compileExclude(lower); err != nil {
			var be *BadExcludeError
			if errors.As(err, &be) {
				be.Pattern = fold[slices.Index(lower, be.Pattern)]
			}
			return nil, err
		}
		ex.merged = ex.fold
		if len(patterns) > 0 {
			if ex.merged, err = compileExclude(append(slices.Clip(patterns), lower...)); err != nil {
				return nil, err
			}
		}
	}
	excluderCache.Lock()
	if excluderCache.m == nil || excluderCache.n >= maxCachedExcluders {
		excluderCache.m, excluderCache.n = map[uint64][]cachedExcluder{}, 0
	}
	excluderCache.m[k] = append(excluderCache.m[k], cachedExcluder{slices.Clone(patterns), slices.Clone(fold), ex})
	excluderCache.n++
	excluderCache.Unlock()
	return ex, nil
}

// patternsHash is the FNV-1a hash of the patterns, each with its length.
func patternsHash(patterns []string) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for _, p := range patterns {
		h = (h ^ uint64(len(p))) * prime
		for i := 0; i < len(p); i++ {
			h = (h ^ uint64(p[i])) * prime
		}
	}
	return h
}

// literalTail returns the text after the last special character of p.
func literalTail(p string) string {
	tail := p[strings.LastIndexAny(p, `*?[]{}\`)+1:]
	if strings.ContainsRune(tail, utf8.RuneError) {
		return "" // doublestar matches U+FFFD with any byte that is not UTF-8
	}
	return tail
}

// newNamePattern compiles a base-name pattern, given as given and with
// its stars collapsed as p.
func newNamePattern(given, p string) namePattern {
	const meta = `*?[{\`
	n := namePattern{given: given, pat: p}
	switch {
	case strings.ContainsRune(p, utf8.RuneError):
		// doublestar decodes names rune by rune: U+FFFD in a pattern
		// matches any byte that is not UTF-8, which byte comparison would not.
	case !strings.ContainsAny(p, meta):
		n.kind, n.lit = nameLiteral, p
	case p[0] == '*' && !strings.ContainsAny(p[1:], meta):
		n.kind, n.lit = nameSuffix, p[1:]
	case p[len(p)-1] == '*' && !strings.ContainsAny(p[:len(p)-1], meta):
		n.kind, n.lit = namePrefix, p[:len(p)-1]
	}
	return n
}

// collapseStars writes every run of three or more "*" as one. doublestar
// gives "***" the meaning of "*" in most places but not all ("p***" does
// not match "p", "p***/b" matches "p/b"), and the matching segment by
// segment (suffixStates) must agree with matching the whole path.
func collapseStars(p string) string {
	if !strings.Contains(p, "***") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			b.WriteString(p[i:min(i+2, len(p))])
			i++
			continue
		case '[':
			end := classEnd(p, i)
			b.WriteString(p[i:end])
			i = end - 1
			continue
		case '*':
			j := i
			for j < len(p) && p[j] == '*' {
				j++
			}
			if j-i >= 3 {
				b.WriteByte('*')
			} else {
				b.WriteString(p[i:j])
			}
			i = j - 1
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// oddSlash reports a "/" that does not separate segments: one inside a
// character class or braces, or escaped.
func oddSlash(p string) string {
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 < len(p) && p[i+1] == '/' {
				return `a "/" cannot be escaped`
			}
			i++
		case '[':
			end := classEnd(p, i)
			if strings.Contains(p[i:end], "/") {
				return `a character class cannot hold "/"`
			}
			i = end - 1
		case '{':
			depth++
		case '}':
			depth--
		case '/':
			if depth > 0 {
				return `braces cannot hold "/": give one pattern per alternative`
			}
		}
	}
	return ""
}

// classEnd returns the index just past the character class that starts at
// p[i] == '['. An unclosed class (invalid) ends the string.
func classEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && (p[j] == '!' || p[j] == '^') {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++
		case ']':
			return j + 1
		}
	}
	return len(p)
}

// expandBraces rewrites p as a list of patterns without braces. It reports
// false when that would take more than limit patterns.
func expandBraces(p string, limit int) ([]string, bool) {
	open, end, alts := firstBraces(p)
	if open < 0 {
		return []string{p}, true
	}
	var out []string
	for _, alt := range alts {
		more, ok := expandBraces(p[:open]+alt+p[end:], limit-len(out))
		if !ok || len(out)+len(more) > limit {
			return nil, false
		}
		out = append(out, more...)
	}
	return out, true
}

// firstBraces finds the first top-level "{...}" of p (escapes and character
// classes honoured) and returns where it starts, the index just past it, and
// its alternatives; open is -1 when p has no braces.
func firstBraces(p string) (open, end int, alts []string) {
	open, depth, start := -1, 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			i = classEnd(p, i) - 1
		case '{':
			if depth == 0 {
				open, start = i, i+1
			}
			depth++
		case ',':
			if depth == 1 {
				alts = append(alts, p[start:i])
				start = i + 1
			}
		case '}':
			depth--
			if depth == 0 {
				return open, i + 1, append(alts, p[start:i])
			}
		}
	}
	return -1, 0, nil
}

// hit names the pattern that excluded a path and what it matched.
type hit struct {
	pattern string
	matched string // the path (or directory above it) that matched
}

// pathHit tests an absolute, clean path and every directory above it.
func (ex *excluder) pathHit(p string) *hit {
	if ex == nil {
		return nil
	}
	for _, a := range ex.abs {
		if doublestar.MatchUnvalidated(a.pat, "/") {
			return &hit{pattern: a.given, matched: "/"}
		}
	}
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != filepath.Separator {
			continue
		}
		prefix := p[:i]
		name := prefix[strings.LastIndexByte(prefix, filepath.Separator)+1:]
		if name == "" {
			continue
		}
		for k := range ex.names {
			if ex.names[k].match(name) {
				return &hit{pattern: ex.names[k].given, matched: prefix}
			}
		}
		for _, a := range ex.abs {
			if doublestar.MatchUnvalidated(a.pat, filepath.ToSlash(prefix)) {
				return &hit{pattern: a.given, matched: prefix}
			}
		}
	}
	return nil
}

// rootExcluder is an excluder bound to the searched directory. Only relHit
// and fileHit keep state; the rest may be used concurrently.
type rootExcluder struct {
	ex       *excluder
	root     string     // the searched path, absolute and clean
	realRoot string     // root with symbolic links resolved
	spaces   [][]string // the components of root and, when it differs, realRoot
	// fastOther are the fast absolute patterns not filed by name
	// (fastExcluder.other) that may match below one of the spaces.
	fastOther  []fastRef
	unanchored bool            // some of them start with "**"
	abs        []activeAbs     // the absolute patterns without a fast form, made relative
	dirs       map[string]*hit // relHit's verdicts on directories, nil for none
	lastDir    string          // the directory of relHit's last path, and its verdict
	lastHit    *hit
	// fold is the excluder's fold bound to the root lower-cased, given
	// lower-cased paths (nil when there is none); merged is its merged
	// bound to the root, when the root has no upper-case letter in either
	// spelling: it answers for paths that have none either.
	fold, merged *rootExcluder
}

// activeAbs is an absolute pattern that may match below one of the root's
// two spellings.
type activeAbs struct {
	*absPattern
	root    string // root or realRoot
	relBase string // entries neither equal to it nor below it cannot match; "" means any entry may

	// The pattern relative to the root, for pruning: a path below the root
	// matches when one of these matches it (suffixStates).
	names []namePattern // "**/name": the base name matches
	globs []string      // other suffixes: doublestar on the relative path
}

// forPath binds ex to the path to be searched. It returns an
// [*ExcludedError] when that path, a directory above it, or (for a symbolic
// link) what it resolves to is excluded.
func (ex *excluder) forPath(p string) (*rootExcluder, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs // a missing path: the search reports it
	}
	k := rootKey{abs, real}
	ex.rootsMu.Lock()
	b, ok := ex.roots[k]
	ex.rootsMu.Unlock()
	if !ok {
		b = ex.check(abs, real)
		ex.rootsMu.Lock()
		if ex.roots == nil || len(ex.roots) >= maxCachedRoots {
			ex.roots = map[rootKey]boundRoot{}
		}
		ex.roots[k] = b
		ex.rootsMu.Unlock()
	}
	if b.err != nil {
		e := *b.err
		return nil, &e
	}
	return b.rx.fresh(), nil
}

// fresh returns a copy of rx (what bind made, which is only read) with
// the per-walk state empty, its fold's and merged's too.
func (rx *rootExcluder) fresh() *rootExcluder {
	if rx == nil {
		return nil
	}
	c := *rx
	c.dirs = map[string]*hit{}
	c.fold, c.merged = rx.fold.fresh(), rx.merged.fresh()
	return &c
}

// check is forPath's verdict on a root spelled abs and, with symbolic links
// resolved, real.
func (ex *excluder) check(abs, real string) boundRoot {
	if h := ex.pathHit(abs); h != nil {
		return boundRoot{err: &ExcludedError{Path: abs, Matched: h.matched, Pattern: h.pattern}}
	}
	if h := ex.pathHit(real); h != nil {
		return boundRoot{err: &ExcludedError{Path: abs, Resolved: real, Matched: h.matched, Pattern: h.pattern}}
	}
	rx := ex.bind(abs, real)
	if ex.fold != nil {
		labs, lreal := strings.ToLower(abs), strings.ToLower(real)
		if h := ex.fold.pathHit(labs); h != nil {
			return boundRoot{err: &ExcludedError{Path: abs, Matched: unfold(abs, h.matched), Pattern: h.pattern}}
		}
		if h := ex.fold.pathHit(lreal); h != nil {
			return boundRoot{err: &ExcludedError{Path: abs, Resolved: real, Matched: unfold(real, h.matched), Pattern: h.pattern}}
		}
		rx.fold = ex.fold.bind(labs, lreal)
		if labs == abs && lreal == real {
			rx.merged = ex.merged.bind(abs, real)
		}
	}
	return boundRoot{rx: rx}
}

// single returns the rootExcluder that answers for rel alone (merged,
// when rel and the root have no upper-case letter), or nil: then rx
// answers for rel and fold for its lower-case form.
func (rx *rootExcluder) single(rel string) *rootExcluder {
	if rx.merged != nil && lowerPath(rel) == rel {
		return rx.merged
	}
	return nil
}

// unfold returns the prefix of p that the prefix lower of its lower-cased
// form spells (lower itself when lower-casing changed the length).
func unfold(p, lower string) string {
	if len(strings.ToLower(p)) == len(p) && len(lower) <= len(p) {
		return p[:len(lower)]
	}
	return lower
}

// lowerPath is p lower-cased as strings.ToLower does it, without copying
// a path that has no upper-case letter (most).
func lowerPath(p string) string {
	i := 0
	// Eight bytes at a time: a byte at or above 0x80, or one from 'A'
	// (0x41) to 'Z' (0x5A), sets its high bit in w | (w+0x3F) &^ (w+0x25)
	// (no carry crosses a byte once no high bit is set).
	const hi, lo, past = 0x8080808080808080, 0x3F3F3F3F3F3F3F3F, 0x2525252525252525
	for ; i+8 <= len(p); i += 8 {
		w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(p[i:]), 8))
		if w&hi != 0 || (w+lo)&^(w+past)&hi != 0 {
			return strings.ToLower(p)
		}
	}
	for ; i < len(p); i++ {
		if c := p[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return strings.ToLower(p)
		}
	}
	return p
}

// bind makes the rootExcluder for a root already checked, spelled abs and,
// with symbolic links resolved, real.
func (ex *excluder) bind(abs, real string) *rootExcluder {
	rx := &rootExcluder{ex: ex, root: abs, realRoot: real, dirs: map[string]*hit{}}
	spaces := []string{abs}
	if real != abs {
		spaces = append(spaces, real)
	}
	for _, r := range spaces {
		rx.spaces = append(rx.spaces, rootSegments(filepath.ToSlash(r)))
	}
	fx := ex.fastPart()
	for _, k := range fx.other {
		for s, root := range rx.spaces {
			f := &fx.abs[k]
			if !f.mayMatchBelow(root) {
				continue
			}
			ref := fastRef{k: k, space: s}
			if f.lead {
				rx.unanchored = true
			} else if len(root) < len(f.lits) {
				ref.relPrefix = strings.Join(f.lits[len(root):], "/")
			}
			rx.fastOther = append(rx.fastOther, ref)
		}
	}
	for _, i := range fx.slow {
		for _, r := range spaces {
			if act, ok := activate(&ex.abs[i], filepath.ToSlash(r)); ok {
				rx.abs = append(rx.abs, act)
			}
		}
	}
	return rx
}

// activate relates the absolute pattern a to the root r (slash-separated):
// its suffixes below r, or false when it cannot match below r.
func activate(a *absPattern, r string) (activeAbs, bool) {
	rel, ok := relBase(r, a.base)
	if !ok {
		return activeAbs{}, false
	}
	act := activeAbs{absPattern: a, root: r, relBase: rel}
	for _, suffix := range a.suffixes(rootSegments(r)) {
		if name, ok := strings.CutPrefix(suffix, "**/"); ok && name != "**" && !strings.Contains(name, "/") {
			act.names = append(act.names, newNamePattern(name, name))
		} else {
			act.globs = append(act.globs, suffix)
		}
	}
	return act, true
}

// rootSegments splits an absolute slash-separated path into its segments.
func rootSegments(r string) []string {
	if r == "/" {
		return nil
	}
	return strings.Split(r[1:], "/")
}

// suffixes returns the pattern relative to a root, given as its segments:
// the globs that together match what the pattern matches below the root
// (see suffixStates).
func (a *absPattern) suffixes(root []string) []string {
	var out []string
	for _, segs := range a.alts {
		for _, s := range suffixStates(segs, root) {
			if suffix := strings.Join(segs[s:], "/"); !slices.Contains(out, suffix) {
				out = append(out, suffix)
			}
		}
	}
	return out
}

// relBase relates a pattern's literal base directory to the root: when the
// base lies below the root it returns the base relative to the root, when it
// is the root or above it "", and when it is neither, ok is false: the
// pattern cannot match anything below the root.
func relBase(root, base string) (rel string, ok bool) {
	switch {
	case base == root || base == "/" || strings.HasPrefix(root, base+"/"):
		return "", true
	case root == "/":
		return base[1:], true
	case strings.HasPrefix(base, root+"/"):
		return base[len(root)+1:], true
	}
	return "", false
}

// entryHit tests one entry below the root by itself (its name, and its full
// path against the absolute patterns); rel is slash-separated. Its answers
// are those of doublestar on the whole path, as [GrepOptions.Exclude] says:
// fastIndex compares components for most patterns, and slowHit runs
// doublestar for the others.
func (rx *rootExcluder) entryHit(rel string) *hit {
	if k, ok := rx.fastIndex(rel); ok {
		return &hit{pattern: rx.given(k), matched: rel}
	}
	if a := rx.slowHit(rel); a != nil {
		return &hit{pattern: a.given, matched: rel}
	}
	return nil
}

// mayMatch is false when rel lies outside the pattern's literal base.
func (a *activeAbs) mayMatch(rel string) bool {
	return a.relBase == "" || rel == a.relBase || strings.HasPrefix(rel, a.relBase) && rel[len(a.relBase)] == '/'
}

// pruned is entryHit for the walk, which asks it about every entry. The
// patterns with a fast form are tested as entryHit tests them; the others
// are matched relative to the root (their suffixes), which is cheaper than
// building the absolute path. Its answers are entryHit's, except that
// suffixes of patterns with braces may exclude more (FuzzExcludePattern);
// the output filters use entryHit all the same.
func (rx *rootExcluder) pruned(rel string) bool {
	if m := rx.single(rel); m != nil {
		return m.pruned(rel)
	}
	if !rx.ex.empty() {
		if _, ok := rx.fastIndex(rel); ok || rx.slowPruned(rel) {
			return true
		}
	}
	return rx.fold != nil && rx.fold.pruned(lowerPath(rel))
}

// empty reports an excluder without patterns of its own (its fold may
// have some): only ExcludeFold was given.
func (ex *excluder) empty() bool { return len(ex.names) == 0 && len(ex.abs) == 0 }

// override is pruned as a walk override: excluded entries, and so
// everything below an excluded directory, are skipped; other entries are
// left to next (which may be nil).
func (rx *rootExcluder) override(next func(string, bool) walk.Match) func(string, bool) walk.Match {
	return func(rel string, isDir bool) walk.Match {
		if rx.pruned(rel) {
			return walk.Ignore
		}
		if next == nil {
			return walk.None
		}
		return next(rel, isDir)
	}
}

// relHit tests an output path below the root and every directory between
// them. Verdicts on directories are cached, and since files come grouped by
// directory, so is the last directory's.
func (rx *rootExcluder) relHit(rel string) *hit {
	if m := rx.single(rel); m != nil {
		return m.relHit(rel)
	}
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir := rel[:i]
		if dir != rx.lastDir || rx.lastDir == "" {
			rx.lastDir, rx.lastHit = dir, rx.dirHit(dir)
		}
		if rx.lastHit != nil {
			return rx.lastHit
		}
	}
	if h := rx.entryHit(rel); h != nil {
		return h
	}
	if rx.fold != nil {
		if h := rx.fold.relHit(lowerPath(rel)); h != nil {
			return &hit{pattern: h.pattern, matched: unfold(rel, h.matched)}
		}
	}
	return nil
}

// dirHit tests a directory below the root and those above it, with a cache.
func (rx *rootExcluder) dirHit(dir string) *hit {
	for i := 0; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		d := dir[:i]
		h, ok := rx.dirs[d]
		if !ok {
			h = rx.entryHit(d)
			rx.dirs[d] = h
		}
		if h != nil {
			return h
		}
	}
	return nil
}

// fileHit tests a file yielded by the walk: its path, and for a symbolic
// link also the file it resolves to, in both the real and the root's
// spelling (so that an absolute pattern written either way catches it).
func (rx *rootExcluder) fileHit(rel, target string) *hit {
	if h := rx.relHit(rel); h != nil {
		return h
	}
	if target == "" {
		return nil
	}
	return rx.targetHit(target)
}

// targetHit tests the resolved target of a symbolic link found in the walk.
func (rx *rootExcluder) targetHit(target string) *hit {
	if m := rx.single(target); m != nil {
		return m.targetHit(target)
	}
	if h := rx.ex.pathHit(target); h != nil {
		return h
	}
	if rx.realRoot != rx.root {
		if rel, err := filepath.Rel(rx.realRoot, target); err == nil && filepath.IsLocal(rel) {
			if h := rx.ex.pathHit(filepath.Join(rx.root, rel)); h != nil {
				return h
			}
		}
	}
	if rx.fold != nil {
		return rx.fold.targetHit(lowerPath(target))
	}
	return nil
}

// rgGlobs translates the exclusions into ripgrep --glob values, each
// starting with "!", for a search run on "." in the root. A base-name
// pattern p becomes "!p": a glob without "/" matches a name at any depth, and
// an ignored directory is not entered. An absolute pattern is related to the
// root (and to its real path, which may differ) by matching the root's
// segments against the pattern's leading segments; every way that can end
// leaves a suffix of the pattern, which becomes the anchored glob "!/suffix".
// Braces are expanded (rg's own handling of them differs from doublestar's),
// and a trailing space or tab is written as a class so that rg does not trim
// it. A pattern that cannot match below the root gives no glob.
func (rx *rootExcluder) rgGlobs() []string {
	var out []string
	add := func(g string) {
		for _, e := range rgSafe(g) {
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	for _, n := range rx.ex.names {
		add(n.pat)
	}
	spaces := [][]string{rootSegments(filepath.ToSlash(rx.root))}
	if rx.realRoot != rx.root {
		spaces = append(spaces, rootSegments(filepath.ToSlash(rx.realRoot)))
	}
	for i := range rx.ex.abs {
		for _, rs := range spaces {
			for _, suffix := range rx.ex.abs[i].suffixes(rs) {
				add("/" + suffix)
			}
		}
	}
	return out
}

// suffixStates matches the segments of a root against the leading segments
// of a pattern and returns where the pattern can stand afterwards: for each
// state s, paths below the root that segs[s:] matches are the ones the whole
// pattern matches. A "**" segment matches any number of root segments. The
// state that consumed the whole pattern (the root itself matches) and states
// made redundant by a "**" state before them are left out.
func suffixStates(segs, root []string) []int {
	closure := func(states []int) []int {
		for i := 0; i < len(states); i++ {
			if s := states[i]; s < len(segs) && segs[s] == "**" && !slices.Contains(states, s+1) {
				states = append(states, s+1)
			}
		}
		return states
	}
	cur := closure([]int{0})
	for _, name := range root {
		var next []int
		for _, s := range cur {
			switch {
			case s == len(segs):
			case segs[s] == "**":
				if !slices.Contains(next, s) {
					next = append(next, s)
				}
			case doublestar.MatchUnvalidated(segs[s], name):
				if !slices.Contains(next, s+1) {
					next = append(next, s+1)
				}
			}
		}
		if cur = closure(next); len(cur) == 0 {
			return nil
		}
	}
	var out []int
	for _, s := range cur {
		if s == len(segs) || s > 0 && segs[s-1] == "**" && slices.Contains(cur, s-1) {
			continue
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// rgSafe returns the "!"-prefixed rg globs for the doublestar glob g (a base
// name, or a root-relative path starting with "/"). Braces are expanded,
// one glob per alternative: rg's globs reject nested braces and ignore an
// empty alternative ("{a,}b" would not match "b"). compileExclude has
// bounded the expansion.
func rgSafe(g string) []string {
	globs, _ := expandBraces(g, maxAlternatives)
	for i, g := range globs {
		globs[i] = "!" + protectTrailingSpace(collapseStars(g))
	}
	return globs
}

// protectTrailingSpace writes a trailing white-space character c as the
// class [c]: rg trims trailing white space from globs as git does from
// .gitignore lines.
func protectTrailingSpace(g string) string {
	r, n := utf8.DecodeLastRuneInString(g)
	if !unicode.IsSpace(r) {
		return g
	}
	rest := g[:len(g)-n]
	if bs := len(rest) - len(strings.TrimRight(rest, `\`)); bs%2 == 1 {
		rest = rest[:len(rest)-1] // the character was escaped
	}
	return rest + "[" + string(r) + "]"
}
