// Package screen is the analyser's first look at a command, before any
// walk: characters that make parsers disagree with the shell or hide
// content from the person asked to approve it, and, once parsed, the
// constructs the analyser does not model (arithmetic, functions,
// declarations, coprocesses, extended globs, parameter expansions other
// than $NAME). Either makes the command ask, whatever the rules say.
package screen

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Reject reports characters that make parsers disagree with the shell,
// or that hide content from a human reviewer (control, invisible,
// bidirectional and non-ASCII blank characters, invalid UTF-8), a command
// longer than maxLen bytes, or brackets nested deeper than maxNesting; ""
// when s has none.
func Reject(s string, maxLen, maxNesting int) string {
	if len(s) > maxLen {
		return fmt.Sprintf("more than %d bytes", maxLen)
	}
	depth, maxDepth := 0, 0
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '(', '{', '[':
			depth++
			if depth > maxDepth {
				maxDepth = depth
			}
		case ')', '}', ']':
			depth--
		}
		if c < utf8.RuneSelf {
			switch {
			case c == '\r':
				return "a carriage return"
			case c == 0:
				return "a NUL byte"
			case c < 0x20 && c != '\t' && c != '\n':
				return fmt.Sprintf("control character U+%04X", c)
			case c == 0x7f:
				return "control character U+007F"
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return "invalid UTF-8"
		}
		switch {
		case unicode.IsSpace(r) || unicode.Is(unicode.Zs, r):
			return fmt.Sprintf("non-ASCII whitespace U+%04X", r)
		case unicode.Is(unicode.Cc, r):
			return fmt.Sprintf("control character U+%04X", r)
		case unicode.Is(unicode.Cf, r) || r == 0x180E || r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0 ||
			r == 0x034F || r == 0x17B4 || r == 0x17B5 || r == 0x2800 || r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF:
			return fmt.Sprintf("invisible or bidirectional character U+%04X", r)
		case unicode.Is(unicode.Co, r) || unicode.Is(unicode.Cs, r) || r == 0xFFFD || r >= 0xFFF0 && r <= 0xFFFF:
			return fmt.Sprintf("unusual character U+%04X", r)
		}
		i += size
	}
	if maxDepth > maxNesting {
		return fmt.Sprintf("brackets nested more than %d deep", maxNesting)
	}
	return ""
}

// Scan walks the whole file once: it returns the first construct that the
// analyser does not model ("" if none), the number of simple commands,
// and whether there is any command or process substitution.
// Loops, conditionals, groups, subshells, [[ ]] and command and process
// substitutions are modelled (see walk.go); arithmetic, functions,
// declarations, coprocesses, extended globs and parameter expansions other
// than a plain $NAME or ${NAME} are not.
func Scan(f *syntax.File) (string, int, bool) {
	// One variable for the closure to capture: one allocation, not three.
	var st struct {
		kind   string
		count  int
		substs bool
	}
	syntax.Walk(f, func(node syntax.Node) bool {
		switch n := node.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			st.substs = true
		case *syntax.CallExpr, *syntax.DeclClause, *syntax.LetClause, *syntax.TestClause, *syntax.ArithmCmd:
			st.count++
		case *syntax.Stmt:
			if n.Cmd == nil {
				st.count++
			}
		}
		if st.kind != "" {
			return true
		}
		switch n := node.(type) {
		case *syntax.ArithmExp:
			st.kind = "arithmetic_expansion"
		case *syntax.ArithmCmd:
			st.kind = "arithmetic_command"
		case *syntax.ParamExp:
			if n.Excl || n.Length || n.Width || n.IsSet || n.Flags != nil ||
				n.NestedParam != nil || n.Index != nil || n.Slice != nil || n.Repl != nil ||
				n.Names != 0 || n.Exp != nil || n.Param == nil || len(n.Modifiers) > 0 {
				st.kind = "expansion"
			}
		case *syntax.ExtGlob:
			st.kind = "extended_glob"
		case *syntax.FuncDecl:
			st.kind = "function_definition"
		case *syntax.DeclClause:
			st.kind = "declaration"
		case *syntax.LetClause:
			st.kind = "let_command"
		case *syntax.CoprocClause:
			st.kind = "coproc"
		case *syntax.TestDecl:
			st.kind = "test_declaration"
		case *syntax.Stmt:
			if n.Coprocess {
				st.kind = "coproc"
			}
		case *syntax.Assign:
			if n.Array != nil || n.Index != nil || n.Append {
				st.kind = "array_assignment"
			}
		case *syntax.ForClause:
			if _, ok := n.Loop.(*syntax.WordIter); !ok {
				st.kind = "arithmetic_for_loop"
			} else if n.Select {
				st.kind = "select_loop"
			}
		}
		return true
	})
	return st.kind, st.count, st.substs
}
