// Package rulematch compiles the content of a Bash permission rule
// ("git log:*", "npm test", "rm -rf *") and matches it against commands:
// as words (the parsed argv, joined by a separator no word holds), as raw
// text (the deny side's look at what quoting could hide), with glob words
// standing for what they may expand to, and in a command the parser
// refused. Which commands of a line a rule must cover, and through which
// wrappers, is package shell's: this package knows only the rule.
package rulematch

import (
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolscope/toolscope/internal/bashglob"
	"github.com/toolscope/toolscope/shell/internal/unquote"
)

// Sep separates words in the form rules are matched against: no word
// holds a NUL, so quoting can never make two words look like one.
const Sep = "\x00"

// Matcher is a compiled rule content.
type Matcher struct {
	// Wild: the content has a wildcard (git push:*), so it does not
	// cover commands that run code given in an option.
	Wild bool
	// Every: empty content, which matches every command.
	Every bool
	// Lits are the content's leading words without a wildcard ("git",
	// "push" for git push:*).
	Lits []string
	re   *regexp.Regexp // over the words joined by Sep; nil if the content is not valid shell words
	raw  *regexp.Regexp // over the whitespace-normalised source text (deny side)
}

var (
	ruleCache      sync.Map
	ruleCacheCount atomic.Int64
)

// maxCachedRules bounds the compiled rules kept (rules come from settings,
// but a long-running host may see many).
const maxCachedRules = 4096

// Compile returns the compiled rule content, from a bounded cache.
func Compile(content string) *Matcher {
	if v, ok := ruleCache.Load(content); ok {
		return v.(*Matcher)
	}
	m := build(content)
	m.Wild = m.Every || strings.Contains(content, "*")
	if ruleCacheCount.Add(1) > maxCachedRules {
		ruleCache.Clear()
		ruleCacheCount.Store(1)
	}
	ruleCache.Store(content, m)
	return m
}

// piece is a literal run or (lit == "" && wild) a wildcard.
type piece struct {
	lit  string
	wild bool
}

// words splits a rule content into words of pieces. ok is false for
// unbalanced quotes.
func words(c string) (words [][]piece, ok bool) {
	var cur []piece
	var lit strings.Builder
	inWord := false
	flush := func() {
		if lit.Len() > 0 {
			cur = append(cur, piece{lit: lit.String()})
			lit.Reset()
		}
	}
	endWord := func() {
		flush()
		if inWord {
			words = append(words, cur)
		}
		cur, inWord = nil, false
	}
	quote := byte(0)
	for i := 0; i < len(c); i++ {
		ch := c[i]
		switch {
		case ch == '\\' && i+1 < len(c) && c[i+1] == '*':
			lit.WriteByte('*')
			inWord = true
			i++
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			} else if ch == '*' {
				flush()
				cur = append(cur, piece{wild: true})
			} else {
				lit.WriteByte(ch)
			}
		case quote == '"':
			switch {
			case ch == '"':
				quote = 0
			case ch == '\\' && i+1 < len(c) && strings.IndexByte("$`\"\\\n", c[i+1]) >= 0:
				i++
				lit.WriteByte(c[i])
			case ch == '*':
				flush()
				cur = append(cur, piece{wild: true})
			default:
				lit.WriteByte(ch)
			}
		case ch == ' ' || ch == '\t' || ch == '\n':
			endWord()
		case ch == '\'' || ch == '"':
			quote = ch
			inWord = true
		case ch == '\\' && i+1 < len(c):
			i++
			lit.WriteByte(c[i])
			inWord = true
		case ch == '*':
			flush()
			cur = append(cur, piece{wild: true})
			inWord = true
		default:
			lit.WriteByte(ch)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	endWord()
	return words, true
}

func build(content string) *Matcher {
	c := strings.TrimSpace(content)
	if c == "" {
		return &Matcher{Every: true}
	}
	m := &Matcher{}
	prefix := false
	body := c
	if strings.HasSuffix(c, ":*") && !strings.HasSuffix(c, `\:*`) {
		prefix = true
		body = strings.TrimSpace(strings.TrimSuffix(c, ":*"))
	}
	if words, ok := words(body); ok && len(words) > 0 {
		for _, w := range words {
			lit, plain := "", true
			for _, p := range w {
				lit += p.lit
				plain = plain && !p.wild
			}
			if !plain {
				break
			}
			m.Lits = append(m.Lits, lit)
		}
		// A trailing word that is a lone * is optional: "ls *" matches ls.
		if last := words[len(words)-1]; !prefix && len(last) == 1 && last[0].wild && len(words) > 1 {
			words, prefix = words[:len(words)-1], true
		}
		var b strings.Builder
		b.WriteString(`(?s)^`)
		for i, w := range words {
			if i > 0 {
				b.WriteString(Sep)
			}
			for _, p := range w {
				if p.wild {
					b.WriteString(".*")
				} else {
					b.WriteString(regexp.QuoteMeta(p.lit))
				}
			}
		}
		if prefix {
			b.WriteString("(?:" + Sep + ".*)?")
		}
		b.WriteString("$")
		m.re, _ = regexp.Compile(b.String())
	}
	// The raw form: the content's text with * as any text and blanks as
	// blanks, for deny and ask rules whose quoting the word form could miss.
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for i := 0; i < len(body); i++ {
		ch := body[i]
		switch {
		case ch == '\\' && i+1 < len(body) && body[i+1] == '*':
			b.WriteString(`\*`)
			i++
		case ch == '*':
			b.WriteString(".*")
		case ch == ' ' || ch == '\t' || ch == '\n':
			for i+1 < len(body) && strings.IndexByte(" \t\n", body[i+1]) >= 0 {
				i++
			}
			b.WriteString(`\s+`)
		default:
			b.WriteString(regexp.QuoteMeta(string(ch)))
		}
	}
	if prefix {
		b.WriteString(`(?:\s.*)?`)
	}
	b.WriteString("$")
	m.raw, _ = regexp.Compile(b.String())
	return m
}

// Words matches a command given as words.
func (m *Matcher) Words(words []string) bool {
	if m.Every {
		return true
	}
	return m.re != nil && m.re.MatchString(strings.Join(words, Sep))
}

// Raw matches source text (whitespace is normalised first).
func (m *Matcher) Raw(text string) bool {
	if m.Every {
		return true
	}
	return m.raw != nil && m.raw.MatchString(strings.Join(strings.Fields(text), " "))
}

// Globbed is the deny side's look at words that are glob patterns
// (/bin/r[m], g?t p[u]sh) or known only at run time (git $sub): bash
// replaces such a word by the names it matches, or the value, so such a
// word among those a rule spells out literally counts as that word when
// it may be it (a command name by its base name too). The words are then
// matched as usual.
func (m *Matcher) Globbed(argv []unquote.Word) bool {
	if m.re == nil || len(m.Lits) == 0 || len(argv) == 0 {
		return false
	}
	globbed := false
	for i, w := range argv {
		globbed = globbed || w.Glob || i < len(m.Lits) && !w.Literal
	}
	if !globbed {
		return false
	}
	sub := make([]string, len(argv))
	for i, w := range argv {
		sub[i] = w.Value
		if i < len(m.Lits) && Covers(w, m.Lits[i], i == 0) {
			sub[i] = m.Lits[i]
		}
	}
	if m.Words(sub) {
		return true
	}
	// g?t -C dir p*sh: git's global options come before the subcommand.
	if m.Lits[0] == "git" && Covers(argv[0], "git", true) {
		i := 1
		for i < len(argv) && strings.HasPrefix(argv[i].Value, "-") {
			switch argv[i].Value {
			case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path":
				i++
			}
			i++
		}
		if i > 1 && i < len(argv) {
			return m.Globbed(append([]unquote.Word{argv[0]}, argv[i:]...))
		}
	}
	return false
}

// Covers reports whether the word may stand for lit: it is lit, or a
// pattern lit matches; a command name (name) by its base name as well.
func Covers(w unquote.Word, lit string, name bool) bool {
	if w.Value == lit || name && baseName(w.Value) == lit {
		return true
	}
	if !w.Literal {
		return true // known only at run time ("git $sub", "rm $flags x")
	}
	if !w.Glob {
		return false
	}
	if bashglob.Match(w.Pat, lit, nil) {
		return true
	}
	if name {
		if i := strings.LastIndexByte(w.Pat, '/'); i >= 0 && bashglob.Match(w.Pat[i+1:], lit, nil) {
			return true
		}
	}
	return false
}

// Unparsed is the deny side's last look at a command the parser
// refused (bash may still run it: mvdan reads r[m] -rf x as a broken
// array assignment): the rule matches when some token, its quotes and
// backslashes removed, is the rule's command name, or a pattern that
// matches it, or a path ending in either, and the rule's other leading
// words follow, in order, among the later tokens.
func (m *Matcher) Unparsed(command string) bool {
	if len(m.Lits) == 0 {
		return false
	}
	var toks []string
	for _, tok := range strings.FieldsFunc(command, func(r rune) bool {
		return strings.ContainsRune(" \t;&|\n\r()`{}<>=", r) || r < ' '
	}) {
		toks = append(toks, strings.NewReplacer(`"`, "", "'", "", `\`, "", "$", "").Replace(tok))
	}
	covers := func(tok, lit string) bool {
		return tok == lit || strings.ContainsAny(tok, "*?[") && bashglob.Match(tok, lit, nil)
	}
	for i, tok := range toks {
		if j := strings.LastIndexByte(tok, '/'); j >= 0 {
			tok = tok[j+1:]
		}
		if !covers(tok, m.Lits[0]) {
			continue
		}
		k := 1
		for _, t := range toks[i+1:] {
			if k < len(m.Lits) && covers(t, m.Lits[k]) {
				k++
			}
		}
		if k == len(m.Lits) {
			return true
		}
	}
	return false
}

// baseName is a command name without its directory (/bin/rm is rm).
func baseName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}
