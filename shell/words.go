package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxBraceWords caps how many words one brace expansion may produce before
// the command is refused.
const maxBraceWords = 128

// word is one normalised argument.
type word struct {
	s        string // unquoted value; dynamic parts are kept as their source text
	literal  bool   // no parameter expansion or other dynamic part
	param    bool   // contains a $VAR parameter expansion
	glob     bool   // contains an unquoted glob metacharacter
	tilde    bool   // starts with an unquoted ~
	quoted   bool   // some part was quoted
	obscured bool   // used $'..' or $".." quoting
	brace    bool   // produced by a brace expansion
	badParam bool   // expands a variable outside safeEchoVars
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

// addDynamic appends the source text of a word part whose value is only
// known at run time (a parameter expansion or anything else non-literal),
// marking the word non-literal.
func (wd *word) addDynamic(b *strings.Builder, src string, n syntax.Node) {
	wd.literal = false
	if pe, ok := n.(*syntax.ParamExp); ok {
		wd.param = true
		checkParam(wd, pe)
	}
	b.WriteString(nodeText(src, n))
}

func checkParam(wd *word, p *syntax.ParamExp) {
	if p.Param == nil || !safeEchoVars[p.Param.Value] && !(len(p.Param.Value) == 1 && p.Param.Value[0] >= '1' && p.Param.Value[0] <= '9') {
		wd.badParam = true
	}
}

// expandWord unquotes w, expanding braces. ok is false when the expansion is
// too large to check.
func expandWord(src string, w *syntax.Word, out []word) ([]word, bool) {
	cand, mixed := braceCandidate(w)
	if syntax.SplitBraces(w) && hasBraceExp(w) {
		if mixed {
			return out, false
		}
		n := 0
		for ew, err := range expand.BracesSeq(nil, w) {
			if err != nil {
				return out, false
			}
			n++
			if n > maxBraceWords {
				return out, false
			}
			wd := unquoteParts(src, ew.Parts)
			wd.brace = true
			out = append(out, wd)
		}
		return out, true
	}
	if cand {
		return out, false
	}
	return append(out, unquoteParts(src, w.Parts)), true
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

func hasBraceExp(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.BraceExp); ok {
			return true
		}
	}
	return false
}

// unquoteWord unquotes a word without brace expansion.
func unquoteWord(src string, w *syntax.Word) word {
	if w == nil {
		return word{literal: true}
	}
	return unquoteParts(src, w.Parts)
}

func nodeText(src string, n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(src) || s > e {
		return ""
	}
	return src[s:e]
}

func unquoteParts(src string, parts []syntax.WordPart) word {
	var b strings.Builder
	wd := word{literal: true}
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				wd.tilde = true
			}
			unescapeLit(&b, p.Value, &wd)
		case *syntax.SglQuoted:
			wd.quoted = true
			if p.Dollar {
				wd.obscured = true
				s, ok := decodeANSIC(p.Value)
				if !ok {
					wd.literal = false
				}
				b.WriteString(s)
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			wd.quoted = true
			if p.Dollar {
				wd.obscured = true
				wd.literal = false
			}
			for _, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					unescapeDq(&b, q.Value)
				default:
					wd.addDynamic(&b, src, q)
				}
			}
		default:
			wd.addDynamic(&b, src, p)
		}
	}
	wd.s = b.String()
	return wd
}

// unescapeLit removes shell backslash escapes from an unquoted literal and
// records unescaped glob metacharacters.
func unescapeLit(b *strings.Builder, s string, wd *word) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					b.WriteByte(s[i])
				}
			}
			continue
		case '*', '?', '[':
			wd.glob = true
		}
		b.WriteByte(c)
	}
}

// unescapeDq removes the backslash escapes that are special inside double
// quotes: \$ \` \" \\ and backslash-newline.
func unescapeDq(b *strings.Builder, s string) {
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
