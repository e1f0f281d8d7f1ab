package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/toolscope/toolscope/internal/counters"
	"github.com/toolscope/toolscope/internal/pathpolicy"
	"github.com/toolscope/toolscope/shell/internal/fastparse"
	"github.com/toolscope/toolscope/shell/internal/gitrepo"
	"github.com/toolscope/toolscope/shell/internal/outside"
	"github.com/toolscope/toolscope/shell/internal/screen"
	"github.com/toolscope/toolscope/shell/internal/unquote"
	"mvdan.cc/sh/v3/syntax"
)

const (
	defaultMaxCommands = 50
	defaultMaxLength   = 16384
	maxScriptDepth     = 3
	maxPeelDepth       = 8
	maxNesting         = 32 // bracket nesting; deeper input is refused (and slow to parse)
	maxTotalLeaves     = 200
	maxLeafWords       = 512
)

var parserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash))
}}

// config is the normalised form of Options.
type config struct {
	cwd         string
	workDirs    []string
	home        string
	maxCommands int
	maxLength   int
	acceptEdits bool
	hardened    bool
	policy      *pathpolicy.Policy // &pol
	access      outside.Access     // every other look outside the command line

	pol     pathpolicy.Policy
	cwdOnly [1]string    // workDirs when only the cwd
	budget  budget       // the top-level Analyze call's
	file    *syntax.File // the top-level command's parse, once made
}

func newConfig(o *Options) *config {
	c := &config{maxCommands: defaultMaxCommands, maxLength: defaultMaxLength}
	if o == nil {
		o = &Options{}
	}
	c.acceptEdits = o.Mode == "accept_edits" || o.Mode == "dont_ask"
	c.hardened = o.HardenedEnv
	c.access = o.access
	if c.access == nil {
		c.access = outside.System{}
	}
	c.cwd = o.Cwd
	if c.cwd == "" {
		c.cwd, _ = os.Getwd()
	}
	if c.cwd == "" || !filepath.IsAbs(c.cwd) {
		c.cwd = "/"
	}
	c.cwd = pathpolicy.Clean(c.cwd)
	c.workDirs = o.WorkingDirs
	if c.workDirs == nil {
		c.cwdOnly[0] = c.cwd
		c.workDirs = c.cwdOnly[:]
	}
	c.home = o.Home
	if c.home == "" {
		c.home, _ = os.UserHomeDir()
	}
	if c.home != "" {
		c.home = pathpolicy.Clean(c.home)
	}
	if o.MaxCommands > 0 {
		c.maxCommands = o.MaxCommands
	}
	if o.MaxLength > 0 {
		c.maxLength = o.MaxLength
	}
	pathpolicy.Init(&c.pol, &pathpolicy.Options{
		WorkingDirs: c.workDirs, Home: c.home,
		ProtectedFiles: o.DangerousFiles, ProtectedDirs: o.DangerousDirs,
		ProtectedPaths: o.ProtectedPaths, PathDirs: o.PathDirs,
	})
	c.policy = &c.pol
	return c
}

// Analyze decides whether command may run. opts may be nil. It never panics:
// an internal failure is reported as a bypass-immune Ask.
func Analyze(command string, opts *Options) *Analysis {
	counters.ShellAnalyses.Add(1)
	cfg := newConfig(opts)
	a := analyze(command, cfg, 0, &cfg.budget)
	if opts != nil && opts.KeepParse {
		a.parse = &parseInfo{src: command, file: cfg.file}
	}
	return a
}

// budget bounds the work of one Analyze call across nested scripts
// (sh -c, eval, ...), whose brace expansions could otherwise multiply.
type budget struct {
	bytes, leaves int
}

func analyze(command string, cfg *config, depth int, b *budget) (res *Analysis) {
	defer func() {
		if r := recover(); r != nil {
			res = wholeAsk(LayerParse, "Permission required: Command analysis failed, cannot verify safety",
				fmt.Sprintf("internal error: %v", r))
		}
	}()
	if strings.TrimSpace(command) == "" {
		return &Analysis{Verdict: Passthrough, Layer: LayerEmpty, Message: "Empty command", Reason: "empty command"}
	}
	if why := rejectReason(command, cfg.maxLength); why != "" {
		return wholeAsk(LayerReject, "Permission required: Command contains "+why+", which is not allowed", why)
	}
	b.bytes += len(command)
	if b.bytes > 4*cfg.maxLength {
		return wholeAsk(LayerLimit, "Permission required: Command is too complex to verify", "nested scripts exceed the size budget")
	}
	var f *syntax.File
	var kind string
	var n int
	var substs bool
	if depth == 0 {
		counters.ShellParses.Add(1)
	}
	if ff, ok := fastparse.Parse(command); ok {
		// One simple command of plain words: what scanAll would find.
		f, kind, n, substs = ff, "", 1, false
	} else {
		var err error
		if f, err = slowParse(command); err != nil {
			return wholeAsk(LayerParse, "Permission required: Command parsing failed, cannot verify safety",
				"parse error: "+err.Error())
		}
		if len(f.Stmts) == 0 {
			return &Analysis{Verdict: Passthrough, Layer: LayerEmpty, Message: "Empty command", Reason: "empty command"}
		}
		kind, n, substs = scanAll(f)
	}
	if depth == 0 {
		cfg.file = f // rule matching uses this parse (Analysis.MatchRule)
	}
	if n > cfg.maxCommands {
		return wholeAsk(LayerLimit,
			fmt.Sprintf("Permission required: Command has %d simple commands (more than %d), too many to verify", n, cfg.maxCommands),
			fmt.Sprintf("%d simple commands exceed the cap of %d", n, cfg.maxCommands))
	}
	if kind != "" {
		return injectionAsk(kind)
	}
	an := &analyzer{cfg: cfg, src: command, depth: depth, budget: b, substs: substs}
	w := &an.walker
	w.an = an
	start := cfg.cwd
	if r, err := cfg.policy.Resolve(start); err == nil {
		start = r.Path
	}
	w.stmts(f.Stmts, scope{cwd: cwdState{dir: start, pwd: cfg.cwd}})
	an.leaves = w.leaves
	if an.unsupported != "" {
		return injectionAsk(an.unsupported)
	}
	words := 0
	for _, l := range an.leaves {
		words += len(l.args)
	}
	b.leaves += len(an.leaves)
	if an.wordsOver {
		return wholeAsk(LayerLimit, "Permission required: Command is too complex to verify",
			fmt.Sprintf("%d simple commands and more than %d words after expansion exceed the budget", b.leaves, cfg.wordBudget()))
	}
	if b.leaves > maxTotalLeaves || words > cfg.wordBudget() {
		return wholeAsk(LayerLimit, "Permission required: Command is too complex to verify",
			fmt.Sprintf("%d simple commands and %d words after expansion exceed the budget", b.leaves, words))
	}
	return an.decide()
}

func wholeAsk(layer, msg, reason string) *Analysis {
	return &Analysis{Verdict: Ask, BypassImmune: true, Layer: layer, Message: msg, Reason: reason}
}

func injectionAsk(kind string) *Analysis {
	return wholeAsk(LayerInjection,
		"Permission required: Command contains "+kind+" which cannot be statically analyzed",
		"Safety check: command contains "+kind+" that cannot be statically analyzed")
}

func parse(command string) (*syntax.File, error) {
	if f, ok := fastparse.Parse(command); ok {
		return f, nil
	}
	return slowParse(command)
}

// slowParse is mvdan.cc/sh's parser.
func slowParse(command string) (*syntax.File, error) {
	p := parserPool.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(command), "")
	parserPool.Put(p)
	return f, err
}

// rejectReason reports characters that make parsers disagree with the
// shell, or that hide content from a human reviewer (see package screen).
func rejectReason(s string, maxLen int) string { return screen.Reject(s, maxLen, maxNesting) }

// injectionKind returns the name of the first construct that cannot be
// analysed statically, or "".
func injectionKind(f *syntax.File, src string) string {
	kind, _, _ := scanAll(f)
	return kind
}

// scan is scanAll without the substitutions.
func scan(f *syntax.File, _ string) (string, int) {
	kind, n, _ := scanAll(f)
	return kind, n
}

// scanAll walks the whole file once (see package screen): the first
// construct the analyser does not model, the number of simple commands,
// and whether there is a command or process substitution.
func scanAll(f *syntax.File) (string, int, bool) { return screen.Scan(f) }

type analyzer struct {
	substs      bool // the command holds a substitution (see walker.words)
	cfg         *config
	judged      []judgment
	views       outside.Views // directories listed (by git discovery, by above)
	git         gitrepo.Repos // the repositories of the line's git commands
	src         string
	depth       int
	leaves      []*leaf
	unsupported string
	budget      *budget
	walker      walker
	judgedBuf   [2]judgment
	words       int  // words of the leaves walked so far
	wordsOver   bool // a brace expansion would take them past wordBudget
}

// dirViews returns the line's directory listings, ready to use.
func (an *analyzer) dirViews() *outside.Views {
	if an.views.Access == nil {
		an.views.Access = an.cfg.access
	}
	return &an.views
}

// repos returns the judge of the line's git repositories, ready to use.
func (an *analyzer) repos() *gitrepo.Repos {
	if an.git.Views == nil {
		an.git = gitrepo.Repos{Policy: an.cfg.policy, Views: an.dirViews()}
	}
	return &an.git
}

// wordBudget is the most words, after brace expansion, that the leaves of
// one command line may hold.
func (c *config) wordBudget() int { return 16*c.maxCommands + 1024 }

func (an *analyzer) unsupportedf(format string, args ...any) {
	if an.unsupported == "" {
		an.unsupported = fmt.Sprintf(format, args...)
	}
}

func (an *analyzer) unquoter(binds map[string]unquote.Binding) *unquote.Unquoter {
	return &unquote.Unquoter{Src: an.src, Binds: binds}
}

func (an *analyzer) stmtText(st *syntax.Stmt) string {
	t := unquote.NodeText(an.src, st)
	return strings.TrimRight(strings.TrimSpace(t), ";&| \t\n")
}

// callText is the source of a call plus its own redirections, without the
// separator.
func (an *analyzer) callText(st *syntax.Stmt, c *syntax.CallExpr) string {
	start, end := int(c.Pos().Offset()), int(c.End().Offset())
	for _, r := range st.Redirs {
		if o := int(r.Pos().Offset()); o < start {
			start = o
		}
		if o := int(r.End().Offset()); o > end {
			end = o
		}
	}
	if start >= 0 && end <= len(an.src) && start <= end {
		return strings.TrimSpace(an.src[start:end])
	}
	return ""
}

func argvStrings(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Value
	}
	return out
}

// finding is a layer's objection to a simple command.
type finding struct {
	verdict Verdict
	immune  bool
	layer   string
	reason  string
	message string
}

// decide judges every leaf and combines the verdicts. The order matters:
// the deny-side layers first (dangerous patterns, removal, sed, sensitive
// paths), then what each leaf is (a reader, an edit, a command that may
// change the filesystem's layout), then which leaves run after such a
// command (their paths are unknown), then read-only and accept-edits.
// smallLeaves is the number of commands a line usually has at most: their
// verdict flags live on the stack.
const smallLeaves = 4

// newAnalysis returns an Analysis with n commands; the usual single
// command shares the Analysis's allocation.
func newAnalysis(n int) *Analysis {
	if n == 1 {
		a := new(struct {
			Analysis
			cmd [1]Command
		})
		a.Commands = a.cmd[:]
		return &a.Analysis
	}
	return &Analysis{Commands: make([]Command, n)}
}

func (an *analyzer) decide() *Analysis {
	res := newAnalysis(len(an.leaves))
	var flags [2 * smallLeaves]bool
	var judged, editable []bool
	if n := len(an.leaves); n <= smallLeaves {
		judged, editable = flags[:n], flags[smallLeaves:smallLeaves+n]
	} else {
		judged, editable = make([]bool, n), make([]bool, n)
	}
	execMsg := ""
	for i, l := range an.leaves {
		c := &res.Commands[i]
		c.Text = l.text
		c.Argv = argvStrings(l.args)
		c.leaf = l
		if f := an.checkLeaf(l); f != nil {
			c.Verdict, c.BypassImmune, c.Layer, c.Reason, c.message = f.verdict, f.immune, f.layer, f.reason, f.message
			judged[i] = true
			continue
		}
		l.kind = an.kindOf(l)
	}
	an.taint()
	for i, l := range an.leaves {
		if judged[i] {
			continue
		}
		c := &res.Commands[i]
		ro, redirOnly, why, f := an.readOnly(l)
		if f != nil {
			c.Verdict, c.BypassImmune, c.Layer, c.Reason, c.message = f.verdict, f.immune, f.layer, f.reason, f.message
			continue
		}
		if ro {
			c.Verdict, c.ReadOnly, c.Layer = Allow, true, LayerReadOnly
			c.Reason, c.message = "read-only command", "Permission granted for read-only command"
			continue
		}
		editable[i] = redirOnly
		if l.tainted {
			// Would it be read-only if nothing before it could change the
			// layout? Then allow rules that trust what changes it may pass it.
			l.tainted = false
			var redirOnlyButTaint bool
			l.roButTaint, redirOnlyButTaint, _, _ = an.readOnly(l)
			l.tainted = true
			// accept_edits judges it as the edit it would be (editButTaint).
			editable[i] = redirOnlyButTaint
		}
		c.Verdict, c.Layer = Passthrough, LayerPassthrough
		c.Reason = why
		if execMsg == "" {
			execMsg = "Execute bash command: " + an.src
		}
		c.message = execMsg
	}
	if an.cfg.acceptEdits {
		an.acceptEdits(res, editable)
	}
	// Combine: the most severe command decides; among Asks an immune one wins.
	best := -1
	rank := func(c *Command) int {
		r := int(c.Verdict) * 4
		if c.BypassImmune {
			r += 2
		}
		if c.Layer == LayerAcceptEdits {
			r++
		}
		return r
	}
	for i := range res.Commands {
		if best < 0 || rank(&res.Commands[i]) > rank(&res.Commands[best]) {
			best = i
		}
	}
	d := &res.Commands[best]
	res.Verdict, res.BypassImmune, res.Layer, res.Message = d.Verdict, d.BypassImmune && d.Verdict == Ask, d.Layer, d.message
	if res.Verdict == Passthrough {
		if execMsg == "" {
			execMsg = "Execute bash command: " + an.src
		}
		res.Message = execMsg
	}
	res.Reason = strconv.Quote(d.Text) + " (command " + strconv.Itoa(best+1) + " of " + strconv.Itoa(len(res.Commands)) + "): " + d.Reason
	res.ReadOnly = res.Verdict == Allow
	for i := range res.Commands {
		if !res.Commands[i].ReadOnly {
			res.ReadOnly = false
		}
	}
	res.cfg = an.cfg
	return res
}
