package shell

import (
	"strings"
)

// A progSpec describes how a read-only candidate parses its arguments, as
// data checked against the program's own --help (see specs.go and
// TestSpecsMatchHelp). Unknown options are refused: the table is an
// accept-list, so a missing option costs recall, never safety. What must be
// exact is which options take a value: a switch taken for a value-taking
// option would swallow the next word (xxd -C), an output file could pass
// as that value.

// optKind says what an option does with its value.
type optKind uint8

const (
	oFlag     optKind = iota + 1 // no value
	oValue                       // requires a value (attached, "=", or the next word); not a path
	oOptValue                    // optional value, attached only (--color[=WHEN], -i[SUF])
	oRead                        // requires a value naming a file or directory the program reads
	oValue2                      // requires two values in the next two words (jq --arg NAME VALUE)
	oRead2                       // two values, the second a file read (jq --rawfile NAME FILE)
	oDeny                        // never read-only: writes, runs code, network, editor/pager, credentials
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
	opFiles            operandRole = iota // every operand is a file or directory read
	opPatternThenFiles                    // the first operand is a pattern/script/filter unless an option supplied one; the rest are files read
	opNone                                // operands are not paths (echo, seq, expr, date +FMT, ...)
)

type progSpec struct {
	style          parseStyle
	opts           map[string]optKind // keys are spelled with their dashes: "-o", "--output"
	operands       operandRole
	patternOpts    []string // options that supply the pattern, so that every operand is a file (grep -e/-f/--regexp/--file)
	maxOperands    int      // -1: no limit; otherwise more operands are not read-only
	recursive      []string // options that make it read directories recursively ("*" when it always recurses on directory operands, as rg)
	hidden         []string // options that make a recursive read include hidden files ("*": it always does)
	follow         []string // options that make a recursive read follow links
	defaultDot     bool     // with no file operand it reads the current directory (rg, ag, find, tree, ls, du)
	dotIfRecursive bool     // with no file operand and a recursive option it reads the current directory (grep -r)
	numOpt         bool     // -NUM is an option (head -20, tail -5)
	namesOnly      bool     // it reads names and metadata, not contents (ls, find, du, stat, tree)

	recurseValue  []string // value options whose value "recurse" makes it recursive (grep -d recurse)
	responseFiles bool     // an operand @FILE names a file of further arguments (strings): refused
	stdoutSecond  bool     // a second operand "-" is standard output (xxd), not a file
	outputOperand bool     // the operand after the last one maxOperands allows is an output file (xxd, uniq)
}

// popt is an option as parsed.
type popt struct {
	key  string // canonical key ("-o", "--output")
	kind optKind
	vals []word
}

// progArgs is a command line parsed with a progSpec.
type progArgs struct {
	bad      string // the first refused or unknown option, or a parse error
	opts     []popt
	operands []word
	dashes   int // index in operands where the words after "--" start (len(operands) if none)
}

func (a *progArgs) has(keys ...string) bool {
	for _, o := range a.opts {
		for _, k := range keys {
			if o.key == k {
				return true
			}
		}
	}
	return false
}

func (a *progArgs) setBad(s string) {
	if a.bad == "" {
		a.bad = s
	}
}

// resolveLong finds a long option by its exact name or an unambiguous
// abbreviation (getopt_long). A prefix of several options is ambiguous
// unless they all are the same option kind... it is refused either way.
func (ps *progSpec) resolveLong(name string) (string, optKind, string) {
	if k, ok := ps.opts[name]; ok {
		return name, k, ""
	}
	var found string
	var kind optKind
	n := 0
	for key, k := range ps.opts {
		if strings.HasPrefix(key, name) && strings.HasPrefix(key, "--") == strings.HasPrefix(name, "--") {
			if k == oDeny {
				return key, oDeny, ""
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

// parse splits args (without argv[0]) into options and operands.
func (ps *progSpec) parse(args []word) progArgs {
	var r progArgs
	r.dashes = -1
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
		v.Pat = escapeGlob(s)
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
			r.operands = append(r.operands, w)
			if ps.style == stylePOSIX || ps.style == styleGo {
				endOpts = true
			}
			continue
		}
		if a == "--" {
			endOpts = true
			r.dashes = len(r.operands)
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
			kind, ok := ps.opts[key]
			if !ok {
				r.setBad("unknown option " + a)
				continue
			}
			o := popt{key: key, kind: kind}
			if kind == oDeny {
				r.setBad(a)
			}
			if kind == oValue || kind == oRead {
				if tail := a[2:]; tail != "" && !xxdLongName(key, tail) {
					o.vals = []word{valWord(w, tail)}
				} else if key == "-c" && strings.HasPrefix(tail, "apitalize") {
					o.key, o.kind = "-C", oFlag
				} else {
					o.vals = take(&i, 1)
				}
			}
			r.opts = append(r.opts, o)
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
			kind, ok := ps.opts["-"+name]
			if !ok {
				r.setBad("unknown option -" + name)
				continue
			}
			o := popt{key: "-" + name, kind: kind}
			switch kind {
			case oDeny:
				r.setBad(a)
			case oValue, oRead:
				if hasVal {
					o.vals = []word{valWord(w, val)}
				} else {
					o.vals = take(&i, 1)
				}
			case oFlag:
				if hasVal && val != "true" && val != "false" && val != "1" && val != "0" {
					r.setBad(a)
				}
			}
			r.opts = append(r.opts, o)
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
			o := popt{key: key, kind: kind}
			switch kind {
			case oDeny:
				r.setBad(a)
			case oFlag:
				if hasVal {
					r.setBad(a + " (takes no value)")
				}
			case oOptValue:
				if hasVal {
					o.vals = []word{valWord(w, val)}
				}
			case oValue, oRead:
				if hasVal {
					o.vals = []word{valWord(w, val)}
				} else {
					o.vals = take(&i, 1)
				}
			case oValue2, oRead2:
				o.vals = take(&i, 2)
			}
			r.opts = append(r.opts, o)
			continue
		}
		if ps.numOpt && isDigits(a[1:]) {
			r.opts = append(r.opts, popt{key: "-NUM", kind: oValue, vals: []word{valWord(w, a[1:])}})
			continue
		}
		// A cluster of short options.
		var pending []int // styleTree: value letters waiting for the next words, in order
		for j := 1; j < len(a); j++ {
			key := "-" + a[j:j+1]
			kind, ok := ps.opts[key]
			if !ok {
				r.setBad("unknown option " + key)
				break
			}
			o := popt{key: key, kind: kind}
			n := 1
			if kind == oValue2 || kind == oRead2 {
				n = 2
			}
			switch kind {
			case oDeny:
				r.setBad(key)
			case oValue, oRead, oValue2, oRead2:
				if ps.style == styleTree {
					pending = append(pending, len(r.opts))
					break
				}
				if j+1 < len(a) && n == 1 {
					o.vals = []word{valWord(w, a[j+1:])}
				} else {
					o.vals = take(&i, n)
				}
				j = len(a)
			case oOptValue:
				if j+1 < len(a) {
					o.vals = []word{valWord(w, a[j+1:])}
				}
				j = len(a)
			}
			r.opts = append(r.opts, o)
		}
		for _, k := range pending {
			n := 1
			if r.opts[k].kind == oValue2 || r.opts[k].kind == oRead2 {
				n = 2
			}
			r.opts[k].vals = take(&i, n)
		}
	}
	if r.dashes < 0 {
		r.dashes = len(r.operands)
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

// reads returns the option values that name files the program reads.
func (a *progArgs) reads() []word {
	var out []word
	for _, o := range a.opts {
		switch o.kind {
		case oRead:
			out = append(out, o.vals...)
		case oRead2:
			if len(o.vals) == 2 {
				out = append(out, o.vals[1])
			}
		}
	}
	return out
}
