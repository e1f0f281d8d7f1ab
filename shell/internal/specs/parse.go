package specs

import (
	"strings"

	"github.com/toolscope/toolscope/shell/internal/unquote"
)

// word is a normalised argument (package unquote).
type word = unquote.Word

// A Spec describes how a read-only candidate parses its arguments, as
// data checked against the program's own --help (see specs.go and
// TestSpecsMatchHelp). Unknown options are refused: the table is an
// accept-list, so a missing option costs recall, never safety. What must be
// exact is which options take a value: a switch taken for a value-taking
// option would swallow the next word (xxd -C), an output file could pass
// as that value.

// OptKind says what an option does with its value.
type OptKind uint8

const (
	OptFlag     OptKind = iota + 1 // no value
	OptValue                       // requires a value (attached, "=", or the next word); not a path
	OptOptional                    // optional value, attached only (--color[=WHEN], -i[SUF])
	OptRead                        // requires a value naming a file or directory the program reads
	OptValue2                      // requires two values in the next two words (jq --arg NAME VALUE)
	OptRead2                       // two values, the second a file read (jq --rawfile NAME FILE)
	OptDeny                        // never read-only: writes, runs code, network, editor/pager, credentials
)

// parseStyle is how a program parses its command line.
type parseStyle uint8

const (
	styleGNU   parseStyle = iota // getopt_long: clusters (-abc, -ofile), --long, --long=v, unambiguous abbreviations, options anywhere before --
	stylePOSIX                   // like GNU but options end at the first operand
	styleGo                      // Go's flag package: -x and --x alike, -x=v, no clusters, options end at the first operand
	styleTree                    // tree: clusters whose value-taking letters each take the NEXT word, in order
	styleXXD                     // xxd's own parser: single-dash options matched by unambiguous prefix, values attached or next
)

// operandRole says what a program's operands are.
type operandRole uint8

const (
	opFiles                  operandRole = iota // every operand is a file or directory read
	OperandsPatternThenFiles                    // the first operand is a pattern/script/filter unless an option supplied one; the rest are files read
	OperandsNone                                // operands are not paths (echo, seq, expr, date +FMT, ...)
)

// Spec is one program's table (or a subcommand's, or a set of options
// other tables include).
type Spec struct {
	style          parseStyle
	Opts           map[string]OptKind // keys are spelled with their dashes: "-o", "--output"
	Operands       operandRole
	PatternOpts    []string // options that supply the pattern, so that every operand is a file (grep -e/-f/--regexp/--file)
	MaxOperands    int      // -1: no limit; otherwise more operands are not read-only
	Recursive      []string // options that make it read directories recursively ("*" when it always recurses on directory operands, as rg)
	Hidden         []string // options that make a recursive read include hidden files ("*": it always does)
	Follow         []string // options that make a recursive read follow links
	DefaultDot     bool     // with no file operand it reads the current directory (rg, ag, find, tree, ls, du)
	DotIfRecursive bool     // with no file operand and a recursive option it reads the current directory (grep -r)
	numOpt         bool     // -NUM is an option (head -20, tail -5)
	NamesOnly      bool     // it reads names and metadata, not contents (ls, find, du, stat, tree)

	RecurseValue  []string // value options whose value "recurse" makes it recursive (grep -d recurse)
	ResponseFiles bool     // an operand @FILE names a file of further arguments (strings): refused
	StdoutSecond  bool     // a second operand "-" is standard output (xxd), not a file
	OutputOperand bool     // the operand after the last one maxOperands allows is an output file (xxd, uniq)
}

// popt is an option as parsed.
type popt struct {
	Key  string // canonical key ("-o", "--output")
	kind OptKind
	Vals []word
}

// Args is a command line parsed with a Spec.
type Args struct {
	Bad      string // the first refused or unknown option, or a parse error
	Opts     []popt
	Operands []word
	Dashes   int // index in operands where the words after "--" start (len(operands) if none)
}

func (a *Args) Has(keys ...string) bool {
	for _, o := range a.Opts {
		for _, k := range keys {
			if o.Key == k {
				return true
			}
		}
	}
	return false
}

func (a *Args) setBad(s string) {
	if a.Bad == "" {
		a.Bad = s
	}
}

// ResolveLong finds a long option by its exact name or an unambiguous
// abbreviation (getopt_long). A prefix of several options is ambiguous
// unless they all are the same option kind... it is refused either way.
func (ps *Spec) resolveLong(name string) (string, OptKind, string) {
	if k, ok := ps.Opts[name]; ok {
		return name, k, ""
	}
	var found string
	var kind OptKind
	n := 0
	for key, k := range ps.Opts {
		if strings.HasPrefix(key, name) && strings.HasPrefix(key, "--") == strings.HasPrefix(name, "--") {
			if k == OptDeny {
				return key, OptDeny, ""
			}
			n++
			found, kind = key, k
		}
	}
	switch n {
	case 1:
		return found, kind, ""
	case 0:
		return name, 0, "unknown option " + name
	}
	return name, 0, "ambiguous option " + name
}

// Parse splits args (without argv[0]) into options and operands.
func (ps *Spec) Parse(args []word) Args {
	var r Args
	r.Dashes = -1
	take := func(i *int, n int) []word {
		var vals []word
		for k := 0; k < n; k++ {
			if *i+1 >= len(args) {
				r.setBad("missing value")
				return vals
			}
			*i++
			vals = append(vals, args[*i])
		}
		return vals
	}
	valWord := func(w word, s string) word {
		v := w
		v.Value = s
		v.Pat = unquote.EscapeGlob(s)
		v.Glob, v.Tilde = false, false // no ~ or glob expansion inside an option word
		return v
	}
	endOpts := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		a := w.Value
		if endOpts || !w.Literal || len(a) < 2 || a[0] != '-' {
			// A non-literal word may start with "-" at run time; callers
			// never take such a command for read-only.
			r.Operands = append(r.Operands, w)
			if ps.style == stylePOSIX || ps.style == styleGo {
				endOpts = true
			}
			continue
		}
		if a == "--" {
			endOpts = true
			r.Dashes = len(r.Operands)
			continue
		}
		if ps.style == styleXXD {
			if a == "-" || a[0] != '-' {
				endOpts = true
				i--
				continue
			}
			if strings.HasPrefix(a, "--") {
				a = a[1:] // xxd reads --c8 as -c8
			}
			key := a[:2]
			kind, ok := ps.Opts[key]
			if !ok {
				r.setBad("unknown option " + a)
				continue
			}
			o := popt{Key: key, kind: kind}
			if kind == OptDeny {
				r.setBad(a)
			}
			if kind == OptValue || kind == OptRead {
				if tail := a[2:]; tail != "" && !xxdLongName(key, tail) {
					o.Vals = []word{valWord(w, tail)}
				} else if key == "-c" && strings.HasPrefix(tail, "apitalize") {
					o.Key, o.kind = "-C", OptFlag
				} else {
					o.Vals = take(&i, 1)
				}
			}
			r.Opts = append(r.Opts, o)
			continue
		}
		if ps.style == styleGo {
			name := strings.TrimLeft(a, "-")
			if strings.HasPrefix(a, "---") || name == "" {
				r.setBad("bad flag " + a)
				continue
			}
			val, hasVal := "", false
			if eq := strings.IndexByte(name, '='); eq >= 0 {
				name, val, hasVal = name[:eq], name[eq+1:], true
			}
			kind, ok := ps.Opts["-"+name]
			if !ok {
				r.setBad("unknown option -" + name)
				continue
			}
			o := popt{Key: "-" + name, kind: kind}
			switch kind {
			case OptDeny:
				r.setBad(a)
			case OptValue, OptRead:
				if hasVal {
					o.Vals = []word{valWord(w, val)}
				} else {
					o.Vals = take(&i, 1)
				}
			case OptFlag:
				if hasVal && val != "true" && val != "false" && val != "1" && val != "0" {
					r.setBad(a)
				}
			}
			r.Opts = append(r.Opts, o)
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := a, "", false
			if eq := strings.IndexByte(name, '='); eq >= 0 {
				name, val, hasVal = name[:eq], name[eq+1:], true
			}
			key, kind, why := ps.resolveLong(name)
			if why != "" {
				r.setBad(why)
				continue
			}
			o := popt{Key: key, kind: kind}
			switch kind {
			case OptDeny:
				r.setBad(a)
			case OptFlag:
				if hasVal {
					r.setBad(a + " (takes no value)")
				}
			case OptOptional:
				if hasVal {
					o.Vals = []word{valWord(w, val)}
				}
			case OptValue, OptRead:
				if hasVal {
					o.Vals = []word{valWord(w, val)}
				} else {
					o.Vals = take(&i, 1)
				}
			case OptValue2, OptRead2:
				o.Vals = take(&i, 2)
			}
			r.Opts = append(r.Opts, o)
			continue
		}
		if ps.numOpt && allDigits(a[1:]) {
			r.Opts = append(r.Opts, popt{Key: "-NUM", kind: OptValue, Vals: []word{valWord(w, a[1:])}})
			continue
		}
		// A cluster of short options.
		var pending []int // styleTree: value letters waiting for the next words, in order
		for j := 1; j < len(a); j++ {
			key := "-" + a[j:j+1]
			kind, ok := ps.Opts[key]
			if !ok {
				r.setBad("unknown option " + key)
				break
			}
			o := popt{Key: key, kind: kind}
			n := 1
			if kind == OptValue2 || kind == OptRead2 {
				n = 2
			}
			switch kind {
			case OptDeny:
				r.setBad(key)
			case OptValue, OptRead, OptValue2, OptRead2:
				if ps.style == styleTree {
					pending = append(pending, len(r.Opts))
					break
				}
				if j+1 < len(a) && n == 1 {
					o.Vals = []word{valWord(w, a[j+1:])}
				} else {
					o.Vals = take(&i, n)
				}
				j = len(a)
			case OptOptional:
				if j+1 < len(a) {
					o.Vals = []word{valWord(w, a[j+1:])}
				}
				j = len(a)
			}
			r.Opts = append(r.Opts, o)
		}
		for _, k := range pending {
			n := 1
			if r.Opts[k].kind == OptValue2 || r.Opts[k].kind == OptRead2 {
				n = 2
			}
			r.Opts[k].Vals = take(&i, n)
		}
	}
	if r.Dashes < 0 {
		r.Dashes = len(r.Operands)
	}
	return r
}

// xxdLongName reports whether tail (what follows the two letters of an xxd
// option word) spells the option's long name, which takes its value from
// the next word, rather than an attached value.
func xxdLongName(key, tail string) bool {
	names := map[string][]string{"-c": {"ols", "apitalize"}, "-g": {"roup"}, "-o": {"ffset"}, "-s": {"kip", "eek"}, "-l": {"en"}, "-n": {"ame"}}
	for _, n := range names[key] {
		if strings.HasPrefix(tail, n) {
			return true
		}
	}
	return false
}

// Reads returns the option values that name files the program reads.
func (a *Args) Reads() []word {
	var out []word
	for _, o := range a.Opts {
		switch o.kind {
		case OptRead:
			out = append(out, o.Vals...)
		case OptRead2:
			if len(o.Vals) == 2 {
				out = append(out, o.Vals[1])
			}
		}
	}
	return out
}

// allDigits reports a non-empty string of ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
