// Package fastparse builds the syntax tree of the commonest command lines
// without mvdan.cc/sh's parser: one simple command of plain words.
//
// It is separate from package shell because it is an optimisation with a
// contract of its own, checked by package shell's FuzzFastParse: for
// every line it accepts, its tree is the parser's, node for node and
// position for position. The analyser above cannot tell which of the two
// built a tree.
package fastparse

import "mvdan.cc/sh/v3/syntax"

// The commonest command lines are one simple command of plain words:
// "git status", "ls -la src", "go test ./...". For them Parse builds
// the tree mvdan.cc/sh's parser would, node for node and position for
// position, in one allocation instead of the parser's batches of nodes
// (3 KB a parse). Anything else goes to the parser: a character that is
// not plain (quotes, $, globs, braces, ~, #, redirections, operators,
// backslashes, tabs, newlines, non-ASCII, brackets), a first word that is a reserved
// word or a declaration (time, if, export, let...) or an assignment, more
// than fastMaxWords words. FuzzFastParse checks the trees are the same.

const fastMaxWords = 8

// fastTree is the tree of one simple command; fastTree4 and fastTree8
// hold it with room for its words (most commands have four or fewer), so
// that the whole tree is one allocation of about the size it needs.
type fastTree struct {
	file  syntax.File
	stmt  syntax.Stmt
	call  syntax.CallExpr
	stmts [1]*syntax.Stmt
}

type fastTree4 struct {
	fastTree
	args  [4]*syntax.Word
	words [4]syntax.Word
	parts [4]syntax.WordPart
	lits  [4]syntax.Lit
}

type fastTree8 struct {
	fastTree
	args  [fastMaxWords]*syntax.Word
	words [fastMaxWords]syntax.Word
	parts [fastMaxWords]syntax.WordPart
	lits  [fastMaxWords]syntax.Lit
}

// fastPlain is the set of bytes a plain word may hold.
var fastPlain = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	// The parser keeps a tilde and the glob characters * and ? in a
	// literal (an extended glob needs a parenthesis).
	for _, c := range "_./-+:@%,=~*?" {
		t[c] = true
	}
	return t
}()

// fastReserved are first words the parser reads as something other than a
// plain command (or that a cautious reader would rather it judged).
var fastReserved = map[string]bool{
	"if": true, "then": true, "elif": true, "else": true, "fi": true, "for": true, "in": true,
	"while": true, "until": true, "do": true, "done": true, "case": true, "esac": true,
	"select": true, "function": true, "time": true, "coproc": true,
	"declare": true, "local": true, "export": true, "readonly": true, "typeset": true,
	"nameref": true, "let": true,
}

// Parse returns the tree of src when src is a plain simple command.
func Parse(src string) (*syntax.File, bool) {
	var starts, ends [fastMaxWords]int
	n := 0
	quoted := false
	for i := 0; i < len(src); {
		c := src[i]
		if c == ' ' {
			i++
			continue
		}
		if n == fastMaxWords {
			return nil, false
		}
		j := i
		for j < len(src) && src[j] != ' ' {
			if src[j] == '\'' && n > 0 {
				// A single-quoted part of a word after the first: printable
				// ASCII up to the closing quote.
				k := j + 1
				for k < len(src) && src[k] != '\'' {
					if src[k] < 0x20 || src[k] > 0x7e {
						return nil, false
					}
					k++
				}
				if k == len(src) {
					return nil, false
				}
				quoted = true
				j = k + 1
				continue
			}
			if !fastPlain[src[j]] {
				return nil, false
			}
			j++
		}
		starts[n], ends[n] = i, j
		n++
		i = j
	}
	if n == 0 {
		return nil, false
	}
	first := src[starts[0]:ends[0]]
	if fastReserved[first] {
		return nil, false
	}
	for i := 0; i < len(first); i++ {
		if first[i] == '=' {
			return nil, false
		}
	}
	switch {
	case quoted:
		t := &fastTreeQ{}
		return t.build(src, starts[:n], ends[:n], t.args[:n:n], t.words[:n], t.parts[:], t.lits[:], t.sgls[:])
	case n <= 4:
		t := &fastTree4{}
		return t.build(src, starts[:n], ends[:n], t.args[:n:n], t.words[:n], t.parts[:n], t.lits[:n], nil)
	}
	t := &fastTree8{}
	return t.build(src, starts[:n], ends[:n], t.args[:n:n], t.words[:n], t.parts[:n], t.lits[:n], nil)
}

// fastTreeQ holds a tree whose words have single-quoted parts.
type fastTreeQ struct {
	fastTree
	args  [fastMaxWords]*syntax.Word
	words [fastMaxWords]syntax.Word
	parts [fastMaxParts]syntax.WordPart
	lits  [fastMaxParts]syntax.Lit
	sgls  [fastMaxParts / 2]syntax.SglQuoted
}

// fastMaxParts bounds the parts of a line's words on the fast path.
const fastMaxParts = 16

// build links the tree of the words src[starts[k]:ends[k]] (checked by
// fastParse: plain bytes, and single-quoted parts closed on one line) in the
// room given: a plain word is one literal; a word with quotes, its
// literals and quoted parts in turn. It fails when the room is too small.
func (t *fastTree) build(src string, starts, ends []int, args []*syntax.Word, words []syntax.Word,
	parts []syntax.WordPart, lits []syntax.Lit, sgls []syntax.SglQuoted) (*syntax.File, bool) {
	np, nl, ns := 0, 0, 0
	for k := range args {
		first := np
		for i := starts[k]; i < ends[k]; {
			if np == len(parts) {
				return nil, false
			}
			if src[i] == '\'' {
				if ns == len(sgls) {
					return nil, false
				}
				j := i + 1
				for src[j] != '\'' {
					j++
				}
				q := &sgls[ns]
				ns++
				q.Left = syntax.NewPos(uint(i), 1, uint(i)+1)
				q.Right = syntax.NewPos(uint(j), 1, uint(j)+1)
				q.Value = src[i+1 : j]
				parts[np] = q
				np++
				i = j + 1
				continue
			}
			j := i
			for j < ends[k] && src[j] != '\'' {
				j++
			}
			l := &lits[nl]
			nl++
			l.ValuePos = syntax.NewPos(uint(i), 1, uint(i)+1)
			l.ValueEnd = syntax.NewPos(uint(j), 1, uint(j)+1)
			l.Value = src[i:j]
			parts[np] = l
			np++
			i = j
		}
		words[k].Parts = parts[first:np:np]
		args[k] = &words[k]
	}
	t.call.Args = args
	t.stmt.Cmd = &t.call
	t.stmt.Position = lits[0].ValuePos // the first word is plain
	t.stmts[0] = &t.stmt
	t.file.Stmts = t.stmts[:]
	return &t.file, true
}
