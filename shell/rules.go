package shell

import (
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// safeEnvVars may lead a command without changing what it runs.
var safeEnvVars = map[string]bool{
	"NODE_ENV": true, "PYTHONUNBUFFERED": true, "RUST_LOG": true, "RUST_BACKTRACE": true, "LANG": true, "TERM": true,
	"NO_COLOR": true, "FORCE_COLOR": true, "DEBUG": true, "VERBOSE": true, "CI": true, "TZ": true, "LC_ALL": true,
	"LC_CTYPE": true, "COLUMNS": true, "LINES": true, "CLICOLOR": true, "CLICOLOR_FORCE": true,
}

// safeCommands get no suggestions (reference SAFE_COMMANDS).
var safeCommands = map[string]bool{"echo": true, "cat": true, "ls": true, "pwd": true, "cd": true, "true": true,
	"false": true, "printf": true, "grep": true, "tee": true}

// ruleCmd is one simple command as rules see it.
type ruleCmd struct {
	text   string // assignments (unless safe) + argv, joined by spaces
	peeled []string
	clean  bool // eligible for allow-rule matching
}

// ruleCommands parses command into simple commands for rule matching.
// ok is false if the command is rejected or unparsable. injected reports
// dynamic constructs.
func ruleCommands(command string) (cmds []ruleCmd, injected, ok bool) {
	if strings.TrimSpace(command) == "" || rejectReason(command, defaultMaxLength*4) != "" {
		return nil, false, false
	}
	f, err := parse(command)
	if err != nil {
		return nil, false, false
	}
	injected = injectionKind(f, command) != ""
	an := &analyzer{cfg: &config{}, src: command}
	// Collect first: brace splitting rewrites words, which Walk cannot visit.
	for _, st := range allStmts(f) {
		call, isCall := st.Cmd.(*syntax.CallExpr)
		if !isCall {
			if st.Cmd == nil {
				cmds = append(cmds, ruleCmd{text: strings.TrimSpace(nodeText(command, st))})
			}
			continue
		}
		l := an.newLeaf(st, call, st.Redirs, false)
		rc := ruleCmd{clean: l.badWords == ""}
		var parts []string
		for i, a := range call.Assigns {
			name := l.assigns[i]
			if !safeEnvVars[name] {
				rc.clean = false
				parts = append(parts, nodeText(command, a))
			}
		}
		for _, w := range l.args {
			if !w.literal && !w.param {
				rc.clean = false
			}
			parts = append(parts, w.s)
		}
		if len(l.args) > 0 && !l.args[0].literal {
			rc.clean = false
		}
		for _, r := range st.Redirs {
			if r.Word != nil && !isHeredoc(r.Op) {
				w := unquoteWord(command, r.Word)
				if isWriteRedir(r, w.s) && !exemptDev(w.s) {
					rc.clean = false
				}
			}
		}
		rc.text = strings.Join(parts, " ")
		var p peeled
		an.gather(l.args, &p, 0, false)
		for _, argv := range p.argvs[1:] {
			rc.peeled = append(rc.peeled, joinWords(argv))
		}
		rc.peeled = append(rc.peeled, p.scripts...)
		if len(call.Assigns) > 0 {
			rc.peeled = append(rc.peeled, joinWords(l.args))
		}
		cmds = append(cmds, rc)
	}
	return cmds, injected, true
}

func allStmts(f *syntax.File) []*syntax.Stmt {
	var out []*syntax.Stmt
	syntax.Walk(f, func(n syntax.Node) bool {
		if st, ok := n.(*syntax.Stmt); ok {
			out = append(out, st)
		}
		return true
	})
	return out
}

// MatchRule reports how a Bash rule content matches command. all is true
// when every simple command matches (use it for allow rules); any is true
// when at least one does (use it for deny and ask rules). Rule forms:
// "git log:*" (prefix), "npm install" (substring), "git * --oneline"
// (wildcard, \* and \\ escape). A command that cannot be parsed gives
// all=false and any=the match against the raw text; a command with
// dynamic constructs is never all=true. MatchRule never panics.
func MatchRule(content, command string) (all, any bool) {
	defer func() {
		if r := recover(); r != nil {
			all, any = false, true // fail closed: never allow, always deny/ask
		}
	}()
	m := compileRule(content)
	cmds, injected, ok := ruleCommands(command)
	if !ok {
		return false, m.match(strings.TrimSpace(command))
	}
	all = !injected && len(cmds) > 0
	for _, c := range cmds {
		hit := m.match(c.text)
		for _, p := range c.peeled {
			if !hit && m.match(p) {
				any = true
			}
		}
		if hit {
			any = true
		}
		if !hit || !c.clean {
			all = false
		}
	}
	if !any && m.match(strings.TrimSpace(command)) && injected {
		any = true
	}
	return all, any
}

type ruleMatcher struct {
	kind   int // 0 everything, 1 prefix, 2 substring, 3 regexp
	s      string
	re     *regexp.Regexp
	reTrim *regexp.Regexp
}

var ruleCache sync.Map

func compileRule(content string) *ruleMatcher {
	if v, ok := ruleCache.Load(content); ok {
		return v.(*ruleMatcher)
	}
	m := buildRule(content)
	ruleCache.Store(content, m)
	return m
}

func buildRule(content string) *ruleMatcher {
	c := strings.TrimSpace(content)
	if c == "" {
		return &ruleMatcher{kind: 0}
	}
	if strings.HasSuffix(c, ":*") {
		return &ruleMatcher{kind: 1, s: strings.TrimSpace(strings.TrimSuffix(c, ":*"))}
	}
	// Any unescaped star?
	star := false
	for i := 0; i < len(c); i++ {
		if c[i] == '\\' {
			i++
			continue
		}
		if c[i] == '*' {
			star = true
		}
	}
	if !star {
		return &ruleMatcher{kind: 2, s: unescapeRule(c)}
	}
	var b strings.Builder
	for i := 0; i < len(c); i++ {
		ch := c[i]
		if ch == '\\' && i+1 < len(c) && (c[i+1] == '*' || c[i+1] == '\\') {
			b.WriteString(regexp.QuoteMeta(string(c[i+1])))
			i++
			continue
		}
		if ch == '*' {
			b.WriteString(".*")
			continue
		}
		b.WriteString(regexp.QuoteMeta(string(ch)))
	}
	pat := b.String()
	re, err := regexp.Compile("(?s)^(?:" + pat + ")$")
	if err != nil {
		return &ruleMatcher{kind: 2, s: strings.ReplaceAll(c, "*", "")}
	}
	m := &ruleMatcher{kind: 3, re: re}
	if strings.HasSuffix(pat, ".*") {
		trimmed := strings.TrimRight(strings.TrimSuffix(pat, ".*"), " ")
		if re2, err := regexp.Compile("(?s)^(?:" + trimmed + ")$"); err == nil {
			m.reTrim = re2
		}
	}
	return m
}

func unescapeRule(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '*' || s[i+1] == '\\') {
			b.WriteByte(s[i+1])
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func (m *ruleMatcher) match(text string) bool {
	switch m.kind {
	case 0:
		return true
	case 1:
		return text == m.s || strings.HasPrefix(text, m.s+" ")
	case 2:
		return strings.Contains(text, m.s)
	case 3:
		return m.re.MatchString(text) || m.reTrim != nil && m.reTrim.MatchString(text)
	}
	return false
}

// Suggestions returns up to 5 distinct allow-rule contents "prefix:*" for
// command: the command name and its first argument, per simple command.
// Commands led by environment assignments outside a small safe list, and
// harmless builtins such as echo or cd, get none; so does a command that
// cannot be parsed or contains dynamic constructs.
func Suggestions(command string) (out []string) {
	defer func() {
		if r := recover(); r != nil {
			out = nil
		}
	}()
	if strings.TrimSpace(command) == "" || rejectReason(command, defaultMaxLength) != "" {
		return nil
	}
	f, err := parse(command)
	if err != nil || injectionKind(f, command) != "" {
		return nil
	}
	an := &analyzer{cfg: &config{}, src: command}
	seen := map[string]bool{}
	for _, st := range allStmts(f) {
		if len(out) >= 5 {
			break
		}
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok {
			continue
		}
		l := an.newLeaf(st, call, nil, false)
		for _, name := range l.assigns {
			if !safeEnvVars[name] {
				ok = false
			}
		}
		if !ok || len(l.args) < 2 || !l.args[0].literal || !l.args[1].literal || l.badWords != "" {
			continue
		}
		if safeCommands[strings.ToLower(l.args[0].s)] {
			continue
		}
		s := l.args[0].s + " " + l.args[1].s + ":*"
		if strings.ContainsAny(s, "\n") || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}
