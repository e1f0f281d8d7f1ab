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
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
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
// A process reads only the tables it uses: the first lookup indexes the
// files (where each [NAME] starts, a scan for "[" lines), and a table is
// parsed at its first lookup, with the tables it names in like and
// include. A check of `git status` parses three tables, not 140.

// specSources are the spec files, in the order their tables are defined:
// a like or include names a table defined before it, in an earlier file
// or above in the same one. TestSpecSourcesAreTheFiles holds the list to
// the *.spec files beside this one.
var specSources = []struct{ name, src string }{
	{"coreutils.spec", coreutilsSpec},
	{"git.spec", gitSpec},
	{"packages.spec", packagesSpec},
	{"search.spec", searchSpec},
	{"services.spec", servicesSpec},
	{"tools.spec", toolsSpec},
}

var (
	//go:embed coreutils.spec
	coreutilsSpec string
	//go:embed git.spec
	gitSpec string
	//go:embed packages.spec
	packagesSpec string
	//go:embed search.spec
	searchSpec string
	//go:embed services.spec
	servicesSpec string
	//go:embed tools.spec
	toolsSpec string
)

// All returns the programs' tables and the subcommands' ("git
// log", "go env", "docker ps"; "git", "go" and "docker" hold the global
// options before the subcommand). It parses every table: the analyser
// looks tables up one by one ([Prog], [Sub]); All is for tests.
func All() (progs, subs map[string]*Spec) {
	t := allTables()
	return t.progs, t.subs
}

type tables struct{ progs, subs map[string]*Spec }

var allTables = sync.OnceValue(func() tables {
	progs, subs := map[string]*Spec{}, map[string]*Spec{}
	for name, t := range specIndex() {
		switch {
		case strings.HasPrefix(name, "@"):
			t.get() // a set of options other tables include: parsed, not listed
		case isSub(name):
			subs[name] = t.get()
		default:
			progs[name] = t.get()
		}
	}
	return tables{progs, subs}
})

// isSub reports whether name is a subcommand's table, or git's, go's or
// docker's (the global options before the subcommand): a [Sub], not a
// [Prog].
func isSub(name string) bool {
	return strings.Contains(name, " ") || name == "git" || name == "go" || name == "docker"
}

// Prog is the table of the program name, or nil.
func Prog(name string) *Spec {
	if t := specIndex()[name]; t != nil && !isSub(name) && !strings.HasPrefix(name, "@") {
		return t.get()
	}
	return nil
}

// Sub is the table of the subcommand name ("git log"), or of the global
// options of git, go or docker; nil if there is none.
func Sub(name string) *Spec {
	if t := specIndex()[name]; t != nil && isSub(name) {
		return t.get()
	}
	return nil
}

// A table is one [NAME] of a spec file, parsed at its first get.
type table struct {
	name  string
	file  string // the spec file, for errors
	line  int    // the line of its [NAME]
	body  string // the lines after [NAME], up to the next table
	order int    // its place among all tables: like and include name earlier ones
	index map[string]*table

	once sync.Once
	spec *Spec
	err  any // what parsing it (or a table it names) panicked with
}

// get returns the parsed table. The shipped files parse (every test that
// calls [All] parses them all): an error panics, at every get, as a
// broken table must never pass for a missing one.
func (t *table) get() *Spec {
	t.once.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				t.err = r
			}
		}()
		s := &Spec{Opts: map[string]OptKind{}}
		err := parseBody(s, t.name, t.line, t.body, func(name string) *Spec {
			if u := t.index[name]; u != nil && u.order < t.order {
				return u.get()
			}
			return nil
		})
		if err != nil {
			panic(fmt.Sprintf("specs: %s: %v", t.file, err))
		}
		// Sized to what it holds, as a map literal would be: the
		// analyser looks options up on every command.
		opts := make(map[string]OptKind, len(s.Opts))
		for k, v := range s.Opts {
			opts[k] = v
		}
		s.Opts = opts
		t.spec = s
	})
	if t.err != nil {
		panic(t.err)
	}
	return t.spec
}

// specIndex is every table by name, unparsed; a file whose structure is
// broken (a name defined twice, a directive before the first [NAME])
// panics.
var specIndex = sync.OnceValue(indexSpecs)

func indexSpecs() map[string]*table {
	index := make(map[string]*table, 160)
	for _, f := range specSources {
		err := scanTables(f.src, func(name string, line int, body string) error {
			if _, dup := index[name]; dup {
				return fmt.Errorf("line %d: %s is defined twice", line, name)
			}
			index[name] = &table{name: name, file: f.name, line: line, body: body, order: len(index), index: index}
			return nil
		})
		if err != nil {
			panic(fmt.Sprintf("specs: %s: %v", f.name, err))
		}
	}
	return index
}

var (
	specStyles   = map[string]parseStyle{"gnu": styleGNU, "posix": stylePOSIX, "go": styleGo, "tree": styleTree, "xxd": styleXXD}
	specOperands = map[string]operandRole{"files": opFiles, "pattern-then-files": OperandsPatternThenFiles, "none": OperandsNone}
	specKinds    = map[string]OptKind{"flag": OptFlag, "value": OptValue, "optvalue": OptOptional, "read": OptRead, "value2": OptValue2, "read2": OptRead2, "deny": OptDeny}
)

// parseSpecs adds the tables of one spec file to into, in order: a like
// or include names a table already in into. A name defined twice, an
// unknown directive, a bad value or a "like" of a table not defined before
// is an error that names the line.
func parseSpecs(src string, into map[string]*Spec) error {
	return scanTables(src, func(name string, line int, body string) error {
		if _, dup := into[name]; dup {
			return fmt.Errorf("line %d: %s is defined twice", line, name)
		}
		cur := &Spec{Opts: map[string]OptKind{}}
		into[name] = cur
		return parseBody(cur, name, line, body, func(n string) *Spec {
			if s := into[n]; s != cur {
				return s
			}
			return nil
		})
	})
}

// scanTables calls table for each [NAME] of src, in order, with the line
// of its [NAME] and its body (the lines up to the next table), and stops at
// its first error. A directive before the first [NAME], or a [NAME]
// written wrong, is an error that names the line.
func scanTables(src string, table func(name string, line int, body string) error) error {
	name, nameLine, bodyStart := "", 0, 0
	n := 0
	for pos := 0; pos < len(src); {
		end := strings.IndexByte(src[pos:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += pos
		}
		line := src[pos:end]
		lineStart := pos
		pos = end + 1
		n++
		// Most lines start with a directive's letter: such a line is a
		// directive, seen without scanning it. Other lines (a comment, a
		// [NAME], leading space) are cut at "#" and trimmed.
		if c := firstByte(line); c == '#' {
			continue
		} else if c < utf8.RuneSelf && c != '[' && !asciiSpace[c] {
			if name == "" {
				return fmt.Errorf("line %d: a directive before the first [NAME]", n)
			}
			continue
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "[") {
			if name == "" {
				return fmt.Errorf("line %d: a directive before the first [NAME]", n)
			}
			continue
		}
		if name != "" {
			if err := table(name, nameLine, src[bodyStart:lineStart]); err != nil {
				return err
			}
		}
		if !strings.HasSuffix(line, "]") || len(line) < 3 {
			return fmt.Errorf("line %d: a table's name is written [NAME]", n)
		}
		name, nameLine, bodyStart = line[1:len(line)-1], n, min(pos, len(src))
	}
	if name != "" {
		return table(name, nameLine, src[bodyStart:])
	}
	return nil
}

// asciiSpace are the ASCII bytes strings.TrimSpace trims.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// firstByte is s[0], or a space for "".
func firstByte(s string) byte {
	if s == "" {
		return ' '
	}
	return s[0]
}

// parseBody reads the directives of the table [curName] (its body, whose
// first line follows line nameLine) into cur. earlier returns a table
// defined before this one, or nil.
func parseBody(cur *Spec, curName string, nameLine int, body string, earlier func(name string) *Spec) error {
	n := nameLine
	for rest := body; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		n++
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("line %d: %s", n, fmt.Sprintf(format, args...))
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
			src := earlier(name)
			if src == nil {
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
			src := earlier(name)
			if src == nil || !strings.HasPrefix(name, "@") {
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
