// Package specs holds the option tables of the programs the shell
// analyser may find read-only, and the parser that applies one to a
// command line.
//
// A table says how a program parses its arguments (GNU, POSIX, Go's flag
// package, tree's and xxd's own ways), which options it knows and what
// each does with its value (none, a value, a file it reads, or "deny":
// never read-only), and what its operands are. The tables are data, the
// *.spec files beside this one (the format is documented below), read at
// the first command that needs one; TestSpecsMatchHelp in package shell
// checks them against the installed programs' --help.
//
// It is separate from package shell because it is knowledge of programs,
// not of bash: it takes words already unquoted (package unquote) and
// knows nothing of paths, the walk or verdicts. [Spec.Parse] splits a
// command line into options and operands; [ParseFlags] does the same for
// the few programs whose rules are code in package shell (sed, tar,
// unzip, git's globals).
package specs

import (
	"embed"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The option tables of the read-only candidates live in *.spec, one
// file per family of programs (coreutils, search, tools, git, packages,
// services), each headed by the versions whose --help and sources they
// were written from. TestSpecsMatchHelp checks them against the installed
// programs.
//
// The format is a line per directive; "#" starts a comment (a whole line,
// or after a directive), blank lines are ignored:
//
//	[NAME]              a program's table ("grep"), or a subcommand's ("git log")
//	[@NAME]             a set of options for other tables to include (no program)
//	like NAME           a copy of NAME's table (first in a block; more lines add to it)
//	include @NAME       the options of @NAME
//	style S             gnu, posix, go, tree or xxd (see parseStyle)
//	operands O          files, pattern-then-files or none (see operandRole)
//	max-operands N      -1: no limit
//	KIND OPT...         options of a kind: flag, value, optvalue, read,
//	                    value2, read2 or deny (see optKind)
//	LIST ITEM...        pattern-opts, recursive, hidden, follow, recurse-value
//	                    (an item with spaces is written in double quotes)
//	FLAG                default-dot, dot-if-recursive, num-opt, names-only,
//	                    response-files, stdout-second, output-operand
//
// The fields are progSpec's, which documents each.
//
//go:embed *.spec
var specFiles embed.FS

// All returns the programs' tables and the subcommands' ("git
// log", "go env", "docker ps"; "git", "go" and "docker" hold the global
// options before the subcommand), read at the first command that needs
// one: a process that judges no shell command does not pay for them.
func All() (progs, subs map[string]*Spec) {
	t := specs()
	return t.progs, t.subs
}

type tables struct{ progs, subs map[string]*Spec }

// specTables are the loaded tables (nil until the first use); a lookup is
// one atomic load, the analyser's every command makes several.
var (
	specTables atomic.Pointer[tables]
	specOnce   sync.Once
)

func specs() *tables {
	if t := specTables.Load(); t != nil {
		return t
	}
	specOnce.Do(func() {
		p, s := mustLoadSpecs()
		specTables.Store(&tables{p, s})
	})
	return specTables.Load()
}

// progTable is the table of the program name, or nil.
func Prog(name string) *Spec { return specs().progs[name] }

// subTable is the table of the subcommand name ("git log"), or of the
// global options of git, go or docker; nil if there is none.
func Sub(name string) *Spec { return specs().subs[name] }

func mustLoadSpecs() (progs, subs map[string]*Spec) {
	all := map[string]*Spec{}
	files, err := fs.Glob(specFiles, "*.spec")
	if err != nil || len(files) == 0 {
		panic(fmt.Sprintf("specs: no option tables embedded: %v", err))
	}
	for _, name := range files {
		b, err := specFiles.ReadFile(name)
		if err != nil {
			panic(err)
		}
		if err := parseSpecs(string(b), all); err != nil {
			panic(fmt.Sprintf("specs: %s: %v", name, err))
		}
	}
	progs, subs = map[string]*Spec{}, map[string]*Spec{}
	for name, s := range all {
		// Sized to what they hold, as a map literal would be: the
		// analyser looks options up on every command.
		opts := make(map[string]OptKind, len(s.Opts))
		for k, v := range s.Opts {
			opts[k] = v
		}
		s.Opts = opts
		if strings.HasPrefix(name, "@") {
			continue // a set of options other tables include
		}
		if strings.Contains(name, " ") || globalTables[name] {
			subs[name] = s
		} else {
			progs[name] = s
		}
	}
	return progs, subs
}

// globalTables are the programs whose tables hold only the global
// options before a subcommand: they are subSpecs.
var globalTables = map[string]bool{"git": true, "go": true, "docker": true}

var (
	specStyles   = map[string]parseStyle{"gnu": styleGNU, "posix": stylePOSIX, "go": styleGo, "tree": styleTree, "xxd": styleXXD}
	specOperands = map[string]operandRole{"files": opFiles, "pattern-then-files": OperandsPatternThenFiles, "none": OperandsNone}
	specKinds    = map[string]OptKind{"flag": OptFlag, "value": OptValue, "optvalue": OptOptional, "read": OptRead, "value2": OptValue2, "read2": OptRead2, "deny": OptDeny}
)

// parseSpecs adds the tables of one spec file to into. A name defined
// twice, an unknown directive, a bad value or a "like" of a table not
// defined before is an error that names the line.
func parseSpecs(src string, into map[string]*Spec) error {
	var cur *Spec
	var curName string
	for n, line := range strings.Split(src, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("line %d: %s", n+1, fmt.Sprintf(format, args...))
		}
		if strings.HasPrefix(line, "[") {
			if !strings.HasSuffix(line, "]") || len(line) < 3 {
				return fail("a table's name is written [NAME]")
			}
			curName = line[1 : len(line)-1]
			if _, dup := into[curName]; dup {
				return fail("%s is defined twice", curName)
			}
			cur = &Spec{Opts: map[string]OptKind{}}
			into[curName] = cur
			continue
		}
		if cur == nil {
			return fail("a directive before the first [NAME]")
		}
		words, err := specWords(line)
		if err != nil {
			return fail("%v", err)
		}
		dir, args := words[0], words[1:]
		one := func() (string, error) {
			if len(args) != 1 {
				return "", fail("%s takes one value", dir)
			}
			return args[0], nil
		}
		switch dir {
		case "like":
			if len(args) == 0 {
				return fail("like takes a table's name")
			}
			name := strings.Join(args, " ") // "git log"
			src, ok := into[name]
			if !ok || src == cur {
				return fail("like %s: no table %s before this one", name, name)
			}
			if len(cur.Opts) > 0 || cur.MaxOperands != 0 {
				return fail("like must come first in [%s]", curName)
			}
			*cur = src.clone()
		case "include":
			name, err := one()
			if err != nil {
				return err
			}
			src, ok := into[name]
			if !ok || !strings.HasPrefix(name, "@") || src == cur {
				return fail("include %s: no set of options %s (a [@NAME]) before this table", name, name)
			}
			for o, k := range src.Opts {
				if _, dup := cur.Opts[o]; dup {
					return fail("%s (from %s) is listed twice in [%s]", o, name, curName)
				}
				cur.Opts[o] = k
			}
		case "style", "operands":
			v, err := one()
			if err != nil {
				return err
			}
			var ok bool
			if dir == "style" {
				cur.style, ok = specStyles[v]
			} else {
				cur.Operands, ok = specOperands[v]
			}
			if !ok {
				return fail("unknown %s %q", dir, v)
			}
		case "max-operands":
			v, err := one()
			if err != nil {
				return err
			}
			m, err := strconv.Atoi(v)
			if err != nil || m < -1 {
				return fail("max-operands %q: want -1 or more", v)
			}
			cur.MaxOperands = m
		case "pattern-opts", "recursive", "hidden", "follow", "recurse-value":
			if len(args) == 0 {
				return fail("%s needs at least one item", dir)
			}
			list := map[string]*[]string{"pattern-opts": &cur.PatternOpts, "recursive": &cur.Recursive, "hidden": &cur.Hidden,
				"follow": &cur.Follow, "recurse-value": &cur.RecurseValue}[dir]
			*list = append(*list, args...)
		case "default-dot", "dot-if-recursive", "num-opt", "names-only", "response-files", "stdout-second", "output-operand":
			if len(args) != 0 {
				return fail("%s takes no value", dir)
			}
			*map[string]*bool{"default-dot": &cur.DefaultDot, "dot-if-recursive": &cur.DotIfRecursive, "num-opt": &cur.numOpt,
				"names-only": &cur.NamesOnly, "response-files": &cur.ResponseFiles, "stdout-second": &cur.StdoutSecond,
				"output-operand": &cur.OutputOperand}[dir] = true
		default:
			kind, ok := specKinds[dir]
			if !ok {
				return fail("unknown directive %q", dir)
			}
			if len(args) == 0 {
				return fail("%s needs at least one option", dir)
			}
			for _, o := range args {
				if _, dup := cur.Opts[o]; dup {
					return fail("%s is listed twice in [%s]", o, curName)
				}
				cur.Opts[o] = kind
			}
		}
	}
	return nil
}

// specWords splits a directive into words; an item in double quotes may
// hold spaces.
func specWords(line string) ([]string, error) {
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			end := strings.IndexByte(line[1:], '"')
			if end < 0 {
				return nil, fmt.Errorf("an unclosed quote")
			}
			out = append(out, line[1:end+1])
			line = line[end+2:]
			continue
		}
		end := strings.IndexAny(line, " \t")
		if end < 0 {
			end = len(line)
		}
		w := line[:end]
		if strings.Contains(w, `"`) {
			return nil, fmt.Errorf("a quote inside %q", w)
		}
		out = append(out, w)
		line = line[end:]
	}
	return out, nil
}

// clone returns a deep copy of s.
func (s *Spec) clone() Spec {
	c := *s
	c.Opts = make(map[string]OptKind, len(s.Opts))
	for k, v := range s.Opts {
		c.Opts[k] = v
	}
	for _, l := range []*[]string{&c.PatternOpts, &c.Recursive, &c.Hidden, &c.Follow, &c.RecurseValue} {
		if *l != nil {
			*l = append([]string(nil), *l...)
		}
	}
	return c
}
