package shell

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/toolscope/toolscope/shell/internal/sedexpr"
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
		kind, err := sedexpr.Classify(e, quiet)
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
