package walk

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Pattern is one line of a .gitignore file (or one ripgrep --glob), compiled.
//
// The syntax is git's: a leading "!" negates, a trailing "/" matches only
// directories, a "/" at the start or in the middle anchors the pattern to the
// directory of the file that holds it (otherwise it matches a name at any
// depth), "*" and "?" never match "/", "[...]" is a character class ("[!...]"
// and "[^...]" negate it), "**" as a whole path segment matches zero or more
// directories, and "\" escapes the next character. Like ripgrep, "{a,b}"
// alternation is also accepted.
type Pattern struct {
	Negate  bool // the line started with "!": a match re-includes the path
	DirOnly bool // the line ended with "/": only directories match

	kind kind
	lit  string         // kindName: the base name; kindSuffix: the suffix
	re   *regexp.Regexp // kindRegexp: matches the whole relative path
}

type kind uint8

const (
	kindName   kind = iota // an unanchored literal: match the base name
	kindSuffix             // an unanchored "*literal": match the end of the base name
	kindRegexp             // anything else
)

// errBadPattern reports a pattern that can never match (git ignores such lines).
var errBadPattern = errors.New("bad pattern")

// ParsePattern compiles one gitignore line. It reports false for blank lines,
// comments and patterns that are invalid (an unclosed "[" or "{", a trailing
// backslash), which git and ripgrep both skip.
func ParsePattern(line string) (Pattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return Pattern{}, false
	}
	var p Pattern
	if line[0] == '!' {
		p.Negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.DirOnly = true
		line = strings.TrimRight(line, "/")
	}
	anchored := false
	if strings.HasPrefix(line, "/") {
		anchored = true
		line = strings.TrimLeft(line, "/")
	} else if strings.Contains(line, "/") {
		anchored = true
	}
	if line == "" {
		return Pattern{}, false
	}
	if !anchored {
		if !hasMeta(line) {
			p.kind, p.lit = kindName, line
			return p, true
		}
		if rest, ok := strings.CutPrefix(line, "*"); ok && !hasMeta(rest) {
			p.kind, p.lit = kindSuffix, rest
			return p, true
		}
		line = "**/" + line
	}
	expr, err := translate(line)
	if err != nil {
		return Pattern{}, false
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Pattern{}, false
	}
	p.kind, p.re = kindRegexp, re
	return p, true
}

// Match reports whether the pattern matches rel, a slash-separated path
// relative to the directory holding the pattern. Negate is not applied.
func (p *Pattern) Match(rel string, isDir bool) bool {
	if p.DirOnly && !isDir {
		return false
	}
	switch p.kind {
	case kindName:
		return baseName(rel) == p.lit
	case kindSuffix:
		return strings.HasSuffix(baseName(rel), p.lit)
	default:
		return p.re != nil && p.re.MatchString(rel)
	}
}

func baseName(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[i+1:]
	}
	return rel
}

// trimTrailingSpaces removes trailing spaces unless escaped with a backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") {
		t := strings.TrimSuffix(s, " ")
		// Count the backslashes before the space: an odd number escapes it.
		n := 0
		for i := len(t) - 1; i >= 0 && t[i] == '\\'; i-- {
			n++
		}
		if n%2 == 1 {
			return s
		}
		s = t
	}
	return s
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[{\`) }

// translate turns an anchored glob (no leading "/") into a regular expression
// over the whole slash-separated path.
func translate(glob string) (string, error) {
	var b strings.Builder
	b.WriteString(`^`)
	segs := strings.Split(glob, "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		if seg == "**" {
			if last {
				b.WriteString(`.*`)
			} else {
				b.WriteString(`(?:.*/)?`)
			}
			continue
		}
		if err := translateSegment(&b, seg); err != nil {
			return "", err
		}
		if !last {
			b.WriteString(`/`)
		}
	}
	b.WriteString(`$`)
	return b.String(), nil
}

// translateSegment writes the regular expression for glob text that does not
// contain a "**" segment; "/" inside braces is kept literally.
func translateSegment(b *strings.Builder, s string) error {
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '*':
			b.WriteString(`[^/]*`)
			i++
		case '?':
			b.WriteString(`[^/]`)
			i++
		case '\\':
			if i+1 >= len(s) {
				return errBadPattern
			}
			r, n := utf8.DecodeRuneInString(s[i+1:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += 1 + n
		case '[':
			n, err := translateClass(b, s[i:])
			if err != nil {
				return err
			}
			i += n
		case '{':
			end, alts, err := splitBraces(s[i:])
			if err != nil {
				return err
			}
			b.WriteString(`(?:`)
			for k, alt := range alts {
				if k > 0 {
					b.WriteString(`|`)
				}
				if err := translateSegment(b, alt); err != nil {
					return err
				}
			}
			b.WriteString(`)`)
			i += end
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += n
		}
	}
	return nil
}

// translateClass translates the bracket expression at the start of s and
// returns how many bytes it used.
func translateClass(b *strings.Builder, s string) (int, error) {
	i := 1
	negate := false
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		negate = true
		i++
	}
	var cls strings.Builder
	first := true
	for {
		if i >= len(s) {
			return 0, errBadPattern
		}
		if s[i] == ']' && !first {
			i++
			break
		}
		first = false
		if s[i] == '[' && i+1 < len(s) && s[i+1] == ':' {
			if end := strings.Index(s[i+2:], ":]"); end >= 0 {
				cls.WriteString(s[i : i+2+end+2])
				i += 2 + end + 2
				continue
			}
		}
		lo, n, err := classRune(s[i:])
		if err != nil {
			return 0, err
		}
		i += n
		fmtRune(&cls, lo)
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			hi, n, err := classRune(s[i+1:])
			if err != nil {
				return 0, err
			}
			if hi < lo {
				return 0, errBadPattern
			}
			i += 1 + n
			cls.WriteString(`-`)
			fmtRune(&cls, hi)
		}
	}
	if negate {
		b.WriteString(`[^/` + cls.String() + `]`)
	} else {
		// A class never matches the separator.
		b.WriteString(`(?:[` + cls.String() + `])`)
	}
	return i, nil
}

func classRune(s string) (rune, int, error) {
	if s[0] == '\\' {
		if len(s) < 2 {
			return 0, 0, errBadPattern
		}
		r, n := utf8.DecodeRuneInString(s[1:])
		return r, 1 + n, nil
	}
	r, n := utf8.DecodeRuneInString(s)
	return r, n, nil
}

func fmtRune(b *strings.Builder, r rune) {
	if r == '/' {
		r = 0 // a class never matches "/" (git's FNM_PATHNAME); NUL never occurs in names
	}
	b.WriteString(`\x{`)
	b.WriteString(strconv.FormatInt(int64(r), 16))
	b.WriteString(`}`)
}

// splitBraces parses "{a,b,...}" at the start of s, honouring nesting and
// escapes, and returns the bytes used and the alternatives.
func splitBraces(s string) (int, []string, error) {
	depth := 0
	start := 1
	var alts []string
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			// Skip a class so that "," or "}" inside it is literal.
			j := i + 1
			if j < len(s) && (s[j] == '!' || s[j] == '^') {
				j++
			}
			if j < len(s) && s[j] == ']' {
				j++
			}
			for j < len(s) && s[j] != ']' {
				j++
			}
			if j < len(s) {
				i = j
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				alts = append(alts, s[start:i])
				return i + 1, alts, nil
			}
		case ',':
			if depth == 1 {
				alts = append(alts, s[start:i])
				start = i + 1
			}
		}
	}
	return 0, nil, errBadPattern
}

// matcher holds the patterns of one ignore file.
type matcher struct {
	pats []Pattern
}

// match reports whether any pattern matches, and if so whether the last
// matching one ignores (true) or re-includes (false) the path.
func (m *matcher) match(rel string, isDir bool) (matched, ignore bool) {
	for i := len(m.pats) - 1; i >= 0; i-- {
		p := &m.pats[i]
		if p.Match(rel, isDir) {
			return true, !p.Negate
		}
	}
	return false, false
}

// readMatcher parses an ignore file; a missing or unreadable file gives nil.
func readMatcher(path string) *matcher {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	m := &matcher{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		if p, ok := ParsePattern(sc.Text()); ok {
			m.pats = append(m.pats, p)
		}
	}
	if len(m.pats) == 0 {
		return nil
	}
	return m
}

// Matcher is a list of patterns evaluated git-style: the last pattern that
// matches decides. It is what ripgrep builds from repeated --glob flags.
type Matcher struct{ m matcher }

// NewMatcher compiles lines in order; it returns an error naming the first
// line that is not a valid pattern.
func NewMatcher(lines []string) (*Matcher, error) {
	var m Matcher
	for _, l := range lines {
		p, ok := ParsePattern(l)
		if !ok {
			return nil, &BadPatternError{Pattern: l}
		}
		m.m.pats = append(m.m.pats, p)
	}
	return &m, nil
}

// Match reports whether a pattern matched and, if so, whether the last match
// was negated ("!pattern").
func (m *Matcher) Match(rel string, isDir bool) (matched, negated bool) {
	matched, ignore := m.m.match(rel, isDir)
	return matched, matched && !ignore
}

// BadPatternError reports a pattern that cannot be compiled.
type BadPatternError struct{ Pattern string }

func (e *BadPatternError) Error() string { return "invalid glob pattern: " + e.Pattern }
