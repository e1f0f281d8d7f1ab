// Package unquote turns the words of a parsed bash command into what the
// shell analyser judges: a [Word] holds the value bash would pass (quotes
// and escapes removed, $'...' decoded, brace expansions expanded, the
// values of loop variables the command itself bound substituted), its
// glob pattern with bash's quoting, and what the analyser must know of how
// it was written (a parameter expansion, a glob, a tilde, obscuring
// quotes, a substitution).
//
// It is separate from package shell because it is the lowest layer of the
// analysis: it knows the syntax of words and nothing of programs, paths
// or verdicts; the walk and every program's rules above it read Words.
package unquote

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolscope/toolscope/internal/bashglob"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// MaxBraceWords caps how many words one brace expansion (or one loop
// variable's values) may produce before the command is refused.
const MaxBraceWords = 128

// Word is one normalised argument.
type Word struct {
	Value    string // unquoted value; dynamic parts are kept as their source text
	Pat      string // bash glob pattern: Value with quoted or escaped * ? [ ] \ escaped by a backslash
	Literal  bool   // no parameter expansion or other dynamic part
	Param    bool   // contains a $VAR parameter expansion
	Glob     bool   // contains an unquoted glob metacharacter
	Tilde    bool   // starts with an unquoted ~
	quoted   bool   // some part was quoted
	Obscured bool   // used $'..' or $".." quoting
	brace    bool   // produced by a brace expansion
	BadParam bool   // expands a variable that may hold a secret (not a safe or local variable)
	subst    bool   // contains a command or process substitution
	ProcPath bool   // is exactly one process substitution: a pipe's /dev/fd path
	FromGlob bool   // a loop variable's value that came from a glob
}

// safeEchoVars may be printed by echo/printf in a read-only command; other
// variables may hold credentials.
var safeEchoVars = map[string]bool{
	"HOME": true, "PWD": true, "OLDPWD": true, "USER": true, "LOGNAME": true, "SHELL": true, "PATH": true,
	"LANG": true, "LC_ALL": true, "TERM": true, "HOSTNAME": true, "GOPATH": true, "GOROOT": true, "GOOS": true,
	"GOARCH": true, "TMPDIR": true, "EDITOR": true, "VIRTUAL_ENV": true, "NODE_ENV": true, "CI": true,
	"BASH_VERSION": true, "SHLVL": true, "UID": true, "EUID": true, "PPID": true, "RANDOM": true, "SECONDS": true,
	"?": true, "$": true, "!": true, "#": true, "@": true, "*": true, "-": true, "0": true,
}

// Binding is what the analyser knows of a shell variable inside the
// construct that sets it: a for loop's list, or "set, value unknown" for
// read and the like. Only bindings of the command itself are known; the
// environment's variables are not.
type Binding struct {
	Values []Word // nil: set by the command, value unknown
	Secret bool   // the value may come from a variable that holds a secret
}

// Unquoter turns syntax words into normalised words. Binds are the
// variables the command itself set in the current scope.
type Unquoter struct {
	Src   string
	Binds map[string]Binding
}

// ExpandWord unquotes w, expanding braces and known loop variables. ok is
// false when the expansion is too large or ambiguous to check.
func (u *Unquoter) ExpandWord(w *syntax.Word, out []Word) ([]Word, bool) {
	if !HasBraceChar(w) {
		return u.bindWord(w.Parts, out)
	}
	cand, mixed := braceCandidate(w)
	// The braces are split in a copy: the tree stays as parsed, for rule
	// matching's walk of the same parse (Analysis.MatchRule).
	cp := *w
	if syntax.SplitBraces(&cp) && hasBraceExp(&cp) {
		if mixed {
			return out, false
		}
		return u.expandBraces(&cp, out)
	}
	if cand {
		return out, false
	}
	return u.bindWord(cp.Parts, out)
}

// expandBraces unquotes each word of w's brace expansion. (A function of
// its own: the loop's captured variables live on the heap, which the
// common words without braces need not pay for.)
func (u *Unquoter) expandBraces(w *syntax.Word, out []Word) ([]Word, bool) {
	if braceWords(w, MaxBraceWords) > MaxBraceWords {
		return out, false // known too large before a word is built
	}
	n := 0
	for ew, err := range expand.BracesSeq(nil, w) {
		if err != nil {
			return out, false
		}
		var ok bool
		before := len(out)
		if out, ok = u.bindWord(ew.Parts, out); !ok {
			return out, false
		}
		for i := before; i < len(out); i++ {
			out[i].brace = true
		}
		if n += len(out) - before; n > MaxBraceWords {
			return out, false
		}
	}
	return out, true
}

// BraceCount is the number of words the brace expansion of w yields, as
// expandWord would expand it, 1 when it would not, and more than
// maxBraceWords when it would refuse it. w is left as it is (expandWord
// splits it later).
func BraceCount(w *syntax.Word) int {
	if !HasBraceChar(w) {
		return 1
	}
	_, mixed := braceCandidate(w)
	cp := *w
	if mixed || !syntax.SplitBraces(&cp) || !hasBraceExp(&cp) {
		return 1
	}
	return braceWords(&cp, MaxBraceWords)
}

// braceWords counts the words the brace expansion of w (split by
// syntax.SplitBraces) yields, as expand.BracesSeq would; any count above
// limit is reported as limit+1.
func braceWords(w *syntax.Word, limit int) int {
	n := 1
	for _, p := range w.Parts {
		br, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		k := 0
		if br.Sequence {
			k = seqWords(br, limit)
		} else {
			for _, e := range br.Elems {
				if k += braceWords(e, limit); k > limit {
					break
				}
			}
		}
		if k == 0 {
			return 0
		}
		if k > limit || n > limit/k {
			return limit + 1
		}
		n *= k
	}
	return n
}

// seqWords counts the words of a sequence expression {from..to[..step]}.
func seqWords(br *syntax.BraceExp, limit int) int {
	if len(br.Elems) < 2 {
		return 1
	}
	fromLit, toLit := br.Elems[0].Lit(), br.Elems[1].Lit()
	from, err1 := strconv.ParseInt(fromLit, 10, 64)
	to, err2 := strconv.ParseInt(toLit, 10, 64)
	if err1 != nil || err2 != nil {
		if fromLit == "" || toLit == "" {
			return 1
		}
		from, to = int64(fromLit[0]), int64(toLit[0])
	}
	step := uint64(1)
	if len(br.Elems) > 2 {
		s, _ := strconv.ParseInt(br.Elems[2].Lit(), 10, 64)
		if s < 0 {
			s = -s
		}
		if s > 0 {
			step = uint64(s)
		}
	}
	var span uint64
	if from <= to {
		span = uint64(to) - uint64(from)
	} else {
		span = uint64(from) - uint64(to)
	}
	if c := span/step + 1; c > 0 && c <= uint64(limit) {
		return int(c)
	}
	return limit + 1
}

// bindWord unquotes parts once per combination of the values of the loop
// variables it mentions.
func (u *Unquoter) bindWord(parts []syntax.WordPart, out []Word) ([]Word, bool) {
	var names []string
	for _, p := range parts {
		forParams(p, func(pe *syntax.ParamExp) {
			if b, ok := u.Binds[pe.Param.Value]; ok && b.Values != nil && !contains(names, pe.Param.Value) {
				names = append(names, pe.Param.Value)
			}
		})
	}
	if len(names) == 0 {
		return append(out, u.UnquoteParts(parts, nil)), true
	}
	total := 1
	for _, n := range names {
		if total *= len(u.Binds[n].Values); total > MaxBraceWords {
			return out, false
		}
	}
	pick := map[string]Word{}
	var rec func(i int)
	rec = func(i int) {
		if i == len(names) {
			out = append(out, u.UnquoteParts(parts, pick))
			return
		}
		for _, v := range u.Binds[names[i]].Values {
			pick[names[i]] = v
			rec(i + 1)
		}
	}
	rec(0)
	return out, true
}

// forParams calls fn for every simple parameter expansion in p, inside
// double quotes too.
func forParams(p syntax.WordPart, fn func(*syntax.ParamExp)) {
	switch p := p.(type) {
	case *syntax.ParamExp:
		if p.Param != nil {
			fn(p)
		}
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			forParams(q, fn)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// braceCandidate reports whether the unquoted text of w looks like a brace
// expansion ("{" then "," or ".." then "}"), and whether quoting or escapes
// are mixed into it. Bash and mvdan.cc/sh disagree on such words
// (git diff {@'{'0},--output=x}), so callers refuse them.
func braceCandidate(w *syntax.Word) (cand, mixed bool) {
	strict, lenient := 0, 0 // 0: want {, 1: want , or .., 2: want }, 3: found
	prevDot := false
	step := func(st *int, c byte, reset bool) {
		switch {
		case c == '{' && *st == 0:
			*st = 1
		case *st == 1 && (c == ',' || c == '.' && prevDot):
			*st = 2
		case *st == 1 && c == '}' && reset:
			*st = 0
		case c == '}' && *st == 2:
			*st = 3
		}
	}
	for _, p := range w.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok {
			mixed = true
			prevDot = false
			continue
		}
		s := lit.Value
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c == '\\' {
				mixed = true
				i++
				prevDot = false
				continue
			}
			step(&strict, c, false)
			step(&lenient, c, true)
			prevDot = c == '.'
		}
	}
	cand = lenient == 3 || mixed && strict == 3
	return cand, mixed && cand
}

// HasBraceChar reports an unquoted { in w: only such a word can hold a
// brace expansion.
func HasBraceChar(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.IndexByte(lit.Value, '{') >= 0 {
			return true
		}
		if _, ok := p.(*syntax.BraceExp); ok {
			return true
		}
	}
	return false
}

func hasBraceExp(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.BraceExp); ok {
			return true
		}
	}
	return false
}

// UnquoteWord unquotes a word without brace expansion or loop variables.
func UnquoteWord(src string, w *syntax.Word) Word {
	if w == nil {
		return Word{Literal: true}
	}
	u := Unquoter{Src: src}
	return u.UnquoteParts(w.Parts, nil)
}

// NodeText is the source text of n.
func NodeText(src string, n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(src) || s > e {
		return ""
	}
	return src[s:e]
}

// wordBuilder accumulates a word's value and its glob pattern.
type wordBuilder struct {
	s, pat strings.Builder
}

// lit adds text that is literal in the glob (quoted or escaped).
func (b *wordBuilder) lit(s string) {
	b.s.WriteString(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '*', '?', '[', ']', '\\':
			b.pat.WriteByte('\\')
			b.pat.WriteByte(c)
		default:
			b.pat.WriteByte(c)
		}
	}
}

// raw adds unquoted text whose glob characters are special.
func (b *wordBuilder) raw(s string) {
	b.s.WriteString(s)
	b.pat.WriteString(s)
}

func (u *Unquoter) UnquoteParts(parts []syntax.WordPart, pick map[string]Word) Word {
	if len(parts) == 1 {
		// The common word: one literal without escapes is its own value
		// and its own pattern (what the loop below would build).
		if l, ok := parts[0].(*syntax.Lit); ok && strings.IndexByte(l.Value, '\\') < 0 {
			wd := Word{Value: l.Value, Pat: l.Value, Literal: true, Tilde: strings.HasPrefix(l.Value, "~")}
			wd.Glob = strings.ContainsAny(l.Value, "*?[") && bashglob.HasMeta(l.Value)
			return wd
		}
	}
	var b wordBuilder
	wd := Word{Literal: true}
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				wd.Tilde = true
			}
			unescapeLit(&b, p.Value, &wd)
		case *syntax.SglQuoted:
			wd.quoted = true
			if p.Dollar {
				wd.Obscured = true
				s, ok := decodeANSIC(p.Value)
				if !ok {
					wd.Literal = false
				}
				b.lit(s)
			} else {
				b.lit(p.Value)
			}
		case *syntax.DblQuoted:
			wd.quoted = true
			if p.Dollar {
				wd.Obscured = true
				wd.Literal = false
			}
			for _, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					b.lit(unescapeDq(q.Value))
				default:
					u.addDynamic(&b, &wd, q, pick, true)
				}
			}
		default:
			if _, ok := p.(*syntax.ProcSubst); ok && len(parts) == 1 {
				wd.ProcPath = true
			}
			u.addDynamic(&b, &wd, p, pick, false)
		}
	}
	wd.Value = b.s.String()
	wd.Pat = b.pat.String()
	// An unquoted [ alone (as in the command [ -f x ]) is no glob.
	wd.Glob = wd.Glob && bashglob.HasMeta(wd.Pat)
	return wd
}

// addDynamic adds a word part known only at run time: a loop variable's
// value (when pick has one), else the part's source text, marking the word
// non-literal.
func (u *Unquoter) addDynamic(b *wordBuilder, wd *Word, n syntax.Node, pick map[string]Word, quoted bool) {
	pe, isParam := n.(*syntax.ParamExp)
	if isParam && pe.Param != nil {
		if v, ok := pick[pe.Param.Value]; ok {
			// A loop variable with a known value. Quoted, it is the value;
			// unquoted, bash splits and globs it again, which is only
			// predictable for a plain literal value.
			switch {
			case quoted:
				b.s.WriteString(v.Value)
				b.pat.WriteString(v.Pat)
				wd.Glob = wd.Glob || v.Glob
				wd.FromGlob = wd.FromGlob || v.Glob
			case v.Glob || strings.ContainsAny(v.Value, " \t\n*?[") || !v.Literal:
				wd.Literal = false
				b.raw(v.Value)
			default:
				b.lit(v.Value)
			}
			wd.Literal = wd.Literal && v.Literal
			wd.BadParam = wd.BadParam || v.BadParam
			return
		}
		wd.Param = true
		if b, local := u.Binds[pe.Param.Value]; local && b.Secret || !local && !safeEchoVars[pe.Param.Value] &&
			!(len(pe.Param.Value) == 1 && pe.Param.Value[0] >= '1' && pe.Param.Value[0] <= '9') {
			wd.BadParam = true
		}
	} else if isParam {
		wd.Param = true
		wd.BadParam = true
	}
	switch n.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst:
		wd.subst = true
	}
	wd.Literal = false
	b.raw(NodeText(u.Src, n))
}

// unescapeLit removes shell backslash escapes from an unquoted literal and
// records unescaped glob metacharacters.
func unescapeLit(b *wordBuilder, s string, wd *Word) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					b.lit(s[i : i+1])
				}
			}
			continue
		case '*', '?', '[':
			wd.Glob = true
		}
		b.raw(s[i : i+1])
	}
}

// unescapeDq removes the backslash escapes that are special inside double
// quotes: \$ \` \" \\ and backslash-newline.
func unescapeDq(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch n := s[i+1]; n {
			case '$', '`', '"', '\\':
				b.WriteByte(n)
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// decodeANSIC decodes the body of a $'...' string. ok is false when the
// result contains control characters or the escapes are malformed.
func decodeANSIC(s string) (string, bool) {
	var b strings.Builder
	ok := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a', 'b', 'e', 'E', 'f', 'v', 'r':
			b.WriteByte(map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'v': 11, 'r': 13}[e])
			ok = false
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			ok = false
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			max := 2
			if e == 'u' {
				max = 4
			} else if e == 'U' {
				max = 8
			}
			j := i + 1
			for j < len(s) && j < i+1+max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, err := strconv.ParseUint(s[i+1:j], 16, 32)
			if err != nil {
				return b.String(), false
			}
			i = j - 1
			if e == 'x' {
				b.WriteByte(byte(n))
				if n < 0x20 || n >= 0x7f {
					ok = false
				}
			} else {
				r := rune(n)
				if r < 0x20 || r >= 0x7f || !utf8.ValidRune(r) {
					ok = false
				}
				b.WriteRune(r)
			}
		default:
			if e >= '0' && e <= '7' {
				j := i
				for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				n, _ := strconv.ParseUint(s[i:j], 8, 32)
				i = j - 1
				b.WriteByte(byte(n))
				if n < 0x20 || n >= 0x7f {
					ok = false
				}
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String(), ok
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// EscapeGlob quotes the glob characters of s (* ? [ ] and the backslash)
// with backslashes: the pattern that matches s alone.
func EscapeGlob(s string) string {
	if !strings.ContainsAny(s, `*?[]\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
