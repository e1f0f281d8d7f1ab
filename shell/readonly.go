package shell

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/toolscope/toolscope/internal/bashglob"
	"github.com/toolscope/toolscope/internal/pathpolicy"
	"github.com/toolscope/toolscope/shell/internal/specs"
	"github.com/toolscope/toolscope/shell/internal/unquote"
)

// leafKind is what a simple command does to the filesystem, judged before
// its paths: taint (see taint) depends on it.
type leafKind uint8

const (
	kindOther leafKind = iota // may change the filesystem's layout: create links, move trees, run anything
	kindRead                  // a read-only tool with read-only options (its paths are judged later)
	kindEdit                  // creates, changes or removes regular files and directories, never links
	kindCd                    // cd, pushd, popd: the walker follows them
)

// roPlan is what a read-only candidate will read, once its options are
// known to be read-only.
type roPlan struct {
	why      string // "" if the tool and its options are read-only
	reads    []word // paths it reads (files, or directories it lists)
	trees    []word // directories whose whole content it reads
	tree     pathpolicy.TreeOptions
	names    bool   // it reads names and metadata only: secrets inside trees are not exposed
	dashable []word // glob operands that, expanded, reach the program as options
	dynamic  bool   // non-literal arguments are harmless (echo, printf)
	needsEnv bool   // read-only only with the hardened environment (git, go, pip, npm)
	extra    func(an *analyzer, l *leaf) (string, *finding)
}

// roHandlers are read-only candidates whose arguments need more than a
// progSpec.
var roHandlers map[string]func(an *analyzer, l *leaf, args []word) roPlan

func init() {
	roHandlers = map[string]func(*analyzer, *leaf, []word) roPlan{
		"echo": planEcho, "printf": planPrintf, "true": planNone, "false": planNone, ":": planNone,
		"cd": planCd, "test": planTest, "[": planTest, "read": planRead,
		"find": planFind, "sed": planSed, "git": planGit, "go": planGo, "docker": planSub("docker"),
		"gh": planGh, "npm": planNpm, "pip": planSub("pip"), "pip3": planSub("pip"),
		"jq": planJq, "ps": planPs, "date": planDate,
		"node": planVersion("--version", "-v"), "python": planVersion("--version", "-V"), "python3": planVersion("--version", "-V"),
		"ruby": planVersion("--version", "-v"), "java": planVersion("-version", "--version"), "javac": planVersion("-version", "--version"),
		"gcc": planVersion("--version"), "clang": planVersion("--version"), "tsc": planVersion("--version", "-v"),
		"make": planVersion("--version", "-v"), "cmake": planVersion("--version"), "deno": planVersion("--version", "-V"),
		"bun":   planVersion("--version", "-v"),
		"cargo": planRust, "rustc": planRust, "rustup": planRust,
	}
}

// kindOf classifies a leaf (see leafKind).
func (an *analyzer) kindOf(l *leaf) leafKind {
	switch {
	case l.testClause:
		return kindRead
	case l.emptyCmd:
		return kindEdit
	case len(l.args) == 0:
		if l.steer != "" || steeringAssigns(l) {
			return kindOther
		}
		return kindRead
	}
	switch l.args[0].Value {
	case "cd", "pushd", "popd":
		return kindCd
	case "mkdir", "touch", "rm", "rmdir", "unlink", "truncate", "chmod":
		return kindEdit
	case "sed":
		if sc := an.sedCheck(l.args[1:], l); sc.err == "" && sc.inPlace && !hasFollow(l.args) {
			return kindEdit
		}
	case "cp":
		r := specs.ParseFlags(cpSpec, l.args[1:])
		if r.Bad == "" && !r.Has("r", "R", "recursive", "a", "archive", "d", "P", "no-dereference", "s", "symbolic-link", "l", "link", "preserve") {
			return kindEdit // copies regular files' contents only
		}
	}
	if p := an.plan(l); p.why == "" {
		return kindRead
	}
	return kindOther
}

func hasFollow(args []word) bool {
	for _, a := range args {
		if strings.HasPrefix(a.Value, "--fo") {
			return true
		}
	}
	return false
}

// taint marks the leaves that may run after (or beside) a command that can
// change the filesystem's layout (a link created or moved, a tree checked
// out): what their relative paths lead to can no longer be known.
//
// It also marks the leaves that run after (or beside) one that creates or
// edits files (touch, a redirection): their globs may match the new files
// (touch ./--pre=sh && rg x *), and programs that read the project's
// configuration may find a new one (a rust-toolchain.toml written just
// before cargo --version).
func (an *analyzer) taint() {
	for _, l := range an.leaves {
		layout := l.kind == kindOther
		if !layout && l.kind != kindEdit && !writesFile(l) {
			continue
		}
		dash := layout || mayCreateDash(l)
		for _, m := range an.leaves {
			if m != l && (l.idx < m.idx || shareGroup(l.groups, m.groups)) {
				if layout {
					m.tainted = true
				}
				m.afterEdit = true
				if dash {
					m.afterDash = true
				}
			}
		}
	}
}

// mayCreateDash reports whether an edit may create a file whose name
// starts with "-" (touch ./--pre=sh, touch -- -x, cp src/* .): one a later
// glob would pass as an option. Leading options (mkdir -p) are not names.
func mayCreateDash(l *leaf) bool {
	names := func(ws []word, i int, dd bool) bool {
		w := ws[i]
		if w.Glob || !w.Literal {
			return true
		}
		base := w.Value[strings.LastIndexByte(w.Value, '/')+1:]
		return strings.HasPrefix(base, "-") && (dd || strings.ContainsRune(w.Value, '/'))
	}
	dd := false
	for i := 1; i < len(l.args); i++ {
		if l.args[i].Value == "--" && !dd {
			dd = true
			continue
		}
		if names(l.args, i, dd) {
			return true
		}
	}
	for _, r := range l.redirs {
		for i, w := range r.ws {
			if !r.hdoc && isWriteRedir(r.op, w.Value) && names(r.ws, i, true) {
				return true
			}
		}
	}
	return false
}

// configReaders are the read-only candidates whose verdict depends on
// project files that an edit could write: toolchain files
// (rust-toolchain.toml may name any directory) and version-manager files
// (.python-version, .nvmrc, .tool-versions choose what a shim runs). git's,
// npm's and pip's configuration is protected or switched off by the
// hardened environment, and GOTOOLCHAIN=local pins go.
var configReaders = map[string]bool{
	"cargo": true, "rustc": true, "rustup": true,
	"node": true, "python": true, "python3": true, "ruby": true, "java": true, "javac": true, "tsc": true,
}

// afterEditWhy says why a leaf that runs after a file edit of the same
// command line cannot be judged now ("" if it can).
func afterEditWhy(l *leaf) string {
	if !l.afterEdit || len(l.args) == 0 {
		return ""
	}
	if name, _ := runName(l.args); configReaders[name] {
		return "an earlier command may write the project configuration " + name + " reads"
	}
	for _, w := range l.args[1:] {
		if w.Glob || w.FromGlob {
			return "an earlier command may create files its glob " + w.Value + " matches"
		}
	}
	return ""
}

func shareGroup(a, b []int) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// runName returns the program a simple command runs and its arguments:
// command X runs X (skipping functions; the analyser refuses their
// definitions), and /bin/X and /usr/bin/X are X.
func runName(argv []word) (string, []word) {
	name, args := argv[0].Value, argv[1:]
	if name == "command" && len(args) > 0 && !strings.HasPrefix(args[0].Value, "-") && !stateBuiltins[args[0].Value] {
		name, args = args[0].Value, args[1:]
	}
	for _, dir := range []string{"/usr/bin/", "/bin/"} {
		if base, ok := strings.CutPrefix(name, dir); ok && base != "" && base != "." && base != ".." && !strings.ContainsRune(base, '/') {
			return base, args
		}
	}
	return name, args
}

// stateBuiltins change the shell's own state: command cd x is cd x, which
// the walk follows only when spelled cd.
var stateBuiltins = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "read": true, "mapfile": true, "readarray": true, "export": true,
	"set": true, "shopt": true, "source": true, ".": true, "eval": true, "exec": true, "unset": true, "declare": true,
	"typeset": true, "local": true, "readonly": true, "trap": true, "umask": true, "ulimit": true, "hash": true,
	"alias": true, "unalias": true, "builtin": true, "command": true, "enable": true, "getopts": true, "let": true,
	"printf": true, "wait": true, "jobs": true, "fg": true, "bg": true, "kill": true, "disown": true,
}

// plan returns what a read-only candidate reads, or why it is not one.
func (an *analyzer) plan(l *leaf) roPlan {
	if l.planned == nil {
		p := an.planUncached(l)
		l.planned = &p
	}
	return *l.planned
}

// pathWords returns the words of a read-only candidate that name files it
// reads (nil and false if the leaf is no read-only candidate): its other
// words (patterns, subcommands, option values) need no look at the file
// system to judge their spelling.
func (an *analyzer) pathWords(l *leaf) (pathSet, bool) {
	if len(l.args) == 0 {
		return nil, false
	}
	p := an.plan(l)
	if p.why != "" {
		return nil, false
	}
	set := make(pathSet, 0, len(p.reads)+len(p.trees)+len(p.dashable)+1)
	for _, ws := range [][]word{p.reads, p.trees, p.dashable} {
		for _, w := range ws {
			set = append(set, w.Value)
		}
	}
	if len(set) == 0 {
		set = append(set, "") // not nil: no word is a path
	}
	return set, true
}

// pathSet is a short list of words that name paths.
type pathSet []string

func (s pathSet) has(w string) bool {
	for _, x := range s {
		if x == w {
			return true
		}
	}
	return false
}

func (an *analyzer) planUncached(l *leaf) roPlan {
	if len(l.args) == 0 {
		return roPlan{}
	}
	name, args := runName(l.args)
	if strings.ContainsRune(name, '/') {
		return roPlan{why: "command given by path"}
	}
	if h := roHandlers[name]; h != nil {
		return h(an, l, args)
	}
	if spec := specs.Prog(name); spec != nil {
		return specPlan(spec, args, name)
	}
	return roPlan{why: name + " is not a read-only command"}
}

// specPlan judges a command by its progSpec.
func specPlan(spec *specs.Spec, args []word, name string) roPlan {
	pa := spec.Parse(args)
	if pa.Bad != "" {
		return roPlan{why: name + ": " + pa.Bad + " is not read-only"}
	}
	ops := pa.Operands
	var pat []word
	if spec.Operands == specs.OperandsPatternThenFiles && !pa.Has(spec.PatternOpts...) && len(ops) > 0 {
		pat, ops = ops[:1], ops[1:]
		_ = pat
	}
	if spec.Operands == specs.OperandsNone {
		ops = nil
	}
	nops := len(pa.Operands)
	if spec.StdoutSecond && nops == 2 && pa.Operands[1].Value == "-" {
		nops, ops = 1, ops[:len(ops)-1]
	}
	if spec.MaxOperands >= 0 && nops > spec.MaxOperands {
		return roPlan{why: name + " with more than " + strconv.Itoa(spec.MaxOperands) + " operands writes its output to a file (or does not only read)"}
	}
	if spec.OutputOperand {
		// A glob is one word here and any number of operands to the
		// program: xxd d/* with two files in d writes the second.
		for _, o := range pa.Operands {
			if o.Glob {
				return roPlan{why: name + " " + o.Value + ": a glob may give more than " + strconv.Itoa(spec.MaxOperands) + " operands, and " + name + " then writes its output to a file (or does not only read)"}
			}
		}
	}
	if spec.ResponseFiles {
		for _, o := range ops {
			if strings.HasPrefix(o.Value, "@") {
				return roPlan{why: name + " " + o.Value + " reads further arguments (and files) from a file"}
			}
		}
	}
	p := roPlan{names: spec.NamesOnly}
	p.reads = append(append(p.reads, ops...), pa.Reads()...)
	recursive := matchAny(&pa, spec.Recursive)
	for _, o := range pa.Opts {
		for _, k := range spec.RecurseValue {
			if o.Key == k && (len(o.Vals) == 0 || o.Vals[0].Value != "read" && o.Vals[0].Value != "skip") {
				recursive = true // -d recurse, --directories=rec (argmatch takes prefixes)
			}
		}
	}
	if len(ops) == 0 && (spec.DefaultDot || recursive && spec.DotIfRecursive) {
		ops = []word{{Value: ".", Pat: ".", Literal: true}}
		p.reads = append(p.reads, ops...)
	}
	if recursive {
		p.trees = ops
	}
	p.tree.Hidden = matchAny(&pa, spec.Hidden)
	p.tree.Follow = matchAny(&pa, spec.Follow)
	for i, o := range pa.Operands {
		if i < pa.Dashes && o.Glob {
			p.dashable = append(p.dashable, o)
		}
	}
	return p
}

func matchAny(pa *specs.Args, keys []string) bool {
	for _, k := range keys {
		if k == "*" || pa.Has(k) {
			return true
		}
	}
	return false
}

func planNone(*analyzer, *leaf, []word) roPlan { return roPlan{} }

func planEcho(_ *analyzer, _ *leaf, args []word) roPlan {
	return roPlan{dynamic: true, reads: globWords(args)}
}

// globWords returns the words bash expands to file names: echo * lists the
// directory as ls does, so the directories it lists are judged as reads.
func globWords(args []word) []word {
	var out []word
	for _, a := range args {
		if a.Literal && (a.Glob || a.FromGlob) {
			out = append(out, a)
		}
	}
	return out
}

func planPrintf(_ *analyzer, _ *leaf, args []word) roPlan {
	for _, a := range args {
		if a.Value == "--" {
			break
		}
		if strings.HasPrefix(a.Value, "-v") {
			return roPlan{why: "printf -v assigns a variable"}
		}
		if !strings.HasPrefix(a.Value, "-") {
			break
		}
	}
	return roPlan{dynamic: true, reads: globWords(args)}
}

func planCd(_ *analyzer, _ *leaf, args []word) roPlan {
	n := 0
	for _, a := range args {
		if a.Value != "-P" && a.Value != "-L" && a.Value != "--" {
			n++
		}
	}
	if n > 1 {
		return roPlan{why: "too many operands"}
	}
	return roPlan{}
}

// planTest: test and [ read nothing but metadata; -v evaluates an array
// subscript, which can run code.
func planTest(_ *analyzer, _ *leaf, args []word) roPlan {
	for _, a := range args {
		if a.Value == "-v" || a.Value == "-R" {
			return roPlan{why: "test " + a.Value + " evaluates a variable reference"}
		}
	}
	return roPlan{}
}

// planRead: read assigns variables from standard input; it must not assign
// one that steers later commands (PATH, IFS, ...).
func planRead(_ *analyzer, _ *leaf, args []word) roPlan {
	withVal := "adinNptu"
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(withVal, a[j]) >= 0 {
					if j == len(a)-1 && i+1 < len(args) {
						i++
						if a[j] == 'a' && steering(args[i].Value) {
							return roPlan{why: "read assigns " + args[i].Value}
						}
					}
					break
				}
			}
			continue
		}
		if steering(a) || !isName(a) {
			return roPlan{why: "read assigns " + a}
		}
	}
	return roPlan{}
}

var findLeading = map[string]bool{"-H": true, "-L": true, "-P": true}

// findTests take one argument; findReads take a file they read.
var findTests = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true, "-iwholename": true,
	"-regex": true, "-iregex": true, "-regextype": true, "-type": true, "-xtype": true, "-perm": true,
	"-size": true, "-user": true, "-group": true, "-uid": true, "-gid": true, "-links": true, "-inum": true,
	"-mtime": true, "-atime": true, "-ctime": true, "-mmin": true, "-amin": true, "-cmin": true,
	"-maxdepth": true, "-mindepth": true, "-printf": true, "-lname": true, "-ilname": true, "-fstype": true,
	"-used": true, "-context": true,
}
var findReads = map[string]bool{"-newer": true, "-anewer": true, "-cnewer": true, "-samefile": true}
var findNoArg = map[string]bool{
	"-print": true, "-print0": true, "-ls": true, "-prune": true, "-quit": true, "-true": true, "-false": true,
	"-empty": true, "-executable": true, "-readable": true, "-writable": true, "-nouser": true, "-nogroup": true,
	"-depth": true, "-d": true, "-mount": true, "-xdev": true, "-noleaf": true, "-daystart": true, "-follow": true,
	"-ignore_readdir_race": true, "-noignore_readdir_race": true, "-not": true, "-and": true, "-or": true,
	"-a": true, "-o": true, "!": true, "(": true, ")": true, ",": true, "-help": true, "--help": true, "-version": true, "--version": true,
}

// planFind parses find's starting points and expression. Actions that run,
// write or delete (-exec, -ok, -delete, -fprint, -fls, ...) and unknown
// primaries are refused.
func planFind(_ *analyzer, _ *leaf, args []word) roPlan {
	p := roPlan{names: true}
	i := 0
	for i < len(args) {
		a := args[i].Value
		switch {
		case findLeading[a]:
			p.tree.Follow = a == "-L"
			i++
			continue
		case a == "-D" || strings.HasPrefix(a, "-O"):
			if a == "-D" {
				i++
			}
			i++
			continue
		}
		break
	}
	for ; i < len(args); i++ {
		a := args[i].Value
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" || a == "," {
			break
		}
		p.reads = append(p.reads, args[i])
		if args[i].Glob {
			p.dashable = append(p.dashable, args[i])
		}
	}
	if len(p.reads) == 0 {
		p.reads = []word{{Value: ".", Pat: ".", Literal: true}}
	}
	p.trees = p.reads
	p.tree.Hidden = true
	for ; i < len(args); i++ {
		a := args[i].Value
		switch {
		case findNoArg[a]:
			if a == "-follow" {
				p.tree.Follow = true
			}
		case findTests[a]:
			i++
		case findReads[a] || strings.HasPrefix(a, "-newer") && len(a) == 8:
			if i+1 < len(args) {
				p.reads = append(p.reads, args[i+1])
			}
			i++
		default:
			if strings.HasPrefix(a, "-") {
				return roPlan{why: "find " + a + " is not read-only"}
			}
			return roPlan{why: "find: unexpected word " + a}
		}
	}
	return p
}

func planSed(an *analyzer, l *leaf, args []word) roPlan {
	r := an.sedCheck(args, l)
	if r.err == "" && r.printOnly {
		return roPlan{reads: r.files}
	}
	return roPlan{why: "sed is read-only only as sed -n Np or N,Mp"}
}

// planVersion accepts exactly one of the given version flags.
func planVersion(flags ...string) func(*analyzer, *leaf, []word) roPlan {
	return func(_ *analyzer, _ *leaf, args []word) roPlan {
		if len(args) == 1 {
			for _, f := range flags {
				if args[0].Value == f {
					return roPlan{extra: versionFiles}
				}
			}
		}
		return roPlan{why: "only a version query is read-only"}
	}
}

// versionFileNames are the files version managers (pyenv, nvm, rbenv,
// jenv, asdf, mise) read to choose which program a shim runs.
var versionFileNames = []string{".python-version", ".ruby-version", ".node-version", ".nvmrc", ".java-version",
	".tool-versions", ".mise.toml", "mise.toml", ".mise.local.toml"}

// safeVersion is a version name that stays a name: no path (asdf's
// "path:/dir", or ../ that older pyenv followed out of its versions).
var safeVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`) })

// versionFiles objects to a version file, in the working directory or
// above, that names anything but plain version names.
func versionFiles(an *analyzer, l *leaf) (string, *finding) {
	if l.cwdUnknown {
		return "the working directory is unknown", nil
	}
	f := an.above(l.cwd, versionFileNames...)
	if f == "" {
		return "", nil
	}
	x := an.cfg.policy.Classify(f)
	if x.Err != nil || x.Secret || !x.Exists {
		return f + " cannot be checked", nil
	}
	b, err := an.cfg.access.ReadFile(x.Resolved.Path, 4096, true)
	if err != nil {
		return f + " cannot be checked: " + err.Error(), nil
	}
	for _, line := range strings.Split(string(b), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, tok := range strings.Fields(line) {
			if !safeVersion().MatchString(tok) || strings.Contains(tok, "..") {
				return f + " names " + strconv.Quote(tok) + ", which a version manager may take for a program to run", nil
			}
		}
	}
	return "", nil
}

// planRust is a version query that a rust-toolchain file in the directory
// or above may redirect to any program (rustup's toolchain "path").
func planRust(an *analyzer, l *leaf, args []word) roPlan {
	p := planVersion("--version", "-V", "-v")(an, l, args)
	if p.why != "" {
		return p
	}
	p.extra = func(an *analyzer, l *leaf) (string, *finding) {
		if l.cwdUnknown {
			return "the working directory is unknown", nil
		}
		if f := an.above(l.cwd, "rust-toolchain", "rust-toolchain.toml"); f != "" {
			return f + " chooses which program rustup runs", nil
		}
		return "", nil
	}
	return p
}

func planDate(_ *analyzer, _ *leaf, args []word) roPlan {
	p := specPlan(specs.Prog("date"), args, "date")
	if p.why != "" {
		return p
	}
	pa := specs.Prog("date").Parse(args)
	for _, o := range pa.Operands {
		if !strings.HasPrefix(o.Value, "+") {
			return roPlan{why: "date with an operand sets the clock"}
		}
	}
	p.reads = pa.Reads()
	return p
}

// planPs: procps takes BSD options without a dash (ps aux); the BSD
// modifier e (in any such word) prints every process's environment, and so
// may the environ format keyword.
func planPs(_ *analyzer, _ *leaf, args []word) roPlan {
	var rest []word
	for _, a := range args {
		if strings.Contains(strings.ToLower(a.Value), "environ") {
			return roPlan{why: "ps environ shows process environments"}
		}
		if !strings.HasPrefix(a.Value, "-") {
			if strings.ContainsAny(a.Value, "eE") {
				return roPlan{why: "ps e shows process environments"}
			}
			continue // BSD options and their values
		}
		rest = append(rest, a)
	}
	p := specPlan(specs.Prog("ps"), rest, "ps")
	p.reads = nil // ps operands are process selectors
	return p
}

// planJq: a jq filter can read the environment ($ENV, env) and files
// (import "../x" as $d reads ../x.json; include "m" reads m.jq), and -f
// and -L take a program or modules from files the analyser does not see.
func planJq(_ *analyzer, _ *leaf, args []word) roPlan {
	for _, a := range args {
		low := strings.ToLower(a.Value)
		for _, bad := range []string{"env", "import", "include", "modulemeta", "$__loc__", "input_filename", "$__prog"} {
			if strings.Contains(low, bad) {
				return roPlan{why: "the jq program uses " + bad + ", which reads the environment or files"}
			}
		}
	}
	p := specPlan(specs.Prog("jq"), args, "jq")
	if p.why != "" {
		return p
	}
	pa := specs.Prog("jq").Parse(args)
	if pa.Has("-f", "--from-file", "-L", "--run-tests") {
		return roPlan{why: "jq reads its program or modules from a file"}
	}
	return p
}

// planSub judges "tool subcommand ..." by subTable("tool subcommand").
func planSub(tool string) func(*analyzer, *leaf, []word) roPlan {
	return func(an *analyzer, l *leaf, args []word) roPlan {
		if tool == "pip" && !an.cfg.hardened {
			return roPlan{why: "pip reads configuration files the project controls (run it with a hardened environment)"}
		}
		if len(args) == 0 {
			return roPlan{why: "no subcommand"}
		}
		sub := args[0].Value
		if tool == "docker" && sub == "inspect" {
			return roPlan{why: "docker inspect prints containers' environment variables"}
		}
		if tool == "docker" && sub == "logs" {
			return roPlan{why: "docker logs prints what containers printed, secrets included"}
		}
		if spec := specs.Sub(tool + " " + sub); spec != nil {
			p := specPlan(spec, args[1:], tool+" "+sub)
			if tool == "docker" || tool == "pip" || tool == "npm" || tool == "gh" {
				// Operands are container or package names; option values
				// that name files (pip freeze -r FILE, --path DIR) are read.
				pa := spec.Parse(args[1:])
				p.reads = pa.Reads()
			}
			p.needsEnv = tool == "pip"
			return p
		}
		if len(args) == 1 && (sub == "--version" || sub == "-v" || sub == "-V") {
			return roPlan{}
		}
		return roPlan{why: tool + " " + sub + " is not read-only"}
	}
}

func planNpm(an *analyzer, l *leaf, args []word) roPlan {
	if !an.cfg.hardened {
		return roPlan{why: "npm reads configuration files the project controls (run it with a hardened environment)"}
	}
	p := planSub("npm")(an, l, args)
	if p.why != "" {
		return p
	}
	p.needsEnv = true
	p.extra = func(an *analyzer, l *leaf) (string, *finding) {
		if l.cwdUnknown {
			return "the working directory is unknown", nil
		}
		if f := an.above(l.cwd, ".npmrc"); f != "" {
			return f + " is the project's npm configuration (it can move npm's logs and cache)", nil
		}
		return "", nil
	}
	return p
}

func planGh(an *analyzer, l *leaf, args []word) roPlan {
	if len(args) >= 2 && args[0].Value == "auth" && args[1].Value == "status" {
		for _, a := range args[2:] {
			if a.Value == "-t" || strings.HasPrefix(a.Value, "--show-t") || strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "--") && strings.Contains(a.Value, "t") {
				return roPlan{why: "gh auth status --show-token prints a credential"}
			}
		}
	}
	if why := ghRepoHost(args); why != "" {
		return roPlan{why: why}
	}
	if len(args) >= 2 {
		if spec := specs.Sub("gh " + args[0].Value + " " + args[1].Value); spec != nil {
			p := specPlan(spec, args[2:], "gh "+args[0].Value+" "+args[1].Value)
			pa := spec.Parse(args[2:])
			p.reads = pa.Reads() // operands are names, numbers, URLs
			return p
		}
	}
	return planSub("gh")(an, l, args)
}

// ghRepoHost objects to a -R/--repo value that names a host
// (HOST/OWNER/REPO): gh would send its requests, and perhaps a token, to
// any server the command names.
func ghRepoHost(args []word) string {
	for i, a := range args {
		var v string
		switch s := a.Value; {
		case s == "-R" || s == "--repo":
			if i+1 >= len(args) {
				return ""
			}
			v = args[i+1].Value
		case strings.HasPrefix(s, "--repo="):
			v = s[len("--repo="):]
		case strings.HasPrefix(s, "-R"):
			v = strings.TrimPrefix(s[2:], "=")
		default:
			continue
		}
		if strings.Count(v, "/") != 1 || strings.ContainsAny(v, ":@") {
			return "gh -R " + v + " may name another host than github.com"
		}
	}
	return ""
}

// planGo: go version and go env, with the toolchain pinned (GOTOOLCHAIN=local
// in the hardened environment; otherwise go.mod can make go download and run
// another toolchain).
func planGo(an *analyzer, l *leaf, args []word) roPlan {
	if !an.cfg.hardened {
		return roPlan{why: "go may switch to the toolchain go.mod names (run it with a hardened environment)"}
	}
	if len(args) == 0 {
		return roPlan{why: "no subcommand"}
	}
	switch args[0].Value {
	case "version", "env":
		p := specPlan(specs.Sub("go "+args[0].Value), args[1:], "go "+args[0].Value)
		p.needsEnv = true
		return p
	}
	return roPlan{why: "go " + args[0].Value + " is not read-only"}
}

// above returns the first of names found in dir or one of its ancestors.
func (an *analyzer) above(dir string, names ...string) string {
	for d := dir; ; {
		// One look at the directory (a remembered listing, checked by one
		// stat) costs less than a look per name. A listing with names
		// that are not ASCII may hide a case-folded match: then each name
		// is looked up.
		listed := false
		if len(names) > 3 {
			v := an.dirViews().View(d)
			switch {
			case v.Missing:
				listed = true
			case v.Listing == nil:
				return d // unreadable: the caller cannot check it
			case v.ASCII:
				listed = true
				for _, n := range names {
					if !v.Absent(n) {
						return strings.TrimSuffix(d, "/") + "/" + n
					}
				}
			}
		}
		for _, n := range names {
			if listed {
				break
			}
			p := d + "/" + n
			if d == "/" {
				p = "/" + n
			}
			if x := an.cfg.policy.Classify(p); x.Err != nil || x.Exists {
				return p
			}
		}
		parent := d[:max(strings.LastIndexByte(d, '/'), 1)]
		if parent == d || d == "/" {
			return ""
		}
		d = parent
	}
}

// readOnly decides whether a leaf is read-only. redirOnly reports that the
// leaf would be read-only but for writing redirections. A finding is an
// objection of the sensitive-path layer discovered on the way (a recursive
// read that reaches secrets).
func (an *analyzer) readOnly(l *leaf) (ro, redirOnly bool, why string, f *finding) {
	writes := false
	for _, r := range l.redirs {
		for _, w := range r.ws {
			if !r.hdoc && isWriteRedir(r.op, w.Value) && !exemptDev(w.Value) && !w.ProcPath {
				writes = true
			}
		}
	}
	switch {
	case l.emptyCmd:
		return false, writes, "redirection without a command", nil
	case reopenWrite(l):
		return false, false, "a redirection reopens a file for writing", nil
	case l.steer != "":
		return false, false, "the command sets " + l.steer + ", which changes what later commands run", nil
	case len(l.args) == 0 && len(l.assigns) > 0:
		if steeringAssigns(l) {
			return false, false, "assignment of an environment variable that steers commands", nil
		}
		return true, false, "", nil
	case len(l.assigns) > 0:
		return false, false, "environment assignment before the command", nil
	case l.background:
		return false, false, "background job", nil
	case l.timed:
		return false, false, "time wrapper (under sh, /usr/bin/time -o writes a file)", nil
	case l.testClause:
		return !writes, writes, "", nil
	case len(l.args) == 0:
		return false, false, "no command", nil
	}
	for _, w := range l.args {
		if w.Obscured {
			return false, false, "argument uses $'...' or $\"...\" quoting", nil
		}
	}
	p := an.plan(l)
	if p.why != "" {
		return false, false, p.why, nil
	}
	if why := afterEditWhy(l); why != "" {
		return false, false, why, nil
	}
	l.needsEnv = p.needsEnv
	for _, w := range l.args[1:] {
		if w.Literal || w.ProcPath {
			continue
		}
		if !p.dynamic {
			return false, false, "argument " + w.Value + " is known only at run time", nil
		}
		if w.BadParam {
			return false, false, "prints " + w.Value + ", which may hold a secret", nil
		}
	}
	// Here-documents and here-strings: stdin text that may print secrets.
	for _, r := range l.redirs {
		if r.hdoc && r.body.BadParam {
			return false, false, "its input expands " + r.body.Value + ", which may hold a secret", nil
		}
	}
	// What it reads: its paths, its input redirections.
	reads := p.reads
	for _, r := range l.redirs {
		for _, w := range r.ws {
			if !r.hdoc && isReadRedir(r.op, w.Value) {
				reads = append(reads, w)
			}
		}
	}
	if l.tainted && (len(reads) > 0 || writes) {
		return false, false, "an earlier command may change what its paths lead to", nil
	}
	for _, w := range p.trees {
		x := an.judge(w, l)
		if x.unknown != "" || x.glob {
			if x.glob {
				for _, m := range x.matches {
					if why, f := an.treeCheck(m.Given, p, w.Value); why != "" || f != nil {
						return false, false, why, f
					}
				}
				continue
			}
			return false, false, readWhy(w, x), nil
		}
		if why, f := an.treeCheck(x.Given, p, w.Value); why != "" || f != nil {
			return false, false, why, f
		}
	}

	for _, w := range reads {
		if w.ProcPath {
			continue
		}
		x := an.judge(w, l)
		if !x.readOK() {
			return false, false, readWhy(w, x), nil
		}
	}
	for _, w := range p.dashable {
		if an.dashGlob(w, l) {
			return false, false, "the glob " + w.Value + " may expand to a word starting with -, which the command would take for an option", nil
		}
	}
	if p.extra != nil {
		if why, f := p.extra(an, l); why != "" || f != nil {
			return false, false, why, f
		}
	}
	if writes {
		return false, true, "writes to a file", nil
	}
	return true, false, "", nil
}

// treeCheck judges a recursive read of root.
func (an *analyzer) treeCheck(root string, p roPlan, spelled string) (string, *finding) {
	if p.names && !p.tree.Follow {
		// Listing names without following links reaches nothing the
		// judgment of root itself did not (secret names are no secret).
		return "", nil
	}
	if !an.isDir(root) {
		if x := an.cfg.policy.Classify(root); x.Err == nil && x.Resolved.Exists && !an.isDir(x.Resolved.Path) {
			return "", nil
		}
	}
	rep := an.cfg.policy.Tree(root, &p.tree)
	switch {
	case rep.Secret != "" && !p.names:
		return "", sensitiveFinding([]string{spelled + " (holds " + rep.Secret + ")"})
	case rep.Outside != "":
		return "it reads " + rep.Outside + ", outside the working directories", nil
	case rep.Incomplete:
		return "it reads " + spelled + " recursively, a tree too large to check for secrets", nil
	}
	return "", nil
}

func readWhy(w word, x pathInfo) string {
	switch {
	case x.unknown != "":
		return "it reads " + w.Value + ": " + x.unknown
	case x.Path.Err != nil:
		return "it reads " + w.Value + ", which cannot be resolved (" + x.Path.Err.Error() + ")"
	}
	return "it reads " + w.Value + ", outside the working directories"
}

// dashGlob reports whether a relative glob operand could expand to a word
// that starts with "-" (a file named --pre=sh makes rg x * run sh): its
// first component can match such a name and one exists now.
func (an *analyzer) dashGlob(w word, l *leaf) bool {
	if w.Tilde || strings.HasPrefix(w.Value, "/") {
		return false
	}
	first := w.Pat
	if i := strings.IndexByte(first, '/'); i >= 0 {
		first = first[:i]
	}
	if !bashglob.HasMeta(first) || !bashglob.MatchPrefix(first, "-", nil) {
		return false
	}
	if l.cwdUnknown {
		return true
	}
	matches, err := an.cfg.policy.Expand(unquote.EscapeGlob(l.cwd)+"/"+first, 10000, 10000)
	if err != nil {
		return true
	}
	for _, m := range matches {
		if strings.HasPrefix(m[strings.LastIndexByte(m, '/')+1:], "-") {
			return true
		}
	}
	return false
}

// steeringVars change what later commands run or read when a command sets
// them: the search path, the shell's parsing, tools' configuration.
var steeringVars = map[string]bool{
	"PATH": true, "IFS": true, "CDPATH": true, "HOME": true, "ENV": true, "BASH_ENV": true, "SHELLOPTS": true,
	"BASHOPTS": true, "PS4": true, "PROMPT_COMMAND": true, "PAGER": true, "MANPAGER": true, "EDITOR": true,
	"VISUAL": true, "TMPDIR": true, "POSIXLY_CORRECT": true, "GLOBIGNORE": true, "OLDPWD": true, "PWD": true,
	"BROWSER": true, "SSH_ASKPASS": true, "GNUPGHOME": true, "KUBECONFIG": true, "SHELL": true, "TERMINFO": true,
	"HISTFILE": true, "MAIL": true, "MAILPATH": true, "FIGNORE": true, "EXECIGNORE": true, "FUNCNEST": true,
	"http_proxy": true, "https_proxy": true, "all_proxy": true, "no_proxy": true, "ftp_proxy": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true, "NO_PROXY": true,
}

var steeringPrefixes = []string{"LD_", "DYLD_", "GIT_", "BASH_", "npm_config_", "NPM_CONFIG_", "PIP_", "PYTHON",
	"NODE_", "RUBY", "PERL", "GO", "CARGO", "RUSTUP_", "LESS", "GREP_", "RIPGREP_", "JQ_", "LC_", "DOCKER_", "GH_",
	"AWS_", "TAR_", "XDG_", "JAVA_", "_JAVA", "JDK_", "MAVEN_", "GRADLE_", "LANG"}

// steering reports a variable name that steers commands when set.
func steering(name string) bool {
	if steeringVars[name] {
		return true
	}
	for _, p := range steeringPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func steeringAssigns(l *leaf) bool {
	for _, n := range l.assigns {
		if steering(n) || n == "?" {
			return true
		}
	}
	return false
}
