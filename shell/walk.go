package shell

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolscope/toolscope/shell/internal/unquote"
)

// The walker turns a parsed command into leaves (simple commands) with what
// the shell will know when each runs: its working directory, the
// redirections in force (its own and its enclosing compounds'), the loop
// variables in scope, and which other leaves may run before it or beside
// it. Loops, conditionals, groups, subshells and substitutions are walked,
// not refused; anything whose effect depends on run-time evaluation that
// the analyser does not model (arithmetic, functions, declarations) was
// refused by scan before.

// word is a normalised argument (package unquote): the analyser speaks of
// words everywhere.
type word = unquote.Word

// cwdState is the shell's working directory at some point of the command.
type cwdState struct {
	dir     string // the physical directory (where relative paths resolve)
	pwd     string // bash's logical $PWD (what cd .. and ~+ use)
	unknown bool   // a cd the analyser cannot follow happened before
	none    bool   // this point cannot be reached (after a cd that cannot fail, its failure)
}

func merge(a, b cwdState) cwdState {
	switch {
	case a.none:
		return b
	case b.none:
		return a
	case a.unknown || b.unknown || a.dir != b.dir || a.pwd != b.pwd:
		return cwdState{unknown: true, dir: a.dir, pwd: a.pwd}
	}
	return a
}

// outcome is the working directory after a statement, when it succeeded
// and when it failed.
type outcome struct{ ok, fail cwdState }

func same(s cwdState) outcome { return outcome{ok: s, fail: s} }

func (o outcome) any() cwdState { return merge(o.ok, o.fail) }

// redir is one redirection, normalised.
type redir struct {
	op   syntax.RedirOperator
	fd   string // the file descriptor as written ("" for the default)
	ws   []word // the target (several for a loop variable with several values)
	hdoc bool   // a here-document or here-string (stdin from text)
	body word   // a here-document's or here-string's text
}

// scope is what a statement inherits from the constructs around it.
type scope struct {
	cwd    cwdState
	redirs []redir
	bg     bool
	groups []int // loops, pipelines and process substitutions it runs in
	subst  bool
	timed  bool
	binds  map[string]unquote.Binding
	steer  string // an environment-steering variable the command set in this scope
	piped  bool   // standard input comes from a pipe (the right side of |)
}

func (sc scope) with(group int) scope {
	sc.groups = append(append([]int(nil), sc.groups...), group)
	return sc
}

// leaf is one simple command with what applies to it.
type leaf struct {
	idx        int // position in execution order (substitutions before their command)
	text       string
	args       []word
	assigns    []string // names of leading assignments
	assignVals []word   // their values
	redirs     []redir
	background bool
	badWords   string // why the words could not be normalised
	cwd        string // physical
	pwd        string // logical ($PWD)
	cwdUnknown bool
	emptyCmd   bool // redirections only
	timed      bool
	groups     []int
	subst      bool
	testClause bool   // a [[ ]] expression: its words are operands, not a command
	steer      string // an environment-steering variable set around it

	// Filled in by the analysis.
	kind         leafKind
	tainted      bool    // an earlier or concurrent command may change the filesystem layout
	afterEdit    bool    // an earlier or concurrent command creates or edits files
	afterDash    bool    // ... and may create one whose name starts with "-"
	planned      *roPlan // the read-only plan, once made
	roButTaint   bool    // it would be read-only but for the taint
	editButTaint bool    // accept_edits would allow it but for the taint
	needsEnv     bool    // it is read-only only with the hardened environment
	opaque       string  // what it writes cannot be known (an archive's members): wildcard rules do not cover it
	piped        bool    // its standard input comes from a pipe

	argsBuf [3]word // room for the args of the usual short command
}

type walker struct {
	an       *analyzer
	steered  string // a steering variable an earlier plain assignment set
	nextID   int
	bgGroups []int // background jobs started so far: later leaves run beside them
	leaves   []*leaf
}

func (w *walker) id() int { w.nextID++; return w.nextID }

// stmts walks a statement list in sequence.
func (w *walker) stmts(list []*syntax.Stmt, sc scope) outcome {
	out := same(sc.cwd)
	for i, st := range list {
		if i > 0 {
			sc.cwd = out.any()
		}
		out = w.stmt(st, sc)
	}
	return out
}

func (w *walker) stmt(st *syntax.Stmt, sc scope) outcome {
	before := sc.cwd
	if len(st.Redirs) > 0 {
		sc.redirs = append(append([]redir(nil), sc.redirs...), w.redirs(st.Redirs, sc)...)
	}
	bgGroup := 0
	if st.Background || st.Disown {
		bgGroup = w.id()
		sc = sc.with(bgGroup)
		sc.bg = true
	}
	o := w.cmd(st, sc)
	if st.Negated {
		o.ok, o.fail = o.fail, o.ok
	}
	if bgGroup != 0 {
		w.bgGroups = append(w.bgGroups, bgGroup)
		return same(before) // a background job runs in a subshell
	}
	return o
}

func (w *walker) cmd(st *syntax.Stmt, sc scope) outcome {
	switch c := st.Cmd.(type) {
	case nil:
		w.add(&leaf{text: w.an.stmtText(st), emptyCmd: true}, sc)
		return same(sc.cwd)
	case *syntax.CallExpr:
		return w.call(st, c, sc)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt:
			x := w.stmt(c.X, sc)
			sc.cwd = x.ok
			y := w.stmt(c.Y, sc)
			return outcome{ok: y.ok, fail: merge(x.fail, y.fail)}
		case syntax.OrStmt:
			x := w.stmt(c.X, sc)
			sc.cwd = x.fail
			y := w.stmt(c.Y, sc)
			return outcome{ok: merge(x.ok, y.ok), fail: y.fail}
		default: // | and |&: every side runs in its own subshell, all at once
			g := w.id()
			inner := sc.with(g)
			w.stmt(c.X, inner)
			right := inner
			right.piped = true
			w.stmt(c.Y, right)
			if hasCd(c) {
				// bash and dash run every side in a subshell, but zsh and
				// bash with lastpipe run the last in the shell itself.
				return same(cwdState{unknown: true, dir: sc.cwd.dir, pwd: sc.cwd.pwd})
			}
			return same(sc.cwd)
		}
	case *syntax.Subshell:
		w.stmts(c.Stmts, sc)
		return same(sc.cwd)
	case *syntax.Block:
		return w.stmts(c.Stmts, sc)
	case *syntax.TimeClause:
		if c.Stmt == nil {
			w.add(&leaf{text: w.an.stmtText(st), args: []word{{Value: "time", Literal: true}}}, sc)
			return same(sc.cwd)
		}
		sc.timed = true
		return w.stmt(c.Stmt, sc)
	case *syntax.IfClause:
		return w.ifClause(c, sc)
	case *syntax.WhileClause:
		return w.loop(c, sc, func(in scope) {
			binds := readVars(c.Cond)
			w.stmts(c.Cond, in)
			if !c.Until && len(binds) > 0 {
				in.binds = bindUnknown(in.binds, binds)
			}
			w.stmts(c.Do, in)
		})
	case *syntax.ForClause:
		return w.forClause(c, sc)
	case *syntax.CaseClause:
		w.words([]*syntax.Word{c.Word}, sc)
		out := outcome{ok: sc.cwd, fail: cwdState{none: true}} // no pattern matched
		for _, item := range c.Items {
			w.words(item.Patterns, sc)
			o := w.stmts(item.Stmts, sc)
			out = outcome{ok: merge(out.ok, o.ok), fail: merge(out.fail, o.fail)}
		}
		return out
	case *syntax.TestClause:
		l := &leaf{text: w.an.stmtText(st), testClause: true}
		w.testExpr(c.X, l, sc)
		w.add(l, sc)
		return same(sc.cwd)
	}
	w.an.unsupportedf("%T", st.Cmd)
	return same(cwdState{unknown: true})
}

func (w *walker) ifClause(c *syntax.IfClause, sc scope) outcome {
	cond := w.stmts(c.Cond, sc)
	then := sc
	then.cwd = cond.ok
	t := w.stmts(c.Then, then)
	var e outcome
	if c.Else != nil {
		els := sc
		els.cwd = cond.fail
		if len(c.Else.Cond) > 0 {
			e = w.ifClause(c.Else, els)
		} else {
			e = w.stmts(c.Else.Then, els)
		}
	} else {
		e = outcome{ok: cond.fail, fail: cwdState{none: true}}
	}
	return outcome{ok: merge(t.ok, e.ok), fail: merge(t.fail, e.fail)}
}

// loop walks a loop body once, in a group of its own: its commands may run
// in any order relative to each other. A cd inside makes the directory
// unknown throughout.
func (w *walker) loop(n syntax.Node, sc scope, body func(scope)) outcome {
	in := sc.with(w.id())
	if hasCd(n) {
		in.cwd = cwdState{unknown: true, dir: sc.cwd.dir, pwd: sc.cwd.pwd}
		body(in)
		return same(in.cwd)
	}
	body(in)
	return same(sc.cwd)
}

func (w *walker) forClause(c *syntax.ForClause, sc scope) outcome {
	wi, ok := c.Loop.(*syntax.WordIter)
	if !ok || c.Select {
		w.an.unsupportedf("%s loop", map[bool]string{true: "select", false: "C-style for"}[c.Select])
		return same(cwdState{unknown: true})
	}
	w.words(wi.Items, sc)
	name := wi.Name.Value
	b := unquote.Binding{}
	if wi.InPos.IsValid() {
		u := w.an.unquoter(sc.binds)
		var vals []word
		ok := true
		for _, item := range wi.Items {
			if vals, ok = u.ExpandWord(item, vals); !ok {
				break
			}
		}
		for _, v := range vals {
			if !v.Literal {
				ok = false
			}
			// for x in $GITHUB_TOKEN: $x holds what the items held.
			b.Secret = b.Secret || v.BadParam
		}
		if !ok && vals == nil {
			b.Secret = true // the items could not be expanded: anything
		}
		if ok {
			if vals == nil {
				vals = []word{}
			}
			b.Values = vals
		}
	}
	return w.loop(c, sc, func(in scope) {
		if steering(name) {
			in.steer = name
		}
		in.binds = withBinding(in.binds, name, b)
		if reassigns(c.Do, name) {
			// x=$GITHUB_TOKEN in the body: the value is unknown, and may
			// be a secret.
			in.binds[name] = unquote.Binding{Secret: true}
		}
		w.stmts(c.Do, in)
	})
}

func (w *walker) call(st *syntax.Stmt, c *syntax.CallExpr, sc scope) outcome {
	// Substitutions run first, in subshells.
	for _, as := range c.Assigns {
		if as.Value != nil {
			w.words([]*syntax.Word{as.Value}, sc)
		}
	}
	w.words(c.Args, sc)
	l := &leaf{text: w.an.callText(st, c)}
	u := w.an.unquoter(sc.binds)
	for _, as := range c.Assigns {
		if as.Value != nil {
			l.assignVals = append(l.assignVals, u.UnquoteParts(as.Value.Parts, nil))
		}
		if as.Name != nil {
			l.assigns = append(l.assigns, as.Name.Value)
		} else {
			l.assigns = append(l.assigns, "?")
		}
	}
	var ok bool
	if len(c.Args) <= len(l.argsBuf) {
		l.args = l.argsBuf[:0]
	} else {
		l.args = make([]word, 0, len(c.Args))
	}
	// Brace expansions that would take the command line past its word
	// budget are not built: the line is too complex anyway.
	if w.an.bracesOverBudget(c.Args) {
		w.an.wordsOver = true
	}
	for _, wd := range c.Args {
		if w.an.wordsOver {
			break
		}
		if len(l.args) > maxLeafWords {
			l.badWords = fmt.Sprintf("more than %d words after brace expansion", maxLeafWords)
			break
		}
		if l.args, ok = u.ExpandWord(wd, l.args); !ok && l.badWords == "" {
			l.badWords = "a brace expansion that cannot be verified (ambiguous or too large)"
		}
	}
	w.an.words += len(l.args)
	w.add(l, sc)
	if len(l.args) == 0 && !sc.bg && !sc.subst {
		for _, n := range l.assigns {
			if steering(n) || n == "?" {
				w.steered = n
			}
		}
	}
	if len(l.args) > 0 && !l.subst {
		switch l.args[0].Value {
		case "cd":
			return w.an.cd(l, sc.cwd)
		case "pushd", "popd":
			u := cwdState{unknown: true, dir: sc.cwd.dir, pwd: sc.cwd.pwd}
			return outcome{ok: u, fail: u}
		}
	}
	return same(sc.cwd)
}

// add records a leaf with its scope.
func (w *walker) add(l *leaf, sc scope) {
	l.idx = len(w.leaves)
	l.redirs = sc.redirs
	l.background = sc.bg
	l.cwd, l.pwd, l.cwdUnknown = sc.cwd.dir, sc.cwd.pwd, sc.cwd.unknown
	l.groups = append(append([]int(nil), sc.groups...), w.bgGroups...)
	l.subst = sc.subst
	l.timed = sc.timed
	l.piped = sc.piped
	l.steer = sc.steer
	if l.steer == "" {
		l.steer = w.steered
	}
	w.leaves = append(w.leaves, l)
}

// words walks the substitutions inside words: command substitutions run in
// a subshell before the command, process substitutions beside it.
func (w *walker) words(ws []*syntax.Word, sc scope) {
	if !w.an.substs {
		return // scan saw no substitution anywhere
	}
	for _, wd := range ws {
		if wd == nil {
			continue
		}
		syntax.Walk(wd, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CmdSubst:
				in := sc
				in.subst = true
				in.redirs = nil
				w.stmts(n.Stmts, in)
				return false
			case *syntax.ProcSubst:
				in := sc.with(w.id())
				in.subst = true
				in.redirs = nil
				w.stmts(n.Stmts, in)
				return false
			}
			return true
		})
	}
}

// redirs normalises redirections, walking the substitutions in their
// targets and here-documents.
func (w *walker) redirs(rs []*syntax.Redirect, sc scope) []redir {
	u := w.an.unquoter(sc.binds)
	out := make([]redir, 0, len(rs))
	for _, r := range rs {
		n := redir{op: r.Op}
		if r.N != nil {
			n.fd = r.N.Value
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			n.hdoc = true
			if r.Hdoc != nil {
				w.words([]*syntax.Word{r.Hdoc}, sc)
				n.body = u.UnquoteParts(r.Hdoc.Parts, nil)
			}
		case syntax.WordHdoc:
			n.hdoc = true
			w.words([]*syntax.Word{r.Word}, sc)
			n.body = u.UnquoteParts(r.Word.Parts, nil)
		default:
			if r.Word != nil {
				w.words([]*syntax.Word{r.Word}, sc)
				ws, ok := u.ExpandWord(r.Word, nil)
				if !ok || len(ws) == 0 {
					ws = []word{{Value: unquote.NodeText(w.an.src, r.Word)}} // not literal: judged as dynamic
				}
				n.ws = ws
			}
		}
		out = append(out, n)
	}
	return out
}

// testExpr collects the words of a [[ ]] expression into l, refusing the
// operators that evaluate their operands as code: arithmetic comparisons
// (x='a[$(cmd)]' runs cmd in [[ $x -eq 1 ]]) of non-literal operands, and
// -v / -R (which evaluate an array subscript).
func (w *walker) testExpr(x syntax.TestExpr, l *leaf, sc scope) {
	u := w.an.unquoter(sc.binds)
	var visit func(syntax.TestExpr)
	visit = func(x syntax.TestExpr) {
		switch x := x.(type) {
		case *syntax.BinaryTest:
			visit(x.X)
			visit(x.Y)
			if isArithTest(x.Op) {
				for _, side := range []syntax.TestExpr{x.X, x.Y} {
					if wd, ok := side.(*syntax.Word); !ok || !unquote.UnquoteWord(w.an.src, wd).Literal {
						w.an.unsupportedf("arithmetic comparison of a value known only at run time in [[ ]]")
					}
				}
			}
		case *syntax.UnaryTest:
			if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
				w.an.unsupportedf("[[ %s ]]", x.Op)
			}
			visit(x.X)
		case *syntax.ParenTest:
			visit(x.X)
		case *syntax.Word:
			w.words([]*syntax.Word{x}, sc)
			l.args, _ = u.ExpandWord(x, l.args)
		}
	}
	visit(x)
}

func isArithTest(op syntax.BinTestOperator) bool {
	switch op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		return true
	}
	return false
}

// hasCd reports a cd, pushd or popd anywhere in n.
func hasCd(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			switch c.Args[0].Lit() {
			case "cd", "pushd", "popd":
				found = true
			}
		}
		return !found
	})
	return found
}

// readVars returns the variables that read (and mapfile) commands in the
// statements assign.
func readVars(list []*syntax.Stmt) []string {
	var names []string
	for _, st := range list {
		syntax.Walk(st, func(n syntax.Node) bool {
			c, ok := n.(*syntax.CallExpr)
			if !ok || len(c.Args) == 0 || c.Args[0].Lit() != "read" {
				return true
			}
			for _, a := range c.Args[1:] {
				s := a.Lit()
				if s != "" && !strings.HasPrefix(s, "-") && isName(s) {
					names = append(names, s)
				}
			}
			return true
		})
	}
	return names
}

// reassigns reports whether the statements may assign name (an assignment,
// read, printf -v, a for loop over it, ...): its loop value is then unknown.
func reassigns(list []*syntax.Stmt, name string) bool {
	found := false
	for _, st := range list {
		syntax.Walk(st, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Assign:
				if n.Name != nil && n.Name.Value == name {
					found = true
				}
			case *syntax.WordIter:
				if n.Name != nil && n.Name.Value == name {
					found = true
				}
			case *syntax.CallExpr:
				for _, a := range n.Args {
					if a.Lit() == name {
						found = true // read name, printf -v name, mapfile name, getopts ... name
					}
				}
			}
			return !found
		})
	}
	return found
}

func withBinding(m map[string]unquote.Binding, name string, b unquote.Binding) map[string]unquote.Binding {
	out := make(map[string]unquote.Binding, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[name] = b
	return out
}

func bindUnknown(m map[string]unquote.Binding, names []string) map[string]unquote.Binding {
	for _, n := range names {
		m = withBinding(m, n, unquote.Binding{})
	}
	return m
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// bracesOverBudget reports whether the brace expansions of args would
// surely take the command line past its word budget, counting without
// building them (a line of many large expansions is refused before any
// is built).
func (an *analyzer) bracesOverBudget(args []*syntax.Word) bool {
	budget := an.cfg.wordBudget()
	braced := 0
	for _, wd := range args {
		if unquote.HasBraceChar(wd) {
			braced++
		}
	}
	if an.words+len(args)+braced*unquote.MaxBraceWords <= budget {
		return false // the common case: it cannot happen
	}
	total := an.words
	for _, wd := range args {
		total += unquote.BraceCount(wd)
		if total > budget {
			return true
		}
	}
	return false
}
