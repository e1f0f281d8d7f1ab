package shell

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/toolscope/toolscope/shell/internal/specs"
	"github.com/toolscope/toolscope/shell/internal/unquote"
)

type sedResult struct {
	err       string
	inPlace   bool
	files     []word
	backups   []word // the backup files -i SUFFIX writes
	substOnly bool   // every expression is s///
	printOnly bool   // -n with only N p / N,M p expressions
}

var sedLongs = map[string]specs.ArgKind{
	"quiet": specs.ArgNone, "silent": specs.ArgNone, "expression": specs.ArgValue, "in-place": specs.ArgOptional, "regexp-extended": specs.ArgNone,
	"posix": specs.ArgNone, "separate": specs.ArgNone, "null-data": specs.ArgNone, "zero-terminated": specs.ArgNone, "sandbox": specs.ArgNone, "debug": specs.ArgNone,
	"line-length": specs.ArgValue, "unbuffered": specs.ArgNone, "follow-symlinks": specs.ArgNone, "file": specs.ArgDeny,
}

var sedLongSpec = &specs.Flags{Long: sedLongs}

// sedCheck applies the reference sed constraints to sed's arguments, and
// works out the files -i writes: the operands and their backups.
func (an *analyzer) sedCheck(args []word, l *leaf) sedResult {
	var r sedResult
	var suffixes []string
	var exprs []string
	quiet, hasExpr, other := false, false, false
	var operands []word
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if a == "--" {
			operands = append(operands, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			operands = append(operands, args[i])
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := a[2:], "", false
			if eq := strings.IndexByte(name, '='); eq >= 0 {
				name, val, hasVal = name[:eq], name[eq+1:], true
			}
			canon, kind, ok := sedLongSpec.ResolveLong(name)
			if !ok || kind == specs.ArgDeny {
				r.err = fmt.Sprintf("sed flag --%s not allowed", name)
				return r
			}
			switch canon {
			case "quiet", "silent":
				quiet = true
			case "expression":
				if !hasVal && i+1 < len(args) {
					i++
					val = args[i].Value
				}
				exprs = append(exprs, val)
				hasExpr = true
			case "in-place":
				r.inPlace = true
				if hasVal && val != "" {
					suffixes = append(suffixes, val)
				}
			default:
				other = true
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			switch c := a[j]; c {
			case 'n':
				quiet = true
			case 'E', 'r', 's', 'z', 'u':
				other = true
			case 'e':
				v := a[j+1:]
				if v == "" && i+1 < len(args) {
					i++
					v = args[i].Value
				}
				exprs = append(exprs, v)
				hasExpr = true
				j = len(a)
			case 'i':
				// GNU sed: the rest of the cluster is the backup suffix
				// (-in is -i with suffix "n", not -i -n).
				r.inPlace = true
				if suf := a[j+1:]; suf != "" {
					suffixes = append(suffixes, suf)
				} else if i+1 < len(args) && args[i+1].Value == "" {
					i++ // BSD sed -i ''
				}
				j = len(a)
			default:
				r.err = fmt.Sprintf("sed flag -%c not allowed", c)
				return r
			}
		}
	}
	if !hasExpr {
		if len(operands) == 0 {
			r.err = "sed command missing expression"
			return r
		}
		exprs = append(exprs, operands[0].Value)
		operands = operands[1:]
	}
	r.files = operands
	r.substOnly, r.printOnly = true, quiet && !r.inPlace && !other
	for _, e := range exprs {
		kind, err := sedExpr(e, quiet)
		if err != "" {
			r.err = err
			return r
		}
		if kind != "s" {
			r.substOnly = false
		}
		if kind != "np" {
			r.printOnly = false
		}
	}
	for _, suf := range suffixes {
		for _, f := range r.files {
			r.backups = append(r.backups, sedBackup(f, suf))
		}
	}
	return r
}

// sedBackup is the backup file GNU sed -iSUFFIX writes for file f: each *
// in SUFFIX is replaced by f's base name (and the result, which may hold a
// directory, is taken as is); without a *, SUFFIX is appended to f.
func sedBackup(f word, suffix string) word {
	b := f
	if !strings.Contains(suffix, "*") {
		b.Value = f.Value + suffix
	} else {
		b.Value = strings.ReplaceAll(suffix, "*", filepath.Base(f.Value))
		b.Tilde = false // the suffix is part of the option word: no ~ expansion
	}
	b.Pat = unquote.EscapeGlob(b.Value)
	b.Glob = false
	return b
}

// sedExpr classifies one sed script: "s" (substitution), "np" (numeric
// print under -n), "other" (a harmless address+p/d/=), or returns an error.
func sedExpr(e string, quiet bool) (kind string, err string) {
	t := strings.TrimSpace(e)
	if len(t) >= 2 && t[0] == 's' {
		if ok, flags := parseSubst(t); ok {
			for i := 0; i < len(flags); i++ {
				c := flags[i]
				switch {
				case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || c >= '0' && c <= '9':
				case c == 'w' || c == 'W':
					return "", "sed write operation (w/W) not allowed"
				case c == 'e' || c == 'E':
					return "", "sed execute operation (e/E) not allowed"
				default:
					return "", fmt.Sprintf("sed expression '%s' not in allowlist", e)
				}
			}
			return "s", ""
		}
	}
	switch {
	case sedWrite(t):
		return "", "sed write operation (w/W) not allowed"
	case sedExec(t):
		return "", "sed execute operation (e/E) not allowed"
	case strings.ContainsAny(t, "{}"):
		return "", "sed curly braces not allowed"
	case strings.HasPrefix(t, "!"):
		return "", "sed negation (!) not allowed"
	case strings.Contains(t, "#"):
		return "", "sed comments not allowed"
	}
	if quiet && numericPrint(t) {
		return "np", ""
	}
	if simpleAddrCmd(t) {
		return "other", ""
	}
	return "", fmt.Sprintf("sed expression '%s' not in allowlist", e)
}

func sedWrite(t string) bool {
	for i := 0; i+1 < len(t); i++ {
		if t[i] == '/' && (t[i+1] == 'w' || t[i+1] == 'W') {
			if i+2 == len(t) || t[i+2] == ' ' || t[i+2] == '\t' {
				return true
			}
		}
	}
	return false
}

func sedExec(t string) bool {
	for i := 0; i+1 < len(t); i++ {
		if t[i] == '/' && (t[i+1] == 'e' || t[i+1] == 'E') {
			if i+2 == len(t) || t[i+2] == ' ' || t[i+2] == '\t' || t[i+2] == '\n' {
				return true
			}
		}
	}
	return false
}

// parseSubst parses s<d>pattern<d>replacement<d>flags.
func parseSubst(t string) (bool, string) {
	d := t[1]
	if d == '\\' || d == '\n' || d == ' ' || d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z' || d >= '0' && d <= '9' {
		return false, ""
	}
	i := 2
	for part := 0; part < 2; part++ {
		for i < len(t) && t[i] != d {
			if t[i] == '\\' {
				i++
			} else if t[i] == '\n' {
				return false, ""
			}
			i++
		}
		if i >= len(t) {
			return false, ""
		}
		i++
	}
	return true, t[i:]
}

func numericPrint(t string) bool {
	if !strings.HasSuffix(t, "p") {
		return false
	}
	t = t[:len(t)-1]
	a, b, two := strings.Cut(t, ",")
	return isDigits(a) && (!two || isDigits(b))
}

// simpleAddrCmd accepts [addr[,addr]]{p,d,=} with addr a number, $ or /re/.
func simpleAddrCmd(t string) bool {
	i := 0
	addr := func() bool {
		switch {
		case i < len(t) && t[i] >= '0' && t[i] <= '9':
			for i < len(t) && t[i] >= '0' && t[i] <= '9' {
				i++
			}
			return true
		case i < len(t) && t[i] == '$':
			i++
			return true
		case i < len(t) && t[i] == '/':
			i++
			for i < len(t) && t[i] != '/' {
				if t[i] == '\\' {
					i++
				} else if t[i] == '\n' {
					return false
				}
				i++
			}
			if i >= len(t) {
				return false
			}
			i++
			return true
		}
		return false
	}
	if addr() && i < len(t) && t[i] == ',' {
		i++
		if !addr() {
			return false
		}
	}
	if i > len(t) {
		return false
	}
	rest := t[i:]
	return rest == "p" || rest == "d" || rest == "="
}
