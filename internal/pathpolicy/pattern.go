package pathpolicy

import (
	"slices"
	"strings"

	"github.com/toolscope/toolscope/internal/bashglob"
)

// Bounds of [Policy.Pattern]'s expansion.
const (
	maxGlobEntries = 10000
	maxGlobMatches = 1000
)

// PatternInfo is what the policy knows of a bash glob pattern.
type PatternInfo struct {
	// Base is the literal directory before the first component with a
	// glob character, classified.
	Base Path
	// Matches are the paths the pattern expands to now, classified. Empty
	// when nothing matches (bash then passes the word on unchanged).
	Matches []Path
	// Secret and Protected report that some path the pattern matches now,
	// or could match (a component such as .ss[!x] or .e* can match a secret
	// name whether or not it exists yet), is secret or protected.
	Secret, Protected bool
	// Escapes reports a component that can match "." or ".." (.* in
	// shells before bash 5.2, and in dash): the pattern may climb out of its
	// base directory.
	Escapes bool
	// Err is why the pattern could not be expanded (too many entries, a
	// construct whose meaning is not certain); callers fail closed.
	Err error
}

// ReadOK reports whether a read-only command may read every path the
// pattern matches without asking.
func (x PatternInfo) ReadOK() bool {
	if x.Err != nil || x.Secret || x.Escapes || !x.Base.ReadOK() {
		return false
	}
	for _, m := range x.Matches {
		if !m.ReadOK() {
			return false
		}
	}
	return true
}

// Inside reports whether every path the pattern matches, or would create
// when nothing matches, lies in a working directory.
func (x PatternInfo) Inside() bool {
	if x.Err != nil || x.Escapes || x.Base.Inside == "" {
		return false
	}
	for _, m := range x.Matches {
		if m.Inside == "" {
			return false
		}
	}
	return true
}

// Pattern judges the absolute bash glob pattern pat, in which quoted
// characters are escaped with a backslash ([bashglob]'s form).
func (p *Policy) Pattern(pat string) PatternInfo {
	var x PatternInfo
	var buf [16]pcomp
	comps := pcompsInto(buf[:0], splitPattern(pat))
	base := "/"
	i := 0
	for ; i < len(comps) && !comps[i].meta; i++ {
		base = join(base, comps[i].lit)
	}
	x.Base = p.Classify(base)
	fold := &bashglob.Options{FoldCase: true}
	dots := &bashglob.Options{FoldCase: true, DotEntries: true}
	for _, c := range comps[i:] {
		if c.meta && (c.g.Match("..", dots) || c.g.Match(".", dots)) {
			x.Escapes = true
		}
	}
	x.Secret = x.Base.Secret || p.couldSecret(comps, fold)
	x.Protected = x.Secret || x.Base.Protected || p.couldProtected(comps, fold)
	if x.Secret && x.Protected {
		// What it could match is already the worst answer: no need to look.
		return x
	}
	if err := bashglob.Unsupported(pat); err != nil {
		x.Err = err
		x.Secret, x.Protected = true, true // it may match anything
		return x
	}
	matches, err := p.Expand(pat, maxGlobEntries, maxGlobMatches)
	if err != nil {
		x.Err = err
		return x
	}
	for _, m := range matches {
		c := p.Classify(m)
		x.Matches = append(x.Matches, c)
		x.Secret = x.Secret || c.Secret
		x.Protected = x.Protected || c.Protected
	}
	return x
}

// Expand is bashglob.Expand of the absolute pattern pat with strict errors
// and the given bounds, through the policy's cache of directory listings:
// the patterns of one command line read each directory once.
func (p *Policy) Expand(pat string, maxEntries, maxResults int) ([]string, error) {
	p.globMu.Lock()
	defer p.globMu.Unlock()
	return bashglob.Expand(pat, &bashglob.ExpandOptions{MaxEntries: maxEntries, MaxResults: maxResults, StrictErrors: true, Cache: &p.globs})
}

// splitPattern splits an absolute pattern into its components. A slash
// separates components even when escaped: no file name holds one.
func splitPattern(pat string) []string {
	var out []string
	for _, c := range strings.Split(pat, "/") {
		c = strings.TrimSuffix(c, `\`)
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// unescape removes a pattern's backslash escapes.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// pcomp is a component of a pattern, looked at once: as written, whether
// it is a glob, compiled (a glob) or unescaped (a literal). Each class name
// is tried against every glob component; compiling it once per pattern
// keeps that a matcher's run, not a cache lookup, per name.
type pcomp struct {
	s    string
	meta bool
	g    bashglob.Glob // a glob
	lit  string        // a literal, unescaped
}

func pcompsInto(out []pcomp, comps []string) []pcomp {
	out = slices.Grow(out[:0], len(comps))[:len(comps)]
	for i, c := range comps {
		out[i].s = c
		if strings.ContainsAny(c, "*?[") {
			out[i].g = bashglob.Compile(c)
			out[i].meta = out[i].g.HasMeta()
		}
		if !out[i].meta {
			out[i].lit = unescape(c)
		}
	}
	return out
}

// could reports whether the pattern component c can match name (lower
// case). A component that begins with a glob character is not taken to aim
// at a name without a leading dot (a bare * would otherwise "match" id_rsa
// everywhere); such names are caught by the expansion of what exists.
func could(c *pcomp, name string, o *bashglob.Options) bool {
	if !c.meta {
		return strings.EqualFold(c.lit, name)
	}
	return couldGlob(c, name, o)
}

// couldGlob is could for a component known to be a glob. (bashglob
// refuses a name without the component's literal start and end before
// decoding it: trying every class name is cheap.)
func couldGlob(c *pcomp, name string, o *bashglob.Options) bool {
	if name[0] != '.' && strings.IndexAny(c.s[:1], "*?[") == 0 {
		return false
	}
	return c.g.Match(name, o)
}

// couldPrefix reports whether c can match a name starting with prefix.
func couldPrefix(c *pcomp, prefix string, o *bashglob.Options) bool {
	if !c.meta {
		return strings.HasPrefix(strings.ToLower(c.lit), prefix)
	}
	if prefix[0] != '.' && strings.IndexAny(c.s[:1], "*?[") == 0 {
		return false
	}
	return c.g.MatchPrefix(prefix, o)
}

func (p *Policy) couldSecret(comps []pcomp, o *bashglob.Options) bool {
	for i := range comps {
		c := &comps[i]
		if !c.meta {
			continue // literal components were judged with the base and the matches
		}
		if couldGlob(c, ".env", o) {
			return true
		}
		for _, n := range secretDirs {
			if couldGlob(c, n, o) {
				return true
			}
		}
		for _, n := range secretFiles {
			if couldGlob(c, n, o) {
				return true
			}
		}
		for _, n := range secretPrefixes {
			if couldPrefix(c, n, o) {
				return true
			}
		}
		if dot := strings.LastIndexByte(c.s, '.'); dot >= 0 && !strings.Contains(c.s[dot:], "*") {
			for _, x := range secretSuffixes {
				if bashglob.Match(c.s[dot:], x, o) {
					return true // *.pem, key.p?2 (not *.*, which would be any file)
				}
			}
		}
		for _, seq := range secretSeqs {
			if seqCould(comps, i, seq, o) {
				return true
			}
		}
	}
	// Anchored secrets: /etc/shadow, /run/secrets, /proc/<pid>/environ.
	for _, rc := range secretRootComps {
		if anchoredCould(comps, rc, o) {
			return true
		}
	}
	if len(comps) >= 3 && could(&comps[0], "proc", o) && couldProcess(&comps[1], o) && hasMetaAny(comps[:3]) {
		for _, s := range procSecrets {
			if could(&comps[2], s, o) || comps[2].meta && comps[2].g.Match(s, o) {
				return true
			}
		}
	}
	return false
}

// couldProcess reports whether the component c of /proc/c can name a
// process: self, thread-self, or a number (/proc/*/environ reaches every
// process's environment, though * is not taken to aim at a name elsewhere).
func couldProcess(c *pcomp, o *bashglob.Options) bool {
	if !c.meta {
		u := c.lit
		return u == "self" || u == "thread-self" || u != "" && strings.Trim(u, "0123456789") == ""
	}
	if c.g.Match("self", o) || c.g.Match("thread-self", o) {
		return true
	}
	for d := '1'; d <= '9'; d++ {
		if c.g.MatchPrefix(string(d), o) {
			return true
		}
	}
	return false
}

// seqCould reports whether some window of comps that includes a glob
// component could match seq, with comps[i] somewhere in the window.
func seqCould(comps []pcomp, i int, seq []string, o *bashglob.Options) bool {
	for start := i - len(seq) + 1; start <= i; start++ {
		if start < 0 || start+len(seq) > len(comps) {
			continue
		}
		ok := true
		for j, s := range seq {
			if !could(&comps[start+j], s, o) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func anchoredCould(comps []pcomp, root []string, o *bashglob.Options) bool {
	if len(comps) < len(root) || !hasMetaAny(comps[:len(root)]) {
		return false
	}
	// Unlike could, a leading * counts here: /etc/* reaches /etc/shadow.
	for j, r := range root {
		c := &comps[j]
		if c.meta && !c.g.Match(r, o) || !c.meta && !strings.EqualFold(c.lit, r) {
			return false
		}
	}
	return true
}

func hasMetaAny(comps []pcomp) bool {
	for i := range comps {
		if comps[i].meta {
			return true
		}
	}
	return false
}

func (p *Policy) couldProtected(comps []pcomp, o *bashglob.Options) bool {
	if !hasMetaAny(comps) {
		return false
	}
	n := p.names
	for i := range comps {
		c := &comps[i]
		if !c.meta {
			continue
		}
		for _, d := range n.dirList {
			if couldGlob(c, d, o) {
				return true
			}
		}
		for _, seq := range n.dirSeqs {
			if seqCould(comps, i, seq, o) {
				return true
			}
		}
	}
	last := &comps[len(comps)-1]
	if n.envFam && (couldPrefix(last, ".env.", o) || couldPrefix(last, ".env-", o)) {
		return true
	}
	fileCould := func(f []string) bool {
		if len(f) > len(comps) {
			return false
		}
		k := len(comps) - len(f)
		if !hasMetaAny(comps[k:]) {
			return false
		}
		for j, name := range f {
			if c := &comps[k+j]; c.meta && !couldGlob(c, name, o) || !c.meta && !strings.EqualFold(c.lit, name) {
				return false
			}
		}
		return true
	}
	if !last.meta && isASCII(last.lit) {
		// A literal last component: only the entries of that name can
		// match it.
		for _, f := range n.files[strings.ToLower(last.lit)] {
			if fileCould(f) {
				return true
			}
		}
	} else {
		for _, f := range n.fileSeq {
			if fileCould(f) {
				return true
			}
		}
	}
	for _, g := range n.globs {
		k := len(comps) - 1 - len(g.parent)
		if k < 0 {
			continue
		}
		if !last.meta {
			// Only a glob in the last component aims at the member
			// (below); a literal one was judged by its name.
			continue
		}
		tail := comps[k:]
		ok := true
		for j, name := range g.parent {
			if !could(&tail[j], name, o) {
				ok = false
				break
			}
		}
		// A glob that spells the member's literal part and could match
		// its example name ("*.pth" and "x.pth"; a bare "*" aims at no
		// name, as in could).
		if ok && containsFold(last.s, g.lit) &&
			last.g.Match(globExample(g.glob), o) {
			return true
		}
	}
	return false
}

// globExample is a name the glob g matches: its wildcards replaced by "x".
func globExample(g string) string {
	return strings.NewReplacer("*", "x", "?", "x").Replace(g)
}

// containsFold reports whether s holds sub (lower case), ASCII letters of
// s in any case; a non-ASCII s is lowered first, as elsewhere.
func containsFold(s, sub string) bool {
	if !isASCII(s) {
		return strings.Contains(strings.ToLower(s), sub)
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		if hasFoldASCIIAt(s, i, sub) {
			return true
		}
	}
	return false
}
