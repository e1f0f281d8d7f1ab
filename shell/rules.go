package shell

import (
	"github.com/toolscope/toolscope/shell/internal/rulematch"
	"strings"
	"sync"

	"github.com/toolscope/toolscope/internal/counters"
	"mvdan.cc/sh/v3/syntax"
)

// Bash rules, as Claude Code users write them.
//
// A rule's content is read as shell words, with the same quoting rules as
// the command: Bash(grep -E "a|b" src) matches grep -E 'a|b' src. Its forms:
//
//   - "npm test": exactly that command (after normalising whitespace and
//     quoting), not npm test --watch;
//   - "git log:*" or "git log *": git log, or git log followed by more words
//     (a word boundary: not git logx);
//   - "*" anywhere else matches any text, spaces included ("git * main",
//     "git checkout * -- :*"); "\*" is a literal star.
//
// A rule is matched against each simple command of a compound. An allow
// rule passes a command only when every simple command is read-only or
// matched by some allow rule (Analysis.AllowedBy); a deny or ask rule
// applies when any simple command matches, also the commands that wrappers
// run (sudo rm, timeout 5 rm, find -exec rm, bash -c 'rm ...') and with
// the command name's directory dropped (/bin/rm).

// safeEnvVars may lead a command without changing what it runs; they are
// dropped before matching (NODE_ENV=test npm test matches "npm test").
var safeEnvVars = map[string]bool{
	"NODE_ENV": true, "PYTHONUNBUFFERED": true, "RUST_LOG": true, "RUST_BACKTRACE": true, "LANG": true, "TERM": true,
	"NO_COLOR": true, "FORCE_COLOR": true, "DEBUG": true, "VERBOSE": true, "CI": true, "TZ": true, "LC_ALL": true,
	"LC_CTYPE": true, "COLUMNS": true, "LINES": true, "CLICOLOR": true, "CLICOLOR_FORCE": true,
}

// ruleMatcher is a compiled rule content (see package rulematch).
type ruleMatcher = rulematch.Matcher

// compileRule returns the compiled rule content, cached.
func compileRule(content string) *ruleMatcher { return rulematch.Compile(content) }

// ruleForm is the words rules see for a leaf: unsafe leading assignments
// (as NAME=value) and the argv. ok is false when the leaf cannot be matched
// by an allow rule (a dynamic command name, a brace expansion that could
// not be verified).
func ruleForm(l *leaf) ([]string, bool) {
	ok := l.badWords == "" && !l.testClause && !l.emptyCmd && len(l.args) > 0 && l.args[0].Literal && !l.args[0].Glob
	var words []string
	for i, name := range l.assigns {
		if safeEnvVars[name] {
			continue
		}
		ok = false
		v := ""
		if i < len(l.assignVals) {
			v = l.assignVals[i].Value
		}
		words = append(words, name+"="+v)
	}
	for _, w := range l.args {
		words = append(words, w.Value)
	}
	return words, ok
}

// substLead returns an argument of l that starts with a command
// substitution: its words are known only when it runs, and may be options
// ($(ls) in a directory holding --checkpoint-action=exec=sh makes
// tar cf x.tar $(ls) run sh). No wildcard rule covers such an argument,
// as no rule covers a glob that expands to an option (wildcardInjection).
func substLead(l *leaf) string {
	for _, w := range l.args[min(1, len(l.args)):] {
		if !w.Literal && !w.ProcPath && (strings.HasPrefix(w.Value, "$(") || strings.HasPrefix(w.Value, "`")) {
			return w.Value
		}
	}
	return ""
}

// denyForms are every spelling of a leaf a deny or ask rule must see: the
// leaf, the command name without its directory, what wrappers run, git
// without its global options.
func (an *analyzer) denyForms(l *leaf) [][]string {
	form, _ := ruleForm(l)
	forms := [][]string{form, argvStrings(l.args)}
	var p peeled
	an.gather(l.args, &p, 0, false)
	for _, argv := range p.argvs {
		if len(argv) == 0 {
			continue
		}
		s := argvStrings(argv)
		forms = append(forms, s)
		if base := cmdName(argv[0]); base != argv[0].Value {
			forms = append(forms, append([]string{base}, s[1:]...))
		}
		if cmdName(argv[0]) == "git" {
			forms = append(forms, gitWithoutGlobals(s))
		}
	}
	return forms
}

// ruleLeaves walks command for rule matching. ok is false when it cannot
// be parsed; unsupported reports constructs the analyser does not model.
func ruleLeaves(command string) (an *analyzer, ok bool, unsupported bool) {
	return ruleLeavesOf(command, nil)
}

// ruleLeavesOf is ruleLeaves with the parse of command, when one was made
// already (f nil: parse it).
func ruleLeavesOf(command string, f *syntax.File) (an *analyzer, ok bool, unsupported bool) {
	if strings.TrimSpace(command) == "" || rejectReason(command, defaultMaxLength*4) != "" {
		return nil, false, false
	}
	if f == nil {
		counters.ShellParses.Add(1)
		var err error
		if f, err = parse(command); err != nil {
			return nil, false, false
		}
	}
	cfg := newConfig(&Options{Cwd: "/", Home: "/nonexistent-home"})
	kind, _, substs := scanAll(f)
	an = &analyzer{cfg: cfg, src: command, budget: &budget{}, substs: substs}
	unsupported = kind != ""
	w := &walker{an: an}
	w.stmts(f.Stmts, scope{cwd: cwdState{dir: "/", pwd: "/"}})
	an.leaves = w.leaves
	return an, true, unsupported || an.unsupported != ""
}

// MatchRule reports how a Bash rule content matches command. all is true
// when every simple command matches (use it for allow rules); any is true
// when at least one does, looking through wrappers and into the scripts of
// sh -c and eval (use it for deny and ask rules). A command that cannot be
// parsed gives all=false and any=the match against the raw text; a command
// with constructs the analyser does not model is never all=true. MatchRule
// never panics.
func MatchRule(content, command string) (all, any bool) {
	defer func() {
		if r := recover(); r != nil {
			all, any = false, true // fail closed: never allow, always deny/ask
		}
	}()
	return matchRule(compileRule(content), command, 0)
}

// MatchAnyRule returns the first of contents that matches command the way
// a deny or ask rule does (MatchRule's any), parsing command once however
// many contents there are. It never panics: on an internal failure the
// first content matches (fail closed).
func MatchAnyRule(contents []string, command string) (hit string, ok bool) {
	if len(contents) == 0 {
		return "", false
	}
	defer func() {
		if r := recover(); r != nil {
			hit, ok = contents[0], true
		}
	}()
	an, parsed, unsupported := ruleLeaves(command)
	for _, c := range contents {
		if _, any := matchLeaves(compileRule(c), command, an, parsed, unsupported, 0); any {
			return c, true
		}
	}
	return "", false
}

// ruleWalk is an analysed command's leaves for rule matching (ruleLeaves'
// results), walked at the first rule and kept for the others.
type ruleWalk struct {
	once            sync.Once
	an              *analyzer
	ok, unsupported bool
}

func (p *parseInfo) ruleLeaves() *ruleWalk {
	p.rule.once.Do(func() {
		p.rule.an, p.rule.ok, p.rule.unsupported = ruleLeavesOf(p.src, p.file)
	})
	return &p.rule
}

// MatchRule is [MatchRule] of content and the analysed command, on the
// analysis's own parse of it (an Analysis made with Options.KeepParse):
// however many rules a decision tries, the command is parsed once. It
// never panics. Without KeepParse it panics: the analysis has no command
// to match.
func (a *Analysis) MatchRule(content string) (all, any bool) {
	p := a.keptParse()
	defer func() {
		if r := recover(); r != nil {
			all, any = false, true // fail closed: never allow, always deny/ask
		}
	}()
	w := p.ruleLeaves()
	return matchLeaves(compileRule(content), p.src, w.an, w.ok, w.unsupported, 0)
}

func (a *Analysis) keptParse() *parseInfo {
	if a.parse == nil {
		panic("shell: Analysis.MatchRule of an analysis made without Options.KeepParse")
	}
	return a.parse
}

// MatchAnyRule is [MatchAnyRule] of contents and the analysed command, on
// the analysis's own parse of it (Options.KeepParse, as for MatchRule).
func (a *Analysis) MatchAnyRule(contents []string) (hit string, ok bool) {
	if len(contents) == 0 {
		return "", false
	}
	p := a.keptParse()
	defer func() {
		if r := recover(); r != nil {
			hit, ok = contents[0], true
		}
	}()
	w := p.ruleLeaves()
	for _, c := range contents {
		if _, any := matchLeaves(compileRule(c), p.src, w.an, w.ok, w.unsupported, 0); any {
			return c, true
		}
	}
	return "", false
}

func matchRule(m *ruleMatcher, command string, depth int) (all, any bool) {
	an, ok, unsupported := ruleLeaves(command)
	return matchLeaves(m, command, an, ok, unsupported, depth)
}

// matchLeaves is matchRule on a command already split into leaves (an, ok
// and unsupported are ruleLeaves' results); it does not change an.
func matchLeaves(m *ruleMatcher, command string, an *analyzer, ok, unsupported bool, depth int) (all, any bool) {
	if !ok {
		return false, m.Raw(command) || matchSegments(m, command) || m.Unparsed(command)
	}
	all = !unsupported && len(an.leaves) > 0
	for _, l := range an.leaves {
		form, clean := ruleForm(l)
		clean = clean && !writesFile(l)
		hit := m.Words(form)
		// An archive extraction writes what the archive holds: only the
		// full analysis (Analysis.AllowedBy), which reads its members,
		// lets a wildcard rule cover it.
		if !hit || !clean || m.Wild && (codeOption(l) != "" || isExtraction(l)) || m.Wild && !m.Every && substLead(l) != "" {
			all = false
		}
		if hit || m.Raw(l.text) {
			any = true
		}
		for _, f := range an.denyForms(l) {
			if m.Words(f) {
				any = true
			}
		}
		if !any && m.Globbed(l.args) {
			any = true
		}
		if !any {
			var p peeled
			an.gather(l.args, &p, 0, false)
			for _, argv := range p.argvs {
				if m.Globbed(argv) {
					any = true
				}
			}
		}
		if !any && !m.Every {
			any = matchHidden(m, l, form, depth)
		}
		if !any && depth < maxScriptDepth {
			var p peeled
			an.gather(l.args, &p, 0, false)
			if stdinScript(l) {
				fromText := false
				for _, r := range l.redirs {
					if r.hdoc {
						p.scripts = append(p.scripts, r.body.Value)
						fromText = true
					}
				}
				if !fromText && l.piped {
					// A shell reading its script from a pipe (curl x | sh,
					// base64 -d | sh): the script is unknown; a deny or ask
					// rule matches.
					any = true
				}
			}
			for _, s := range p.scripts {
				if _, a := matchRule(m, s, depth+1); a {
					any = true
				}
			}
		}
	}
	if !any && m.Raw(command) {
		any = true
	}
	if !any && !ok {
		any = matchSegments(m, command)
	}
	if !any && unsupported {
		// Constructs the walk does not model (a function that runs its
		// arguments: f() { git "$@"; }; f push): the tokens decide.
		any = m.Unparsed(command)
	}
	return all, any
}

// writesFile reports an output redirection to a file (not /dev/null or the
// command's own streams).
func writesFile(l *leaf) bool {
	for _, r := range l.redirs {
		for _, w := range r.ws {
			if !r.hdoc && isWriteRedir(r.op, w.Value) && !exemptDev(w.Value) {
				return true
			}
		}
	}
	return false
}

// matchSegments matches the pieces of a command that could not be parsed
// (or holds characters the analyser refuses), split wherever a shell could
// start a new command: a deny rule must not stop matching because the
// command is malformed.
func matchSegments(m *ruleMatcher, command string) bool {
	for _, seg := range strings.FieldsFunc(command, func(r rune) bool {
		return strings.ContainsRune(";&|\n\r()`{}<>", r) || r < ' ' && r != '\t'
	}) {
		seg = strings.Trim(strings.TrimSpace(seg), `"'$`)
		if seg != "" && m.Raw(seg) {
			return true
		}
	}
	return false
}

func (l *leaf) args0() word {
	if len(l.args) == 0 {
		return word{}
	}
	return l.args[0]
}

// AllowedBy reports whether the analysed command may run because every
// simple command in it is allowed on its own: read-only, allowed by the
// mode (a filesystem command inside the working directories in
// accept_edits), or matched by one of the allow-rule contents; it returns
// the contents it used. See [Analysis.Grants], which also says what
// allowed each simple command.
func (a *Analysis) AllowedBy(contents []string) ([]string, bool) {
	grants, ok := a.Grants(contents)
	if !ok {
		return nil, false
	}
	var used []string
	for _, g := range grants {
		if g.Rule != "" {
			used = appendUnique(used, g.Rule)
		}
	}
	return used, true
}

// Grant says what allows one simple command of a command that runs
// because each of its simple commands is allowed ([Analysis.Grants]).
type Grant struct {
	// Command is the simple command's text.
	Command string
	// Layer is LayerReadOnly, LayerAcceptEdits (the mode allows it), or
	// "rule" (Rule allows it).
	Layer string
	// Rule is the allow-rule content that covers it, for Layer "rule".
	Rule string
	// AfterRules reports a read-only command or an edit that is allowed
	// although an earlier command may change what its paths lead to,
	// because every such command is allowed by a rule and runs a program
	// the project defines (a rule-trusted build could have done the same).
	AfterRules bool
}

// LayerRule is the Layer of a [Grant] made by an allow rule.
const LayerRule = "rule"

// Grants reports whether the analysed command may run because every simple
// command in it is allowed on its own, and what allows each (in order):
//
//   - it is read-only, or the mode allows it (the analysis allowed it:
//     accept_edits' filesystem commands inside the working directories);
//   - or one of the allow-rule contents matches it.
//
// Such a command runs without the hardened environment, so git, go, pip and
// npm need rules of their own here even where the analyser takes them for
// read-only. A simple command the analyser objected to (an Ask) is never
// covered; one that writes through a redirection is covered by a rule only
// when the target lies in a working directory; one whose working directory
// is unknown or outside the working directories is not covered. A
// read-only command or an edit that runs after (or beside) a command that
// may change the filesystem's layout (a link made, a tree checked out) is
// allowed only when every such command in the line is allowed by a rule
// and runs a program the project defines (npm run, make, ./build.sh): the
// trusted program could have read or written those files itself, while
// git checkout or tar -x, trusted to do what they do, could not.
func (a *Analysis) Grants(contents []string) ([]Grant, bool) {
	if a == nil || a.Verdict == Ask && a.BypassImmune || len(a.Commands) == 0 {
		return nil, false
	}
	grants := make([]Grant, len(a.Commands))
	covered := map[*leaf]bool{}
	pending := false // a command allowed but for the taint of an earlier one
	for i := range a.Commands {
		c := &a.Commands[i]
		grants[i] = Grant{Command: c.Text, Layer: c.Layer}
		if c.Verdict == Allow && !(c.leaf != nil && c.leaf.needsEnv) {
			continue
		}
		// A command the analyser allowed only because the hardened
		// environment neutralises the project's configuration (git status)
		// needs a rule here: a command that runs because rules allow it
		// runs without that environment (see HardenEnv).
		if c.Verdict == Ask || c.leaf == nil {
			return nil, false
		}
		if l := c.leaf; l.roButTaint && !l.writes() && !l.needsEnv || l.editButTaint {
			grants[i].Layer, grants[i].AfterRules = LayerReadOnly, true
			if l.editButTaint {
				grants[i].Layer = LayerAcceptEdits
			}
			pending = true
			continue
		}
		content, ok := a.coveringRule(c.leaf, contents)
		if !ok {
			return nil, false
		}
		grants[i].Layer, grants[i].Rule = LayerRule, content
		covered[c.leaf] = true
	}
	if pending && !a.layoutTrusted(func(l *leaf) bool { return covered[l] }) {
		// Each such command then needs a rule of its own.
		for i := range grants {
			if !grants[i].AfterRules {
				continue
			}
			content, ok := a.coveringRule(a.Commands[i].leaf, contents)
			if !ok {
				return nil, false
			}
			grants[i] = Grant{Command: grants[i].Command, Layer: LayerRule, Rule: content}
		}
	}
	return grants, true
}

// coveringRule returns the first of contents that allows the leaf on its
// own.
func (a *Analysis) coveringRule(l *leaf, contents []string) (string, bool) {
	if !a.ruleCoverable(l) {
		return "", false
	}
	form, _ := ruleForm(l)
	risky := riskyOption(l)
	if risky == "" && l.afterDash {
		// An earlier command of the line may create the files its glob
		// matches (touch ./--pre=sh && rg x *): the options it runs with
		// are unknown.
		for _, w := range l.args[1:] {
			if w.Glob && firstMayDash(w) {
				risky = w.Value
			}
		}
	}
	for _, content := range contents {
		m := compileRule(content)
		if risky != "" && (m.Every || hasWildcard(content)) {
			// A wildcard rule (git push:*) was written for the command,
			// not for the options that make it run another program.
			continue
		}
		if m.Words(form) {
			return content, true
		}
	}
	return "", false
}

// hasWildcard reports whether a rule content has a "*" that is not
// written "\*" (a literal star, as suggestions write one).
func hasWildcard(content string) bool {
	for i := 0; i < len(content); i++ {
		switch content[i] {
		case '\\':
			i++
		case '*':
			return true
		}
	}
	return false
}

// layoutTrusted reports whether every command of the line that may change
// the filesystem's layout is covered by a rule (covered) and runs a
// program the project defines: then the commands after it, allowed but for
// what it may change, pass.
func (a *Analysis) layoutTrusted(covered func(*leaf) bool) bool {
	for i := range a.Commands {
		l := a.Commands[i].leaf
		if l == nil || l.kind != kindOther {
			continue
		}
		if !covered(l) || !runsProjectCode(l) {
			return false
		}
	}
	return true
}

// runsProjectCode reports a command that runs a program the project
// defines, or any program: a package manager's scripts, a build tool's
// recipes, an interpreter, a program named by a relative path. What such a
// command does is not bounded by its command line: trusted by a rule, it
// is trusted to do what any command after it does. A known tool with
// bounded effects (git, tar, cp, mv, ln, hash) is not one: trusted to check
// out a tree, it is not trusted to write through the links that tree
// holds.
func runsProjectCode(l *leaf) bool {
	if len(l.args) == 0 || !l.args[0].Literal {
		return false
	}
	name, args := runName(l.args)
	if strings.Contains(name, "/") && !strings.HasPrefix(name, "/") {
		return true // ./build.sh, node_modules/.bin/x
	}
	sub := ""
	if pos := positionals(args, 1); len(pos) > 0 {
		sub = pos[0]
	}
	switch name {
	case "make", "gmake", "just", "rake", "ninja", "npx", "pnpx", "bunx", "tox", "nox", "pytest",
		"python", "python3", "node", "ruby", "perl", "php", "deno":
		return true
	case "npm", "pnpm", "yarn", "bun":
		for _, a := range args {
			if strings.HasPrefix(a.Value, "--ignore-scripts") {
				return false // only links and copies packages (file: links lead anywhere)
			}
		}
		switch sub {
		case "run", "run-script", "test", "t", "start", "stop", "restart", "install", "i", "ci", "exec", "x":
			return true
		}
		return name == "yarn" && sub != "" && sub != "add" && sub != "remove" // yarn NAME runs a script
	case "go":
		return sub == "run" || sub == "test" || sub == "generate"
	case "cargo":
		switch sub {
		case "run", "build", "b", "test", "t", "bench", "check", "c", "install":
			return true
		}
	case "uv", "poetry", "pipenv":
		return sub == "run"
	case "gradle", "mvn", "sbt":
		return true
	}
	return false
}

// isExtraction reports an archive extraction (tar -x, unzip).
func isExtraction(l *leaf) bool {
	if len(l.args) == 0 {
		return false
	}
	name, args := runName(l.args)
	_, ok := extractionOf(append([]word{{Value: name}}, args...))
	return ok
}

// riskyOption is codeOption, or why what the command writes is unknown
// (an archive whose members could not be read): either way a wildcard
// rule was not written for it.
func riskyOption(l *leaf) string {
	if s := codeOption(l); s != "" {
		return s
	}
	if s := substLead(l); s != "" {
		return s
	}
	return l.opaque
}

// codeOption returns the first argument of a simple command that makes it
// run a program the command line chooses (git push --receive-pack=CMD,
// make --eval=..., make CC=..., go test -toolexec=CMD, npm test
// --script-shell=CMD), or "". Wildcard allow rules do not cover such
// commands: Bash(git push:*) approved a push, not a shell command.
func codeOption(l *leaf) string {
	if len(l.args) == 0 {
		return ""
	}
	name, args := runName(l.args)
	var prefixes []string
	switch name {
	case "git":
		prefixes = []string{"--upload-pack", "--receive-pack", "--exec", "--config", "-c", "-u", "-x", "--extcmd", "--tool"}
	case "make", "gmake":
		for _, a := range args {
			if strings.Contains(a.Value, "=") && !strings.HasPrefix(a.Value, "-") {
				return a.Value // a variable: recipes expand it (CC=, SHELL=)
			}
		}
		prefixes = []string{"--eval", "-E", "-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir"}
	case "go":
		prefixes = []string{"-toolexec", "--toolexec", "-exec", "--exec", "-overlay", "--overlay", "-modfile", "--modfile"}
	case "npm", "npx", "pnpm", "yarn":
		prefixes = []string{"--script-shell", "--node-options", "--call", "-c", "--userconfig", "--globalconfig", "--prefix"}
	case "cargo":
		prefixes = []string{"--config", "-Z"}
	case "find":
		// Also what turns a search into a deletion or a write of files.
		prefixes = []string{"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
	case "curl":
		// A config file may name any output file, or run nothing but
		// write anywhere (output = .git/hooks/x).
		prefixes = []string{"-K", "--config"}
	case "wget":
		prefixes = []string{"-e", "--execute", "--config"}
	case "rg":
		prefixes = []string{"--pre"}
	case "tar", "gtar", "bsdtar":
		prefixes = []string{"--to-command", "--checkpoint-action", "--use-compress-program", "-I", "--rsh-command",
			"--info-script", "--new-volume-script", "-F"}
	case "rsync":
		prefixes = []string{"-e", "--rsh", "--rsync-path"}
	case "sort":
		prefixes = []string{"--compress-program"}
	case "zip":
		prefixes = []string{"-TT", "--unzip-command"}
	case "man":
		prefixes = []string{"-P", "--pager", "-H", "--html"}
	case "ssh", "scp", "sftp":
		return sshCodeOption(name, args)
	default:
		return ""
	}
	if name == "git" {
		// Subcommands that run a command line: git submodule foreach CMD,
		// git bisect run CMD; and options of others.
		prefixes = append(prefixes, "-O", "--open-files-in-pager", "--template", "--exec-path", "--sendmail-cmd",
			"--output", "--ext-diff", "--textconv",
			"--smtp-server", "--index-filter", "--tree-filter", "--msg-filter", "--env-filter", "--commit-filter",
			"--parent-filter", "--tag-name-filter")
		pos := positionals(gitArgsAfterGlobals(args), 2)
		if len(pos) == 2 && (pos[0] == "submodule" && pos[1] == "foreach" || pos[0] == "bisect" && pos[1] == "run") {
			return pos[0] + " " + pos[1]
		}
	}
	for _, a := range args {
		if a.Value == "--" {
			break
		}
		for _, p := range prefixes {
			if a.Value == p || strings.HasPrefix(a.Value, p+"=") || len(p) == 2 && strings.HasPrefix(a.Value, p) && !strings.HasPrefix(a.Value, "--") {
				return a.Value
			}
			// getopt_long, git and npm take an unambiguous prefix of a long
			// option (tar --to-com=CMD is --to-command=CMD): a prefix of a
			// risky option counts as it.
			if strings.HasPrefix(p, "--") && strings.HasPrefix(a.Value, "--") {
				name, _, _ := strings.Cut(a.Value, "=")
				if len(name) >= 4 && strings.HasPrefix(p, name) {
					return a.Value
				}
			}
		}
	}
	return ""
}

// stdinScript reports a command that runs the script on its standard
// input: a shell without -c and without a script file (sh, bash -s, sh -,
// bash /dev/stdin), and source or . of /dev/stdin.
func stdinScript(l *leaf) bool {
	if len(l.args) == 0 {
		return false
	}
	name, args := runName(l.args)
	isStdin := func(s string) bool {
		return s == "-" || s == "/dev/stdin" || s == "/dev/fd/0" || s == "/proc/self/fd/0"
	}
	switch {
	case name == "source" || name == ".":
		return len(args) > 0 && isStdin(args[0].Value)
	case shells[cmdName(word{Value: name})]:
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a.Value == "-o" || a.Value == "+o" || a.Value == "-O" || a.Value == "+O" || a.Value == "--rcfile" || a.Value == "--init-file":
				i++ // the option's value
			case a.Value == "-c" || strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "--") && strings.ContainsRune(a.Value[1:], 'c'):
				return false
			case a.Value == "-s" || isStdin(a.Value):
				return true
			case strings.HasPrefix(a.Value, "-") || strings.HasPrefix(a.Value, "+"):
			default:
				return false // a script file
			}
		}
		return true
	}
	return false
}

// matchMade is the deny side's look at commands that make another name
// for the rule's command or feed it its script from text:
//
//   - alias r=rm (bash -c expands aliases defined on an earlier line once
//     expand_aliases is set), the value matched as a command line, and
//     its command name alone;
//   - ln -s /bin/rm r, cp "$(command -v rm)" r, install, mv: a copy or
//     link of the program under a name no rule knows;
//   - xargs fed by a here-string or here-document: the commands it would
//     run with that input (xargs -I{} sh -c {} <<< 'rm -rf x').
func matchMade(m *ruleMatcher, l *leaf, depth int) bool {
	if len(l.args) == 0 || len(m.Lits) == 0 {
		return false
	}
	name, args := runName(l.args)
	lit := m.Lits[0]
	mentions := func(w word) bool {
		if cmdName(w) == lit || rulematch.Covers(w, lit, true) {
			return true
		}
		if w.Literal {
			return false
		}
		for _, f := range strings.FieldsFunc(w.Value, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.+", r))
		}) {
			if f == lit {
				return true
			}
		}
		return false
	}
	switch name {
	case "alias":
		for _, a := range args {
			_, v, ok := strings.Cut(a.Value, "=")
			if !ok {
				continue
			}
			if f := strings.Fields(v); len(f) > 0 && (f[0] == lit || strings.HasSuffix(f[0], "/"+lit)) {
				return true
			}
			if depth < maxScriptDepth {
				if _, any := matchRule(m, v, depth+1); any {
					return true
				}
			}
		}
	case "ln", "link", "cp", "install", "mv", "rsync":
		for _, a := range args {
			if !strings.HasPrefix(a.Value, "-") && mentions(a) {
				return true
			}
		}
	case "xargs":
		var body string
		for _, r := range l.redirs {
			if r.hdoc {
				body += r.body.Value + "\n"
			}
		}
		if body == "" || depth >= maxScriptDepth {
			return false
		}
		replace := ""
		for i, a := range args {
			switch {
			case (a.Value == "-I" || a.Value == "--replace") && i+1 < len(args):
				replace = args[i+1].Value
			case strings.HasPrefix(a.Value, "-I") && len(a.Value) > 2:
				replace = a.Value[2:]
			case a.Value == "-i" || a.Value == "--replace=" || strings.HasPrefix(a.Value, "--replace="):
				replace = strings.TrimPrefix(strings.TrimPrefix(a.Value, "--replace="), "-i")
				if replace == "" {
					replace = "{}"
				}
			}
		}
		run := skipOpts(args, "ILnPsdEa", "max-args max-lines max-procs max-chars delimiter arg-file process-slot-var")
		for _, line := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
			var b strings.Builder
			for i, w := range run {
				if i > 0 {
					b.WriteByte(' ')
				}
				v := w.Value
				if replace != "" {
					v = strings.ReplaceAll(v, replace, line)
				}
				b.WriteString(ruleQuote(v))
			}
			if replace == "" {
				b.WriteString(" " + line)
			}
			if _, any := matchRule(m, b.String(), depth+1); any {
				return true
			}
		}
	}
	return false
}

// sshCodeOption returns an ssh, scp or sftp option that runs a local
// command or reads a configuration that may (-o ProxyCommand=..., -F
// FILE, scp -S PROGRAM), or "".
func sshCodeOption(name string, args []word) string {
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if a == "--" || !strings.HasPrefix(a, "-") {
			if name == "ssh" {
				return "" // the destination: what follows is the remote command
			}
			continue
		}
		var val string
		switch {
		case a == "-o" && i+1 < len(args):
			val = args[i+1].Value
		case strings.HasPrefix(a, "-o"):
			val = a[2:]
		case a == "-F" || strings.HasPrefix(a, "-F"), name != "ssh" && (a == "-S" || strings.HasPrefix(a, "-S")),
			name == "sftp" && (a == "-D" || strings.HasPrefix(a, "-D")):
			return a
		default:
			continue
		}
		key := strings.ToLower(strings.TrimLeft(val, " \t"))
		for _, k := range []string{"proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "match", "include"} {
			if strings.HasPrefix(key, k) {
				return a + " " + val
			}
		}
	}
	return ""
}

// matchHidden is the deny side's fail-closed look at what a simple command
// may run without saying so (a deny rule matches when it may): a command
// whose name is known only at run time ($a x, rm${IFS}x); the rule's
// command anywhere in the argument list (chrt -o 0 rm x, runuser -- rm x,
// echo rm x | sh); a word that is itself a command line (trap "rm x" EXIT,
// git -c alias.r='!rm x' r, parallel ::: 'rm x'); and git -c alias.NAME,
// which can rename any git command.
func matchHidden(m *ruleMatcher, l *leaf, form []string, depth int) bool {
	if len(l.args) > 0 && !l.args[0].Literal {
		return true
	}
	if matchMade(m, l, depth) {
		return true
	}
	// A message (git commit -m "rm old files") is text, not a command.
	message := func(i int) bool {
		return i > 0 && i-1 < len(form) && (form[i-1] == "-m" || form[i-1] == "--message" || form[i-1] == "-am")
	}
	for i := 1; i < len(form); i++ {
		if !message(i) && !strings.HasPrefix(form[i], "--message=") && m.Words(form[i:]) {
			return true
		}
	}
	for i, w := range l.args {
		s := w.Value
		if i > 0 && l.args[0].Value == "git" && strings.HasPrefix(strings.ToLower(s), "alias.") && l.args[i-1].Value == "-c" {
			return true
		}
		if depth >= maxScriptDepth || !strings.ContainsAny(s, " \t;&|\n") || message(i) || strings.HasPrefix(s, "--message=") {
			continue
		}
		for _, text := range []string{s, s[strings.IndexAny(s, "=!")+1:]} {
			if _, a := matchRule(m, text, depth+1); a {
				return true
			}
		}
	}
	return false
}

// writes reports whether the leaf writes a file through a redirection.
func (l *leaf) writes() bool { return writesFile(l) }

// ruleCoverable reports whether an allow rule may pass the leaf: a literal
// command name, no unsafe leading assignment, a known working directory in
// a working directory, output redirections only into working directories.
func (a *Analysis) ruleCoverable(l *leaf) bool {
	if _, ok := ruleForm(l); !ok || l.cwdUnknown || a.cfg == nil {
		return false
	}
	an := &analyzer{cfg: a.cfg}
	if x := a.cfg.policy.Classify(l.cwd); x.Inside == "" {
		return false
	}
	for _, r := range l.redirs {
		for _, w := range r.ws {
			if r.hdoc || !isWriteRedir(r.op, w.Value) || exemptDev(w.Value) {
				continue
			}
			x := an.judge(w, l)
			if x.inside() == "" || x.Protected {
				return false
			}
		}
	}
	return true
}

// subcommandTools take a subcommand as their first word: a suggestion for
// them names the subcommand ("git push:*"), not the whole line.
var subcommandTools = map[string]int{
	"git": 1, "npm": 1, "pnpm": 1, "yarn": 1, "bun": 1, "go": 1, "cargo": 1, "docker": 1, "kubectl": 1,
	"pip": 1, "pip3": 1, "uv": 1, "poetry": 1, "gh": 1, "terraform": 1, "helm": 1, "brew": 1, "dotnet": 1,
	"mvn": 1, "gradle": 1, "make": 1, "bundle": 1, "rake": 1, "composer": 1, "mix": 1, "swift": 1, "deno": 1,
	"nx": 1, "turbo": 1, "pnpx": 1, "just": 1, "task": 1, "rustup": 1, "conda": 1, "pipenv": 1,
}

// scriptRunners run a named script: the suggestion names the script too
// ("npm run build:*", not "npm run:*").
var scriptRunners = map[string]bool{"npm run": true, "pnpm run": true, "yarn run": true, "bun run": true,
	"go run": true, "cargo run": true, "uv run": true, "poetry run": true, "npm exec": true, "pipenv run": true}

// Suggestions returns allow-rule contents that, added as allow rules, let
// the analysed command run: one per simple command that is neither
// read-only nor allowed, "tool subcommand:*" for tools with subcommands and
// the exact command otherwise (so approving find . -delete never allows
// find . -exec ...). It returns nil when no set of rules can let the
// command through (a bypass-immune Ask, a simple command rules cannot
// cover) or when more than ten would be needed.
func (a *Analysis) Suggestions() []string { return a.SuggestionsGiven(nil) }

// SuggestionsGiven is [Analysis.Suggestions] for a command that already
// has the allow rules contents: it proposes rules only for the simple
// commands that still need one, so that contents and the suggestions
// together let the command through ([Analysis.AllowedBy]).
func (a *Analysis) SuggestionsGiven(contents []string) []string {
	if a == nil || a.Verdict == Allow || a.Verdict == Ask && a.BypassImmune {
		return nil
	}
	// What each command needs: nothing (allowed), a rule, or nothing once
	// the commands that change the layout before it are trusted (pending).
	const (
		allowed = iota
		needsRule
		pending
	)
	need := make([]int, len(a.Commands))
	anyPending := false
	for i := range a.Commands {
		c := &a.Commands[i]
		switch l := c.leaf; {
		case c.Verdict == Allow && !(l != nil && l.needsEnv):
			need[i] = allowed
		case c.Verdict == Ask || l == nil || !a.ruleCoverable(l):
			return nil
		case l.roButTaint && !l.writes() && !l.needsEnv || l.editButTaint:
			need[i] = pending
			anyPending = true
		default:
			need[i] = needsRule
		}
	}
	// The pending commands pass when every layout-changing command will be
	// covered; else they need rules of their own.
	if anyPending && !a.layoutTrusted(func(l *leaf) bool {
		for i := range a.Commands {
			if a.Commands[i].leaf == l {
				return need[i] == needsRule
			}
		}
		return false
	}) {
		for i := range need {
			if need[i] == pending {
				need[i] = needsRule
			}
		}
	}
	var out []string
	for i := range a.Commands {
		c := &a.Commands[i]
		if need[i] != needsRule {
			continue
		}
		if _, ok := a.coveringRule(c.leaf, contents); ok {
			continue
		}
		form, _ := ruleForm(c.leaf)
		s := suggestFor(form, riskyOption(c.leaf) != "")
		if s == "" {
			return nil
		}
		out = appendUnique(out, s)
	}
	if len(out) > 10 {
		return nil
	}
	return out
}

// suggestFor proposes the rule for one command: "tool subcommand:*" for
// subcommand tools, exact otherwise, and exact when the command runs a
// program its options name (exact is the only rule that passes it, and it
// passes nothing else).
func suggestFor(form []string, exact bool) string {
	if len(form) == 0 {
		return ""
	}
	name := form[0]
	if !exact && subcommandTools[name] > 0 && len(form) > 1 && plainWord(form[1]) {
		n := 2
		if scriptRunners[name+" "+form[1]] && len(form) > 2 && plainWord(form[2]) {
			n = 3
		}
		return strings.Join(form[:n], " ") + ":*"
	}
	var b strings.Builder
	for i, w := range form {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(ruleQuote(w))
	}
	return b.String()
}

// plainWord is a subcommand-like word: letters, digits, - _ . : @ /, not
// starting with "-".
func plainWord(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.:@/", c) >= 0) {
			return false
		}
	}
	return true
}

// ruleQuote writes a word so that ruleWords reads it back exactly: bare
// when it holds only safe characters, else single-quoted, with * written \*
// (a literal star) and ' as '\”.
func ruleQuote(w string) string {
	safe := w != ""
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_./=:,@%+~", c) >= 0) {
			safe = false
			break
		}
	}
	if safe && !strings.HasSuffix(w, ":") {
		return w
	}
	r := strings.NewReplacer(`'`, `'\''`, `*`, `\*`)
	return "'" + r.Replace(w) + "'"
}

// Suggestions returns the allow-rule contents that would let command run
// in the process's working directory (see Analysis.Suggestions); tools
// that know where the command runs should call Analyze and
// Analysis.Suggestions instead.
func Suggestions(command string) []string {
	return Analyze(command, nil).Suggestions()
}
