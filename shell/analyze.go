package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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
	mode        string
	cwd         string
	workDirs    []string
	home        string
	dangerFiles []string
	dangerDirs  []string
	maxCommands int
	maxLength   int
	acceptEdits bool
}

func newConfig(o *Options) *config {
	c := &config{maxCommands: defaultMaxCommands, maxLength: defaultMaxLength}
	if o == nil {
		o = &Options{}
	}
	c.mode = o.Mode
	c.acceptEdits = o.Mode == "accept_edits" || o.Mode == "dont_ask"
	c.cwd = o.Cwd
	if c.cwd == "" {
		c.cwd, _ = os.Getwd()
	}
	if c.cwd == "" {
		c.cwd = "/"
	}
	c.cwd = filepath.Clean(c.cwd)
	c.workDirs = o.WorkingDirs
	c.home = o.Home
	if c.home == "" {
		c.home, _ = os.UserHomeDir()
	}
	if c.home != "" {
		c.home = filepath.Clean(c.home)
	}
	c.dangerFiles = o.DangerousFiles
	if c.dangerFiles == nil {
		c.dangerFiles = DefaultDangerousFiles
	}
	c.dangerDirs = o.DangerousDirs
	if c.dangerDirs == nil {
		c.dangerDirs = DefaultDangerousDirs
	}
	if o.MaxCommands > 0 {
		c.maxCommands = o.MaxCommands
	}
	if o.MaxLength > 0 {
		c.maxLength = o.MaxLength
	}
	return c
}

// Analyze decides whether command may run. opts may be nil. It never panics:
// an internal failure is reported as a bypass-immune Ask.
func Analyze(command string, opts *Options) *Analysis {
	return analyze(command, newConfig(opts), 0, &budget{})
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
	f, err := parse(command)
	if err != nil {
		return wholeAsk(LayerParse, "Permission required: Command parsing failed, cannot verify safety",
			"parse error: "+err.Error())
	}
	if len(f.Stmts) == 0 {
		return &Analysis{Verdict: Passthrough, Layer: LayerEmpty, Message: "Empty command", Reason: "empty command"}
	}
	kind, n := scan(f, command)
	if n > cfg.maxCommands {
		return wholeAsk(LayerLimit,
			fmt.Sprintf("Permission required: Command has %d simple commands (more than %d), too many to verify", n, cfg.maxCommands),
			fmt.Sprintf("%d simple commands exceed the cap of %d", n, cfg.maxCommands))
	}
	if kind != "" {
		return wholeAsk(LayerInjection,
			"Permission required: Command contains "+kind+" which cannot be statically analyzed",
			"Safety check: command contains "+kind+" that cannot be statically analyzed")
	}
	an := &analyzer{cfg: cfg, src: command, depth: depth, cwd: cfg.cwd, budget: b}
	for _, st := range f.Stmts {
		an.collect(st, nil, false)
	}
	words := 0
	for _, l := range an.leaves {
		words += len(l.args)
	}
	b.leaves += len(an.leaves)
	if b.leaves > maxTotalLeaves || words > 16*cfg.maxCommands+1024 {
		return wholeAsk(LayerLimit, "Permission required: Command is too complex to verify",
			fmt.Sprintf("%d simple commands and %d words after expansion exceed the budget", b.leaves, words))
	}
	if an.unsupported != "" {
		return wholeAsk(LayerInjection,
			"Permission required: Command contains "+an.unsupported+" which cannot be statically analyzed",
			"Safety check: unsupported construct "+an.unsupported)
	}
	return an.decide()
}

func wholeAsk(layer, msg, reason string) *Analysis {
	return &Analysis{Verdict: Ask, BypassImmune: true, Layer: layer, Message: msg, Reason: reason}
}

func parse(command string) (*syntax.File, error) {
	p := parserPool.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(command), "")
	parserPool.Put(p)
	return f, err
}

// rejectReason reports characters that make parsers disagree with the
// shell, or that hide content from a human reviewer.
func rejectReason(s string, maxLen int) string {
	if len(s) > maxLen {
		return fmt.Sprintf("more than %d bytes", maxLen)
	}
	depth, maxDepth := 0, 0
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '(', '{', '[':
			depth++
			if depth > maxDepth {
				maxDepth = depth
			}
		case ')', '}', ']':
			depth--
		}
		if c < utf8.RuneSelf {
			switch {
			case c == '\r':
				return "a carriage return"
			case c == 0:
				return "a NUL byte"
			case c < 0x20 && c != '\t' && c != '\n':
				return fmt.Sprintf("control character U+%04X", c)
			case c == 0x7f:
				return "control character U+007F"
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return "invalid UTF-8"
		}
		switch {
		case unicode.IsSpace(r) || unicode.Is(unicode.Zs, r):
			return fmt.Sprintf("non-ASCII whitespace U+%04X", r)
		case unicode.Is(unicode.Cc, r):
			return fmt.Sprintf("control character U+%04X", r)
		case unicode.Is(unicode.Cf, r) || r == 0x180E || r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0 ||
			r == 0x034F || r == 0x17B4 || r == 0x17B5 || r == 0x2800 || r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF:
			return fmt.Sprintf("invisible or bidirectional character U+%04X", r)
		case unicode.Is(unicode.Co, r) || unicode.Is(unicode.Cs, r) || r == 0xFFFD || r >= 0xFFF0 && r <= 0xFFFF:
			return fmt.Sprintf("unusual character U+%04X", r)
		}
		i += size
	}
	if maxDepth > maxNesting {
		return fmt.Sprintf("brackets nested more than %d deep", maxNesting)
	}
	return ""
}

// injectionKind returns the name of the first construct that cannot be
// analysed statically, or "".
func injectionKind(f *syntax.File, src string) string {
	kind, _ := scan(f, src)
	return kind
}

// scan walks the whole file once: it returns the first construct that
// cannot be analysed statically ("" if none) and the number of simple
// commands.
func scan(f *syntax.File, src string) (string, int) {
	kind := ""
	count := 0
	syntax.Walk(f, func(node syntax.Node) bool {
		switch n := node.(type) {
		case *syntax.CallExpr, *syntax.DeclClause, *syntax.LetClause, *syntax.TestClause, *syntax.ArithmCmd:
			count++
		case *syntax.Stmt:
			if n.Cmd == nil {
				count++
			}
		}
		if kind != "" {
			return true
		}
		switch n := node.(type) {
		case *syntax.CmdSubst:
			kind = "command_substitution"
		case *syntax.ProcSubst:
			kind = "process_substitution"
		case *syntax.ArithmExp:
			kind = "arithmetic_expansion"
		case *syntax.ArithmCmd:
			kind = "arithmetic_command"
		case *syntax.ParamExp:
			if !n.Short || n.Excl || n.Length || n.Width || n.IsSet || n.Flags != nil ||
				n.NestedParam != nil || n.Index != nil || n.Slice != nil || n.Repl != nil ||
				n.Names != 0 || n.Exp != nil || n.Param == nil {
				kind = "expansion"
			}
		case *syntax.ExtGlob:
			kind = "extended_glob"
		case *syntax.Subshell:
			kind = "subshell"
		case *syntax.Block:
			kind = "block"
		case *syntax.IfClause:
			kind = "if_statement"
		case *syntax.WhileClause:
			if n.Until {
				kind = "until_statement"
			} else {
				kind = "while_statement"
			}
		case *syntax.ForClause:
			kind = "for_statement"
		case *syntax.CaseClause:
			kind = "case_statement"
		case *syntax.FuncDecl:
			kind = "function_definition"
		case *syntax.TestClause:
			kind = "test_command"
		case *syntax.DeclClause:
			kind = "declaration"
		case *syntax.LetClause:
			kind = "let_command"
		case *syntax.CoprocClause:
			kind = "coproc"
		case *syntax.TestDecl:
			kind = "test_declaration"
		case *syntax.Stmt:
			if n.Coprocess {
				kind = "coproc"
			}
		case *syntax.Assign:
			if n.Array != nil || n.Index != nil {
				kind = "array_assignment"
			}
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				w := unquoteWord(src, n.Args[0])
				switch w.s {
				case "[", "test", "[[":
					kind = "test_command"
				}
			}
		}
		return true
	})
	return kind, count
}

// leaf is one simple command with the redirections that apply to it.
type leaf struct {
	text       string
	args       []word
	assigns    []string // names of leading assignments
	assignVals []word   // their values
	redirs     []*syntax.Redirect
	background bool
	badWords   string // why the words could not be normalised
	cwd        string
	cwdUnknown bool
	emptyCmd   bool // redirections only
	timed      bool // under the time keyword
}

type analyzer struct {
	cfg         *config
	src         string
	depth       int
	leaves      []*leaf
	cwd         string
	cwdUnknown  bool
	unsupported string
	hasCd       bool
	rootCache   [][2]string
	budget      *budget

	secretCwdFor string
	secretCwdVal bool
	secretCwdSet bool
}

func (an *analyzer) collect(st *syntax.Stmt, inherited []*syntax.Redirect, bg bool) {
	redirs := inherited
	if len(st.Redirs) > 0 {
		redirs = append(append([]*syntax.Redirect(nil), inherited...), st.Redirs...)
	}
	bg = bg || st.Background || st.Coprocess || st.Disown
	switch c := st.Cmd.(type) {
	case nil:
		l := &leaf{text: an.stmtText(st), redirs: redirs, background: bg, emptyCmd: true, cwd: an.cwd, cwdUnknown: an.cwdUnknown}
		an.leaves = append(an.leaves, l)
	case *syntax.CallExpr:
		an.leaves = append(an.leaves, an.newLeaf(st, c, redirs, bg))
	case *syntax.BinaryCmd:
		an.collect(c.X, redirs, bg)
		an.collect(c.Y, redirs, bg)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			n := len(an.leaves)
			an.collect(c.Stmt, redirs, bg)
			for _, l := range an.leaves[n:] {
				l.timed = true
			}
		} else {
			l := &leaf{text: an.stmtText(st), args: []word{{s: "time", literal: true}}, redirs: redirs, background: bg, cwd: an.cwd, cwdUnknown: an.cwdUnknown}
			an.leaves = append(an.leaves, l)
		}
	default:
		if an.unsupported == "" {
			an.unsupported = fmt.Sprintf("%T", c)
		}
	}
}

func (an *analyzer) stmtText(st *syntax.Stmt) string {
	t := nodeText(an.src, st)
	return strings.TrimRight(strings.TrimSpace(t), ";&| \t\n")
}

func (an *analyzer) newLeaf(st *syntax.Stmt, c *syntax.CallExpr, redirs []*syntax.Redirect, bg bool) *leaf {
	l := &leaf{redirs: redirs, background: bg, cwd: an.cwd, cwdUnknown: an.cwdUnknown}
	// Text: the call plus its own redirections, without the separator.
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
		l.text = strings.TrimSpace(an.src[start:end])
	}
	for _, as := range c.Assigns {
		if as.Value != nil {
			l.assignVals = append(l.assignVals, unquoteWord(an.src, as.Value))
		}
		if as.Name != nil {
			l.assigns = append(l.assigns, as.Name.Value)
		} else {
			l.assigns = append(l.assigns, "?")
		}
	}
	var ok bool
	for _, w := range c.Args {
		if len(l.args) > maxLeafWords {
			l.badWords = fmt.Sprintf("more than %d words after brace expansion", maxLeafWords)
			break
		}
		l.args, ok = expandWord(an.src, w, l.args)
		if !ok && l.badWords == "" {
			l.badWords = "a brace expansion that cannot be verified (ambiguous or too large)"
		}
	}
	an.trackCd(l)
	return l
}

// trackCd follows cd/pushd/popd so later relative paths resolve correctly.
func (an *analyzer) trackCd(l *leaf) {
	if len(l.args) == 0 {
		return
	}
	switch l.args[0].s {
	case "cd":
		an.hasCd = true
		ops := l.args[1:]
		for len(ops) > 0 && (ops[0].s == "-P" || ops[0].s == "-L" || ops[0].s == "-e" || ops[0].s == "-@") {
			ops = ops[1:]
		}
		if len(ops) > 0 && ops[0].s == "--" {
			ops = ops[1:]
		}
		switch {
		case len(ops) == 0:
			an.cwd = an.cfg.home
		case len(ops) == 1 && ops[0].literal && !ops[0].glob && ops[0].s != "-" && ops[0].s != "":
			p, ok := an.resolve(ops[0], an.cwd)
			if ok {
				an.cwd = p
			} else {
				an.cwdUnknown = true
			}
		default:
			an.cwdUnknown = true
		}
	case "pushd", "popd":
		an.hasCd = true
		an.cwdUnknown = true
	}
}

// resolve turns a path word into a clean absolute path (lexically).
func (an *analyzer) resolve(w word, cwd string) (string, bool) {
	p := w.s
	if strings.HasPrefix(p, "~") {
		rest := p[1:]
		user := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			user, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		switch user {
		case "":
			if an.cfg.home == "" {
				return "", false
			}
			p = an.cfg.home + rest
		case "+":
			p = cwd + rest
		default:
			return "", false
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p), true
}

func argvStrings(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.s
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

func (an *analyzer) decide() *Analysis {
	res := &Analysis{Commands: make([]Command, len(an.leaves))}
	editable := make([]bool, len(an.leaves))
	for i, l := range an.leaves {
		c := &res.Commands[i]
		c.Text = l.text
		c.Argv = argvStrings(l.args)
		if f := an.checkLeaf(l); f != nil {
			c.Verdict, c.BypassImmune, c.Layer, c.Reason, c.message = f.verdict, f.immune, f.layer, f.reason, f.message
			continue
		}
		ro, redirOnly, why := an.readOnly(l)
		if ro {
			c.Verdict, c.ReadOnly, c.Layer = Allow, true, LayerReadOnly
			c.Reason, c.message = "read-only command", "Permission granted for read-only command"
			continue
		}
		editable[i] = redirOnly
		c.Verdict, c.Layer = Passthrough, LayerPassthrough
		c.Reason = why
		c.message = "Execute bash command: " + an.src
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
		res.Message = "Execute bash command: " + an.src
	}
	res.Reason = fmt.Sprintf("%q (command %d of %d): %s", d.Text, best+1, len(res.Commands), d.Reason)
	res.ReadOnly = res.Verdict == Allow
	for i := range res.Commands {
		if !res.Commands[i].ReadOnly {
			res.ReadOnly = false
		}
	}
	return res
}
