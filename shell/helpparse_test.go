package shell

// A parser for the option lists that programs print with --help, used by
// TestSpecsMatchHelp (specs_help_test.go). It reads the common formats:
//
//	GNU coreutils/grep/sed/diff:  -o, --output=FILE   text      --color[=WHEN]   -I[FMT], --iso-8601[=FMT]
//	util-linux/procps/docker:     -n, --length <length>  text   --tree[=<column>]
//	ripgrep -h (clap):            -A, --after-context <NUM>   text
//	tree, xxd, jq, file, ag:      -L level   text   --arg a v   text   -A --after [LINES]   --[no]color
//	find's primaries:             -maxdepth LEVELS -mindepth LEVELS -mount
//	Usage synopses (opt-in):      [-v SPEC]   {hostname|-F file}   -V|--version
//
// Each name gets its own arity: in "-c, -C NUM, --context[=NUM]" -c is a
// switch, -C takes a value and --context an optional one. A name written
// without a value takes the value of the last long name on its line
// ("-o, --output=FILE"), except when that value is a literal: a long option
// the help lists with several values ("--check=quiet", "--indicator-style=slash"
// next to "--indicator-style=WORD") is documented value by value, and a short
// option on such a line is the long one with that value, a switch.

import (
	"regexp"
	"sort"
	"strings"
	"testing"
)

// helpArity is what a help text says an option does with a value.
type helpArity uint8

const (
	hFlag     helpArity = iota + 1 // no value
	hRequired                      // one value (--opt=V, --opt V, -o V)
	hOptional                      // an optional value, attached (--color[=WHEN], -w[BYTES])
	hTwo                           // two values in the next words (jq --arg a v)
	hShortOpt                      // a short alias of a long option with an optional value: a switch, or an optional attached value
)

func (a helpArity) String() string {
	switch a {
	case hFlag:
		return "no value"
	case hRequired:
		return "a required value"
	case hOptional:
		return "an optional value"
	case hTwo:
		return "two values"
	case hShortOpt:
		return "no value or an optional attached one"
	}
	return "?"
}

// helpOpt is an option as a help text lists it.
type helpOpt struct {
	name  string // with its dashes: "-o", "--output"
	arity helpArity
	line  string // the (first) help line that lists it, trimmed
}

// helpFormat says how to get and read a program's help.
type helpFormat struct {
	args      []string // default --help
	usage     bool     // also read the Usage synopsis ([-v SPEC], -V|--version)
	primaries bool     // find: every word after a name is a value, brackets included (-type [bcdpflsD])
	// placeholders in names and the names they stand for (diff's
	// --GTYPE-group-format: GTYPE is old, new, unchanged or changed)
	expand map[string][]string
}

// helpOcc is one occurrence of a name on a help line.
type helpOcc struct {
	name  string
	long  bool
	own   helpArity // arity written on this name, 0 if none
	eqVal string    // the value written after "=", if any
	hasEq bool
}

var (
	helpNameRE     = regexp.MustCompile(`^(--?)(\[no\])?([A-Za-z0-9?.][A-Za-z0-9_.?-]*)(.*)$`)
	helpLiteralRE  = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	helpBSDAliasRE = regexp.MustCompile(`^[A-Za-z], +`)
	helpPlaceRE    = regexp.MustCompile(`(^|-)[A-Z]{2,}(-|$)`) // NUM in -NUM, GTYPE in --GTYPE-group-format
)

// parseHelp returns the options a help text lists, sorted by name.
func parseHelp(text string, f helpFormat) []helpOpt {
	type lineOccs struct {
		line string
		occs []helpOcc
	}
	var lines []lineOccs
	for _, l := range expandHelp(strings.Split(text, "\n"), f.expand) {
		if occs := parseHelpLine(l, f.primaries); len(occs) > 0 {
			lines = append(lines, lineOccs{strings.TrimSpace(l), occs})
		}
	}
	if f.usage {
		for _, u := range usageBlocks(text) {
			if occs := parseUsage(u); len(occs) > 0 {
				lines = append(lines, lineOccs{strings.Join(strings.Fields(u), " "), occs})
			}
		}
	}
	// A long name listed with different values has literal values.
	spellings := map[string]map[string]bool{}
	for _, lo := range lines {
		for _, o := range lo.occs {
			if o.long {
				if spellings[o.name] == nil {
					spellings[o.name] = map[string]bool{}
				}
				spellings[o.name][o.eqVal] = true
			}
		}
	}
	byName := map[string]*helpOpt{}
	var names []string
	for _, lo := range lines {
		var src helpArity
		for _, o := range lo.occs {
			// a literal value (--check=quiet) is not a metavariable: it
			// does not pass to the line's other names
			literal := o.hasEq && helpLiteralRE.MatchString(o.eqVal) && len(spellings[o.name]) > 1
			if o.long && o.own != 0 && !literal {
				src = o.own
			}
		}
		for _, o := range lo.occs {
			a := o.own
			if a == 0 {
				a = hFlag
				if src != 0 {
					a = src
				}
				if !o.long && a == hOptional {
					a = hShortOpt
				}
			}
			if h := byName[o.name]; h != nil {
				h.arity = mergeArity(h.arity, a)
				continue
			}
			byName[o.name] = &helpOpt{name: o.name, arity: a, line: lo.line}
			names = append(names, o.name)
		}
	}
	sort.Strings(names)
	out := make([]helpOpt, 0, len(names))
	for _, n := range names {
		out = append(out, *byName[n])
	}
	return out
}

// expandHelp replaces a line that lists a placeholder name
// (--GTYPE-group-format) with one line per name it stands for.
func expandHelp(lines []string, expand map[string][]string) []string {
	if len(expand) == 0 {
		return lines
	}
	var out []string
	for _, l := range lines {
		ls := []string{l}
		for ph, names := range expand {
			var next []string
			for _, l := range ls {
				if !strings.Contains(l, "--"+ph) {
					next = append(next, l)
					continue
				}
				for _, n := range names {
					next = append(next, strings.Replace(l, "--"+ph, "--"+n, 1))
				}
			}
			ls = next
		}
		out = append(out, ls...)
	}
	return out
}

// mergeArity combines two listings of one name: a name listed both with and
// without a value takes an optional value (du --time, --time=WORD).
func mergeArity(a, b helpArity) helpArity {
	if a == b {
		return a
	}
	if a > b {
		a, b = b, a
	}
	switch {
	case a == hFlag && b == hShortOpt:
		return hShortOpt
	case b == hTwo || a == hTwo:
		return hTwo
	}
	return hOptional
}

// parseHelpLine reads the names of one help line: a line indented by 1 to
// 8 columns whose first word starts with "-". The option part ends at a
// gap of two spaces (unless more names follow it, as in stat's
// "-c  --format=FORMAT") or at the first word that is neither a name nor a
// value.
func parseHelpLine(line string, primaries bool) []helpOcc {
	line = strings.ReplaceAll(line, "\t", "        ")
	body := strings.TrimLeft(line, " ")
	indent := len(line) - len(body)
	if m := helpBSDAliasRE.FindString(body); m != "" {
		body = body[len(m):] // ps's "  k,    --sort": a dashless BSD alias first
	}
	if indent < 1 || indent > 8 || !strings.HasPrefix(body, "-") {
		return nil
	}
	var occs []helpOcc
	cur := -1 // index in occs of the name the value words belong to
	var vals []string
	flush := func() bool {
		ok := true
		if cur >= 0 && len(vals) > 0 {
			if a := valuesArity(vals, primaries); a != 0 {
				occs[cur].own = a
			} else {
				ok = false
			}
		}
		cur, vals = -1, nil
		return ok
	}
words:
	for _, t := range helpTokens(body) {
		switch {
		case t.gap && !strings.HasPrefix(t.s, "-"):
			break words // the description
		case t.s == "-" || t.s == "--":
			// strings' "-a - --all", jq's "--  terminates argument processing"
			if !flush() {
				break words
			}
		case strings.HasPrefix(t.s, "-"):
			o, ok := parseHelpName(t.s)
			if !ok || !flush() {
				break words
			}
			for _, n := range o {
				if helpPlaceRE.MatchString(strings.TrimLeft(n.name, "-")) {
					continue // -NUM, --GTYPE-group-format: a placeholder, not a name
				}
				occs = append(occs, n)
				if n.own == 0 {
					cur = len(occs) - 1
				}
			}
		case t.comma:
			// a dashless alias (ps's BSD letters in "-p, p, --pid <PID>"): not an option name
			if !flush() {
				break words
			}
		case t.s == ";" || t.s == "{}" || t.s == "+":
			// find's -exec COMMAND ;
		case cur >= 0:
			vals = append(vals, t.s)
		default:
			break words // a word after a name with an attached value: the description
		}
	}
	flush()
	return occs
}

// valuesArity is the arity the value words after a name give it, 0 when
// they are too many to be values (a description after a single space).
func valuesArity(vals []string, primaries bool) helpArity {
	one := hRequired
	if !primaries && bracketOnly(vals[0]) {
		one = hOptional // ag's "-A --after [LINES]"
	}
	switch {
	case len(vals) == 1:
		return one
	case len(vals) == 2 && (metavar(vals[1]) || len(vals[1]) <= 2):
		return hTwo // jq's "--arg a v", find's "-fprintf FILE FORMAT"
	case metavar(vals[0]):
		// the description follows the value after one space:
		// "-E, --dedup <column> de-duplicate output by <column>"
		return one
	}
	return 0 // "-I, --all-ip-addresses all addresses for the host"
}

// metavar: the word looks like a value placeholder: <list>, [LINES],
// {o,d,x}, FILE, N[bcwkMG], #.
func metavar(s string) bool {
	return s != "" && (strings.IndexByte("<[{", s[0]) >= 0 || strings.ToUpper(s) == s)
}

// bracketOnly: the word is one or more [...] groups and nothing else.
func bracketOnly(s string) bool {
	return s != "" && stripBrackets(s) == ""
}

// stripBrackets removes leading [...] groups.
func stripBrackets(s string) string {
	for strings.HasPrefix(s, "[") {
		d, i := 0, 0
		for ; i < len(s); i++ {
			if s[i] == '[' {
				d++
			} else if s[i] == ']' {
				d--
				if d == 0 {
					break
				}
			}
		}
		if i >= len(s) {
			return s
		}
		s = s[i+1:]
	}
	return s
}

// parseHelpName reads a name word with its attached value: "--output=FILE",
// "--color[=WHEN]", "-I[FMT]", "--sort[=]<name>", "--[no]color".
func parseHelpName(s string) ([]helpOcc, bool) {
	m := helpNameRE.FindStringSubmatch(s)
	if m == nil {
		return nil, false
	}
	dash, no, name, rest := m[1], m[2], m[3], m[4]
	o := helpOcc{name: dash + name, long: dash == "--"}
	switch {
	case rest == "":
	case strings.HasPrefix(rest, "="):
		o.own, o.hasEq, o.eqVal = hRequired, true, rest[1:]
	case strings.HasPrefix(rest, "["):
		if stripBrackets(rest) == "" {
			o.own = hOptional
		} else {
			o.own = hRequired // --gitfile[=]file, --sort[=]<name>
		}
	case strings.HasPrefix(rest, "<"):
		o.own = hRequired
	default:
		return nil, false
	}
	occs := []helpOcc{o}
	if no != "" {
		n := o
		n.name = dash + "no" + name
		occs = append(occs, n)
	}
	return occs, true
}

// helpTok is a word of an option part.
type helpTok struct {
	s     string
	comma bool // a comma came before it
	gap   bool // two spaces or more came before it
}

// helpTokens splits the option part of a line into words at spaces and
// commas outside <...>, [...] and {...}.
func helpTokens(s string) []helpTok {
	var toks []helpTok
	comma, spaces := false, 0
	for i := 0; i < len(s); {
		switch s[i] {
		case ' ':
			spaces++
			i++
			continue
		case ',':
			comma = true
			i++
			continue
		}
		j, depth := i, 0
		for ; j < len(s); j++ {
			c := s[j]
			if depth == 0 && (c == ' ' || c == ',') {
				break
			}
			switch c {
			case '<', '[', '{':
				depth++
			case '>', ']', '}':
				if depth > 0 {
					depth--
				}
			}
		}
		toks = append(toks, helpTok{s: s[i:j], comma: comma, gap: spaces >= 2})
		comma, spaces = false, 0
		i = j
	}
	return toks
}

// usageBlocks returns the Usage synopses of a help text: a line starting
// with "usage:" and the indented or blank lines after it.
func usageBlocks(text string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(strings.ToLower(strings.TrimSpace(l)), "usage:"):
			if in {
				blocks = append(blocks, strings.Join(cur, "\n"))
			}
			in, cur = true, []string{strings.TrimSpace(l)[len("usage:"):]}
		case in && (strings.TrimSpace(l) == "" || l[0] == ' ' || l[0] == '\t'):
			cur = append(cur, l)
		case in:
			blocks = append(blocks, strings.Join(cur, "\n"))
			in, cur = false, nil
		}
	}
	if in {
		blocks = append(blocks, strings.Join(cur, "\n"))
	}
	return blocks
}

// parseUsage reads the names of a synopsis: "[-b]", "[-v SPEC]",
// "{hostname|-F file}", "-V|--version|-h|--help". A word after a name
// inside the same [...] or {...} group is its value.
func parseUsage(s string) []helpOcc {
	type item struct {
		s   string
		sep bool
	}
	var items []item
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case strings.IndexByte("[]{}|", c) >= 0:
			items = append(items, item{s: s[i : i+1], sep: true})
			i++
			continue
		case c == ' ' || c == '\t' || c == '\n':
			i++
			continue
		}
		j := i
		for j < len(s) && strings.IndexByte("[]{}| \t\n", s[j]) < 0 {
			j++
		}
		// keep "--opt[=]value" and "--opt[=VALUE]" in one word
		if j < len(s) && s[i] == '-' && strings.HasPrefix(s[j:], "[=") {
			if k := strings.IndexByte(s[j:], ']'); k >= 0 {
				j += k + 1
				for j < len(s) && strings.IndexByte("[]{}| \t\n", s[j]) < 0 {
					j++
				}
			}
		}
		items = append(items, item{s: s[i:j]})
		i = j
	}
	var occs []helpOcc
	depth := 0
	for i, it := range items {
		if it.sep {
			switch it.s {
			case "[", "{":
				depth++
			case "]", "}":
				depth--
			}
			continue
		}
		if !strings.HasPrefix(it.s, "-") {
			continue
		}
		o, ok := parseHelpName(it.s)
		if !ok {
			continue
		}
		for j := range o {
			switch {
			case o[j].own != 0:
			case depth > 0 && i+1 < len(items) && !items[i+1].sep && !strings.HasPrefix(items[i+1].s, "-"):
				o[j].own = hRequired
			default:
				o[j].own = hFlag // no inheritance in a synopsis
			}
		}
		occs = append(occs, o...)
	}
	return occs
}

func TestHelpParse(t *testing.T) {
	type want map[string]helpArity
	for _, c := range []struct {
		name string
		f    helpFormat
		text string
		want want
	}{
		{"gnu coreutils", helpFormat{}, `Usage: ls [OPTION]... [FILE]...
List information about the FILEs (the current directory by default).

Mandatory arguments to long options are mandatory for short options too.
  -a, --all                  do not ignore entries starting with .
      --block-size=SIZE      with -l, scale sizes by SIZE when printing them;
                               e.g., '--block-size=M'; see SIZE format below
      --color[=WHEN]         color the output WHEN; more info below
  -F, --classify[=WHEN]      append indicator (one of */=>@|) to entries WHEN
      --indicator-style=WORD
                             append indicator with style WORD to entry names:
                               none (default), slash (-p),
  -p, --indicator-style=slash
                             append / indicator to directories
  -T, --tabsize=COLS         assume tab stops at each COLS instead of 8
  -q, --quiet, --silent      never print headers giving file names
  -n, --lines=[-]NUM         print the first NUM lines instead of the first 10;
      --help        display this help and exit
--terse is equivalent to the following FORMAT:
  -M    from first to M'th (included) byte, character or field
`, want{"-a": hFlag, "--all": hFlag, "--block-size": hRequired, "--color": hOptional, "-F": hShortOpt, "--classify": hOptional,
			"--indicator-style": hRequired, "-p": hFlag, "-T": hRequired, "--tabsize": hRequired, "-q": hFlag, "--quiet": hFlag, "--silent": hFlag,
			"-n": hRequired, "--lines": hRequired, "--help": hFlag, "-M": hFlag}},

		{"gnu aliases with their own values", helpFormat{expand: map[string][]string{"GTYPE": {"old", "new"}}}, `
  -c, -C NUM, --context[=NUM]   output NUM (default 3) lines of copied context
  -I[FMT], --iso-8601[=FMT]  output date/time in ISO 8601 format.
  -S BYTES, --strings[=BYTES]  output strings of at least BYTES graphic chars;
  -e script, --expression=script
  -c  --format=FORMAT   use the specified FORMAT instead of the default;
      --GTYPE-group-format=GFMT   format GTYPE input groups with GFMT
  -NUM                      same as --context=NUM
  -  (hyphen) do not pad the field
`, want{"-c": hOptional, "-C": hRequired, "--context": hOptional, "-I": hOptional, "--iso-8601": hOptional, "-S": hRequired,
			"--strings": hOptional, "-e": hRequired, "--expression": hRequired, "--format": hRequired,
			"--old-group-format": hRequired, "--new-group-format": hRequired}},
		// -c is both "-c, -C NUM, --context[=NUM]" (a switch, from --context) and stat's "-c  --format=FORMAT" (a value): merged, optional

		{"literal values and a name listed twice", helpFormat{}, `
  -c, --check, --check=diagnose-first  check for sorted input; do not sort
  -C, --check=quiet, --check=silent  like -c, but do not report first bad line
      --time            show time of the last modification of any file in the
      --time=WORD       show time as WORD instead of modification time:
  -i, --ignore-initial=SKIP         skip first SKIP bytes of both inputs
  -i, --ignore-initial=SKIP1:SKIP2  skip first SKIP1 bytes of FILE1 and
`, want{"-c": hFlag, "-C": hFlag, "--check": hOptional, "--time": hOptional, "-i": hRequired, "--ignore-initial": hRequired}},

		{"util-linux and procps", helpFormat{}, `
Options:
 -E, --dedup <column> de-duplicate output by <column>
 -T, --tree[=<column>] use tree format output
 -L, --color[=<mode>]      interpret color formatting specifiers
 -s N, --seconds N   repeat printing every N seconds
 -p, p, --pid <PID>   process id
     --cols, --columns, --width <num>
 -M, Z                add security data (for SELinux)
  f, --forest         ascii art process tree
 -I, --all-ip-addresses all addresses for the host
 -?, --help                 Give this help list
`, want{"-E": hRequired, "--dedup": hRequired, "-T": hShortOpt, "--tree": hOptional, "-L": hShortOpt, "--color": hOptional,
			"-s": hRequired, "--seconds": hRequired, "-p": hRequired, "--pid": hRequired, "--cols": hRequired, "--columns": hRequired,
			"--width": hRequired, "-M": hFlag, "--forest": hFlag, "-I": hFlag, "--all-ip-addresses": hFlag, "-?": hFlag, "--help": hFlag}},

		{"ripgrep -h", helpFormat{}, `ripgrep 13.0.0
USAGE:
    rg [OPTIONS] PATTERN [PATH ...]

ARGS:
    <PATTERN>    A regular expression used for searching.

OPTIONS:
    -A, --after-context <NUM>                    Show NUM lines after each match.
        --auto-hybrid-regex                      Dynamically use PCRE2 if necessary.
    -f, --file <PATTERNFILE>...                  Search for patterns from the given file.
    -., --hidden                                 Search hidden files and directories.
        --pre <COMMAND>                          search outputs of COMMAND FILE for each FILE
            --color flag changes to 'never'.
`, want{"-A": hRequired, "--after-context": hRequired, "--auto-hybrid-regex": hFlag, "-f": hRequired, "--file": hRequired,
			"-.": hFlag, "--hidden": hFlag, "--pre": hRequired}},

		{"tree", helpFormat{}, "usage: tree [-acdfghilnpqrstuvxACDFJQNSUX] [-L level [-R]] [-H  baseHREF]\n\t[-T title] [-o filename] [--gitfile[=]file]\n" + `  ------- Listing options -------
  -a            All files are listed.
  -L level      Descend only level directories deep.
  --gitfile X   Explicitly read gitignore file.
  --filelimit # Do not descend dirs with more than # files in them.
  --timefmt <f> Print and format time according to the format <f>.
  -o filename   Output to file instead of stdout.
  --            Options processing terminator.
`, want{"-a": hFlag, "-L": hRequired, "--gitfile": hRequired, "--filelimit": hRequired, "--timefmt": hRequired, "-o": hRequired}},

		{"xxd", helpFormat{}, `Usage:
       xxd [options] [infile [outfile]]
Options:
    -a          toggle autoskip: A single '*' replaces nul-lines. Default off.
    -C          capitalize variable names in C include file style (-i).
    -c cols     format <cols> octets per line. Default 16 (-i: 12, -ps: 30).
    -ps         output in postscript plain hexdump style.
    -r -s off   revert with <off> added to file positions found in hexdump.
    -s [+][-]seek  start at <seek> bytes abs. (or +: rel.) infile offset.
`, want{"-a": hFlag, "-C": hFlag, "-c": hRequired, "-ps": hFlag, "-r": hFlag, "-s": hRequired}},

		{"jq, file, ag, strings", helpFormat{}, `
  -c               compact instead of pretty-printed output;
  --arg a v        set variable $a to value <v>;
  --rawfile a f    set variable $a to a string consisting of the contents of <f>;
  --               terminates argument processing;
  -m, --magic-file LIST      use LIST as a colon-separated list of magic
  -A --after [LINES]      Print lines after match (Default: 2)
     --[no]break          Print newlines between matches in different files
  -g --filename-pattern PATTERN
  -a - --all                Scan the entire file, not just the data section [default]
  -w --include-all-whitespace Include all whitespace as valid string characters
  -e --encoding={s,S,b,l,B,L} Select character size and endianness:
  -U {d|s|i|x|e|h}          Specify how to treat UTF-8 encoded unicode characters
  -v -V --version           Print the program's version number
`, want{"-c": hFlag, "--arg": hTwo, "--rawfile": hTwo, "-m": hRequired, "--magic-file": hRequired, "-A": hShortOpt, "--after": hOptional,
			"--break": hFlag, "--nobreak": hFlag, "-g": hRequired, "--filename-pattern": hRequired, "-a": hFlag, "--all": hFlag,
			"-w": hFlag, "--include-all-whitespace": hFlag, "-e": hRequired, "--encoding": hRequired, "-U": hRequired,
			"-v": hFlag, "-V": hFlag, "--version": hFlag}},

		{"cobra (docker, gh)", helpFormat{}, `
FLAGS
  -a, --all             Show all containers (default shows just running)
  -f, --filter filter   Filter output based on conditions provided
  -R, --repo [HOST/]OWNER/REPO   Select another repository using the [HOST/]OWNER/REPO format
`, want{"-a": hFlag, "--all": hFlag, "-f": hRequired, "--filter": hRequired, "-R": hRequired, "--repo": hRequired}},

		{"find primaries", helpFormat{primaries: true}, `
Operators (decreasing precedence; -and is implicit where no others are given):
      ( EXPR )   ! EXPR   -not EXPR   EXPR1 -a EXPR2   EXPR1 -and EXPR2
Normal options (always true, specified before other expressions):
      -depth -files0-from FILE -maxdepth LEVELS
      -wholename PATTERN -size N[bcwkMG] -true -type [bcdpflsD]
      -delete -printf FORMAT -fprintf FILE FORMAT -print 
      -exec COMMAND ; -exec COMMAND {} + -ok COMMAND ;
`, want{"-depth": hFlag, "-files0-from": hRequired, "-maxdepth": hRequired, "-wholename": hRequired, "-size": hRequired,
			"-true": hFlag, "-type": hRequired, "-delete": hFlag, "-printf": hRequired, "-fprintf": hTwo, "-print": hFlag,
			"-exec": hRequired, "-ok": hRequired}},

		{"usage synopsis", helpFormat{usage: true}, `Usage: hostname [-b] {hostname|-F file}         set host name (from file)
       hostname [-a|-A|-d]       display formatted name

       hostname -V|--version|-h|--help          print info and exit

Program options:
    -b, --boot             set default hostname if none available
usage: git [-v | --version] [-C <path>] [-c <name>=<value>]
           [--exec-path[=<path>]] [--git-dir=<path>]
  or:  getconf [-v SPEC] VAR
`, want{"-b": hFlag, "--boot": hFlag, "-F": hRequired, "-a": hFlag, "-A": hFlag, "-d": hFlag, "-V": hFlag, "--version": hFlag,
			"-h": hFlag, "--help": hFlag, "-v": hOptional, "-C": hRequired, "-c": hRequired, "--exec-path": hOptional, "--git-dir": hRequired}},
		// -v: a switch in git's synopsis, a value in getconf's (both in one block here): merged, optional
	} {
		t.Run(c.name, func(t *testing.T) {
			got := map[string]helpArity{}
			for _, o := range parseHelp(c.text, c.f) {
				got[o.name] = o.arity
			}
			for n, a := range c.want {
				if got[n] != a {
					t.Errorf("%s: got %v, want %v", n, got[n], a)
				}
			}
			for n, a := range got {
				if _, ok := c.want[n]; !ok {
					t.Errorf("%s: parsed (%v), not expected", n, a)
				}
			}
		})
	}
}
