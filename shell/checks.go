package shell

import (
	"fmt"
	"github.com/toolscope/toolscope/internal/pathpolicy"
	"github.com/toolscope/toolscope/shell/internal/danger"
	"github.com/toolscope/toolscope/shell/internal/specs"
	"github.com/toolscope/toolscope/shell/internal/unquote"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// checkLeaf runs the deny-side layers on one simple command, in order:
// dangerous pattern, removal, sed, sensitive path, then the scripts it runs.
// It returns nil if none objects.
func (an *analyzer) checkLeaf(l *leaf) *finding {
	if l.badWords != "" {
		return &finding{Ask, true, LayerReject, "command contains " + l.badWords,
			"Permission required: Command contains " + l.badWords + ", which cannot be verified"}
	}
	if l.testClause {
		return nil
	}
	if len(l.args) > 0 && (!l.args[0].Literal || l.args[0].Glob) {
		return injectionFinding("dynamic command name " + l.args[0].Value)
	}
	if len(l.args) > 0 && (l.args[0].Value == "test" || l.args[0].Value == "[") {
		for _, a := range l.args[1:] {
			if (a.Value == "-v" || a.Value == "-R") && len(l.args) > 2 {
				return injectionFinding("test " + a.Value + ", which evaluates an array subscript")
			}
		}
	}
	var p peeled
	an.gather(l.args, &p, 0, false)
	if p.dynamic != "" {
		return injectionFinding("dynamic command name " + p.dynamic)
	}
	if p.deep {
		return injectionFinding("wrapper nesting too deep")
	}
	// Here-documents and here-strings fed to a shell are scripts too.
	if len(l.args) > 0 && shells[cmdName(l.args[0])] {
		for _, r := range l.redirs {
			if r.hdoc {
				p.scripts = append(p.scripts, r.body.Value)
			}
		}
	}
	// 1. dangerous patterns
	for i, argv := range p.argvs {
		if pat := dangerousPattern(argv, p.sudo[i]); pat != "" {
			return dangerFinding(pat)
		}
	}
	// 1b. wildcard injection: a glob operand that expands, here and now,
	// to a name starting with "-" (a file named
	// --checkpoint-action=exec=sh makes tar cf x.tar * run sh; --pre=sh
	// makes rg x * do the same). The command takes it for an option
	// whatever a rule says, so no rule and no mode allows it.
	if f := an.wildcardInjection(l); f != nil {
		return f
	}
	if f := an.redirectDanger(l); f != nil {
		return f
	}
	// 2. dangerous removal
	for _, argv := range p.argvs {
		if bad, ok := an.removal(argv, l); ok {
			return &finding{Ask, true, LayerRemoval, "dangerous removal of " + bad,
				"Dangerous removal operation detected: '" + bad + "'\n\nThis command would remove a critical system directory. " +
					"This requires explicit approval and cannot be auto-allowed by permission rules."}
		}
	}
	// 3. sed constraints
	for _, argv := range p.argvs {
		if len(argv) > 0 && cmdName(argv[0]) == "sed" {
			if sc := an.sedCheck(argv[1:], l); sc.err != "" {
				return &finding{Ask, true, LayerSed, sc.err, "Permission required: " + sc.err}
			}
		}
	}
	// 4. sensitive paths
	if hits := an.sensitive(l, &p); len(hits) > 0 {
		return sensitiveFinding(hits)
	}
	for _, argv := range p.argvs {
		if what := credentialPrinter(argv); what != "" {
			return &finding{Ask, true, LayerSensitive, what,
				"Permission required: " + what + ", which is reading a secret"}
		}
	}
	if f := an.redirectDynamic(l); f != nil {
		return f
	}
	// Scripts run by sh -c, eval, watch, su -c, heredocs: analyse them too.
	for _, s := range p.scripts {
		if an.depth >= maxScriptDepth {
			return injectionFinding("nested shell scripts too deep")
		}
		sub := analyze(s, an.cfg, an.depth+1, an.budget)
		if sub.Verdict == Ask {
			return &finding{Ask, sub.BypassImmune, sub.Layer, "inner script: " + sub.Reason, sub.Message}
		}
	}
	return nil
}

func sensitiveFinding(hits []string) *finding {
	return &finding{Ask, true, LayerSensitive, "sensitive paths " + strings.Join(hits, ", "),
		"Permission required: Bash command operates on sensitive paths: " + strings.Join(hits, ", ")}
}

func injectionFinding(kind string) *finding {
	return &finding{Ask, true, LayerInjection, "command contains " + kind,
		"Permission required: Command contains " + kind + " which cannot be statically analyzed"}
}

func dangerFinding(pat string) *finding {
	return &finding{Ask, true, LayerDangerous, "dangerous pattern " + pat,
		"Permission required: Command contains dangerous pattern: " + pat}
}

// rmSpec is rm's options (see package danger).
var rmSpec = danger.RmSpec

// dangerousPattern returns the name of a dangerous pattern in argv, or "".
func dangerousPattern(argv []word, sudo bool) string { return danger.Pattern(argv, sudo) }

// redirectDanger flags writes to devices and network pseudo-files.
func (an *analyzer) redirectDanger(l *leaf) *finding {
	for _, r := range l.redirs {
		if r.hdoc {
			continue
		}
		for _, w := range r.ws {
			t := w.Value
			if strings.HasPrefix(t, "/dev/tcp/") || strings.HasPrefix(t, "/dev/udp/") {
				return dangerFinding("network redirect " + t)
			}
			if isWriteRedir(r.op, t) && strings.HasPrefix(filepath.Clean(t), "/dev/") && !exemptDev(t) {
				return dangerFinding("> /dev/")
			}
		}
	}
	return nil
}

// exemptDev reports device files a redirection may write without writing a
// file: the bit bucket and the command's own streams. /dev/tty is not
// exempt: it is the user's terminal, where a command could paint over the
// approval prompt the user is reading.
func exemptDev(t string) bool {
	switch filepath.Clean(t) {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin":
		return true
	}
	if n, ok := strings.CutPrefix(filepath.Clean(t), "/dev/fd/"); ok && isDigits(n) {
		return true
	}
	return false
}

// reopens reports a path that opens one of the command's own file
// descriptors anew: writing it writes whatever file another redirection of
// the same command opened (echo x 1<~/.bashrc >>/dev/stdout).
func reopens(t string) bool {
	c := filepath.Clean(t)
	switch c {
	case "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return true
	}
	if strings.HasPrefix(c, "/dev/fd/") {
		return true
	}
	comps := strings.Split(strings.TrimPrefix(c, "/"), "/")
	return len(comps) >= 3 && comps[0] == "proc" && (comps[2] == "fd" || len(comps) >= 5 && comps[2] == "task" && comps[4] == "fd")
}

func isDigits(s string) bool {
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

func isFdWord(t string) bool {
	if t == "-" {
		return true
	}
	t = strings.TrimSuffix(t, "-")
	return isDigits(t)
}

// isWriteRedir reports whether a redirection with op writes to the file
// named t.
func isWriteRedir(op syntax.RedirOperator, t string) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut:
		return true
	case syntax.DplOut:
		return !isFdWord(t)
	}
	return false
}

// isReadRedir reports whether a redirection with op reads the file named t.
func isReadRedir(op syntax.RedirOperator, t string) bool {
	switch op {
	case syntax.RdrIn, syntax.RdrInOut:
		return true
	case syntax.DplIn:
		return !isFdWord(t)
	}
	return false
}

// fileRedirs returns the words of l's redirections that name files, other
// than the device files a command may always use.
func fileRedirs(l *leaf) []word {
	var out []word
	for _, r := range l.redirs {
		if r.hdoc {
			continue
		}
		for _, w := range r.ws {
			if (isWriteRedir(r.op, w.Value) || isReadRedir(r.op, w.Value)) && !exemptDev(w.Value) && !reopens(w.Value) {
				out = append(out, w)
			}
		}
	}
	return out
}

// reopenWrite reports a write redirection that reopens one of the
// command's descriptors while another redirection names a file.
func reopenWrite(l *leaf) bool {
	for _, r := range l.redirs {
		for _, w := range r.ws {
			if isWriteRedir(r.op, w.Value) && reopens(w.Value) {
				return len(fileRedirs(l)) > 0
			}
		}
	}
	return false
}

// removal returns an operand of rm/rmdir/mv (or find -delete's start
// directory) that names a critical directory: /, the home directory, a
// direct child of /, a glob matching everything in a directory (*, ?*,
// .../[!.]*), judged on the path as written and where it leads.
func (an *analyzer) removal(argv []word, l *leaf) (string, bool) {
	if len(argv) == 0 {
		return "", false
	}
	name := cmdName(argv[0])
	var ops []word
	switch name {
	case "rm", "rmdir", "unlink":
		ops = specs.ParseFlags(rmSpec, argv[1:]).Operands
	case "mv":
		r := specs.ParseFlags(mvSpec, argv[1:])
		ops = r.Operands
		if _, ok := r.Value("t", "target-directory"); !ok && len(ops) > 0 {
			ops = ops[:len(ops)-1]
		}
	case "find":
		del := false
		for _, a := range argv[1:] {
			if a.Value == "-delete" {
				del = true
			}
		}
		if !del {
			return "", false
		}
		for _, a := range argv[1:] {
			if strings.HasPrefix(a.Value, "-") || a.Value == "(" || a.Value == "!" {
				break
			}
			ops = append(ops, a)
		}
	default:
		return "", false
	}
	for _, op := range ops {
		s := op.Value
		if !op.Literal {
			return s, true
		}
		if op.Tilde && !strings.HasPrefix(s, "~/") && s != "~" {
			return s, true // ~user, ~+, ~-
		}
		if op.Glob {
			if broadGlob(op.Pat) {
				return s, true
			}
			i := strings.IndexAny(s, "*?[")
			prefix := s[:i]
			dir := "."
			if j := strings.LastIndexByte(prefix, '/'); j >= 0 {
				dir = prefix[:j+1]
			}
			w := op
			w.Value, w.Glob = dir, false
			if p, ok := an.lexical(w, l); !ok || p == "/" || p == an.cfg.home {
				return s, true
			}
			continue
		}
		p, ok := an.lexical(op, l)
		if !ok || an.critical(p) {
			return s, true
		}
		if x := an.cfg.policy.Classify(p); x.Err == nil && an.critical(x.Resolved.Path) {
			return s, true
		}
		if x := an.cfg.policy.Classify(strings.TrimSuffix(abspath(l, s), "/")); x.Err == nil && an.critical(x.Resolved.Path) {
			return s, true
		}
	}
	return "", false
}

// abspath joins s to the leaf's directory without cleaning.
func abspath(l *leaf, s string) string {
	if strings.HasPrefix(s, "/") {
		return s
	}
	return l.cwd + "/" + s
}

// broadGlob reports a glob whose last component has no literal character:
// it matches every (non-hidden) name of its directory, like *.
func broadGlob(pat string) bool {
	last := pat
	if i := strings.LastIndexByte(strings.TrimSuffix(pat, "/"), '/'); i >= 0 {
		last = strings.TrimSuffix(pat, "/")[i+1:]
	}
	inBracket := false
	for i := 0; i < len(last); i++ {
		switch c := last[i]; {
		case c == '\\':
			if !inBracket {
				return false
			}
			i++
		case c == '[':
			inBracket = true
		case c == ']' && inBracket:
			inBracket = false
		case c == '*' || c == '?' || inBracket:
		default:
			return false
		}
	}
	return true
}

// fsWriteCmds write to (or change) the paths they are given.
var fsWriteCmds = map[string]bool{
	"rm": true, "mv": true, "cp": true, "chmod": true, "chown": true, "chgrp": true, "touch": true,
	"ln": true, "mkdir": true, "rmdir": true, "truncate": true, "tee": true, "install": true,
	"unlink": true, "shred": true, "chattr": true, "setfacl": true, "rsync": true, "dd": true,
	"link": true, "mkfifo": true, "mknod": true, "patch": true, "scp": true, "sed": true,
}

// noReadCmds take no file arguments.
var noReadCmds = map[string]bool{"echo": true, "printf": true}

// sensitive collects protected write targets and secret reads: in every
// command the wrappers run, in the redirections, and in the values of
// leading assignments. Paths are judged as written and where they lead.
func (an *analyzer) sensitive(l *leaf, p *peeled) []string {
	var hits []string
	for _, argv := range p.argvs {
		var paths pathSet
		if len(argv) > 0 && len(l.args) > 0 && &argv[0] == &l.args[0] {
			// The leaf's own argv: a read-only candidate's non-path words
			// are judged by their spelling.
			paths, _ = an.pathWords(l)
		}
		hits = an.sensitiveArgs(argv, l, hits, paths)
	}
	reopen := reopenWrite(l)
	for _, r := range l.redirs {
		if r.hdoc {
			continue
		}
		for _, w := range r.ws {
			if exemptDev(w.Value) && !(reopen && isWriteRedir(r.op, w.Value)) {
				continue
			}
			write := isWriteRedir(r.op, w.Value)
			if !write && !isReadRedir(r.op, w.Value) {
				continue
			}
			x := an.judgeName(w, l)
			if x.Secret || write && x.Protected || reopen && x.Protected {
				hits = appendUnique(hits, w.Value)
			}
		}
	}
	for _, v := range l.assignVals {
		if wordCandidates(v, func(w word) bool { return an.judgeName(w, l).Secret }) {
			hits = appendUnique(hits, v.Value)
		}
	}
	for _, argv := range p.argvs {
		if e, ok := extractionOf(argv); ok {
			var found []string
			found, l.opaque = an.extractionHits(e, l)
			for _, h := range found {
				hits = appendUnique(hits, h)
			}
		}
		for _, w := range derefCopySources(argv) {
			if s := an.followedTreeSecret(w, l); s != "" {
				hits = appendUnique(hits, w.Value+" (holds "+s+")")
			}
		}
	}
	return hits
}

// derefCopySources returns the words of a command that copies or archives
// directory trees with their links followed (cp -rL, cp -aL, rsync -L,
// tar -h, zip -r without -y): what the links lead to is read and written
// to the copy. Every non-option word is returned; the caller looks only
// at those that are directories.
func derefCopySources(argv []word) []word {
	if len(argv) < 2 {
		return nil
	}
	name := cmdName(argv[0])
	has := func(short byte, longs ...string) bool {
		for _, a := range argv[1:] {
			s := a.Value
			if s == "--" {
				return false
			}
			for _, lo := range longs {
				if s == lo || strings.HasPrefix(s, lo+"=") {
					return true
				}
			}
			if short != 0 && len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.IndexByte(s[1:], short) >= 0 {
				return true
			}
		}
		return false
	}
	switch name {
	case "cp":
		if !(has('r', "--recursive") || has('R') || has('a', "--archive")) || !has('L', "--dereference") {
			return nil
		}
	case "rsync":
		if !has('L', "--copy-links") {
			return nil
		}
	case "tar", "bsdtar", "gtar":
		if !has('h', "--dereference") {
			return nil
		}
	case "zip":
		if !has('r', "--recurse-paths") || has('y', "--symlinks") {
			return nil
		}
	default:
		return nil
	}
	var out []word
	for _, a := range argv[1:] {
		if a.Literal && !strings.HasPrefix(a.Value, "-") {
			out = append(out, a)
		}
	}
	return out
}

// followedTreeSecret returns a secret that the tree at w reaches, every
// link in it followed ("" if none, or if w is not a directory).
func (an *analyzer) followedTreeSecret(w word, l *leaf) string {
	x := an.judge(w, l)
	roots := []pathpolicy.Path{x.Path}
	if x.glob {
		roots = x.matches
	}
	for _, m := range roots {
		if m.Err != nil || !m.Exists || !an.isDir(m.Resolved.Path) {
			continue
		}
		if m.Secret {
			return m.Resolved.Path
		}
		rep := an.cfg.policy.Tree(m.Resolved.Path, &pathpolicy.TreeOptions{Follow: true, Hidden: true})
		if rep.Secret != "" {
			return rep.Secret
		}
	}
	return ""
}

// judgeName judges a word as a path; a non-literal word is judged on its
// spelling alone ($HOME/.ssh/id_rsa is secret).
func (an *analyzer) judgeName(w word, l *leaf) pathInfo {
	if !w.Literal && !w.ProcPath {
		x := an.cfg.policy.Classify("/" + strings.TrimLeft(w.Value, "/"))
		x.Err = nil
		return pathInfo{Path: x, unknown: "dynamic"}
	}
	return an.judge(w, l)
}

// sensitiveArgs collects protected write targets and secret reads in argv.
//
// paths, when not nil, are the only words of argv that name files (the
// read-only plan's); the others are judged by their spelling alone.
func (an *analyzer) sensitiveArgs(argv []word, l *leaf, hits []string, paths pathSet) []string {
	if len(argv) < 2 {
		return hits
	}
	name := cmdName(argv[0])
	write := fsWriteCmds[name]
	if name == "sed" {
		// Only sed's file operands (and backups) are written, and only with
		// -i; its script is not a path.
		write = false
		if sc := an.sedCheck(argv[1:], l); sc.inPlace {
			for _, f := range append(sc.files, sc.backups...) {
				if an.judgeName(f, l).Protected {
					hits = appendUnique(hits, f.Value)
				}
			}
		}
	}
	if name == "cp" || name == "mv" {
		hits = an.copyTargets(name, argv[1:], l, hits)
	}
	if !write && noReadCmds[name] {
		return hits
	}
	// A command that is not a read-only candidate may write wherever its
	// options point (git log --output=.git/config, go build -o
	// .git/hooks/pre-commit, sort -o, curl -o ~/.bashrc, awk's print >
	// ".git/config"): a protected place it names asks, even when a rule
	// allows the command.
	mayWrite := write || paths == nil && name != "sed" // sed's writes: sedCheck above
	for _, a := range argv[1:] {
		// The word itself is judged as written and where it leads; the
		// values inside it (--file=.env, HEAD:.env, -f.env) by spelling.
		var x pathInfo
		if strings.HasPrefix(a.Value, "-") || paths != nil && !paths.has(a.Value) && a.Literal && !a.Glob {
			x.Secret, x.Protected = an.cfg.policy.Spelling(a.Value)
		} else {
			x = an.judgeName(a, l)
		}
		if mayWrite && x.Protected || !noReadCmds[name] && x.Secret {
			hits = appendUnique(hits, a.Value)
			continue
		}
		if wordCandidates(a, func(w word) bool {
			sec, prot := an.cfg.policy.Spelling(w.Value)
			return mayWrite && prot || !noReadCmds[name] && sec
		}) {
			hits = appendUnique(hits, a.Value)
			continue
		}
		if mayWrite && an.scriptNamesProtected(a.Value) {
			hits = appendUnique(hits, a.Value)
		}
	}
	if name == "git" {
		if key := gitConfigSetKey(argv[1:]); key != "" {
			hits = appendUnique(hits, "git config "+key)
		}
	}
	return hits
}

// scriptNamesProtected reports a word that holds a script or a command
// line (awk '{print > ".git/config"}', a commit hook's text) naming a
// protected place among its tokens.
func (an *analyzer) scriptNamesProtected(s string) bool {
	if !strings.ContainsAny(s, " \t\n\"'<>|;&(){}`,") {
		return false
	}
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool {
		return strings.ContainsRune(" \t\n\"'<>|;&(){}`,=:@", r)
	}) {
		if _, prot := an.cfg.policy.Spelling(tok); prot {
			return true
		}
	}
	return false
}

// copyTargets adds the protected paths a cp or mv would create: the
// destination of each source (dir/basename when the target is a
// directory), and, for a recursive copy or any move of a directory, the
// protected names inside it (cp -r tmpl/. . brings tmpl/.git/config to
// ./.git/config).
func (an *analyzer) copyTargets(name string, args []word, l *leaf, hits []string) []string {
	spec := cpSpec
	if name == "mv" {
		spec = mvSpec
	}
	r := specs.ParseFlags(spec, args)
	ops := r.Operands
	target, hasT := r.Value("t", "target-directory")
	var tw word
	if hasT {
		tw = word{Value: target, Literal: true, Tilde: strings.HasPrefix(target, "~")}
	} else {
		if len(ops) < 2 {
			return hits
		}
		tw, ops = ops[len(ops)-1], ops[:len(ops)-1]
	}
	recursive := name == "mv" || r.Has("r", "R", "recursive", "a", "archive")
	tx := an.judge(tw, l)
	intoDir := hasT || len(ops) > 1 || tx.unknown == "" && tx.Exists && an.isDir(tx.Resolved.Path)
	for _, src := range ops {
		if !src.Literal || src.Glob {
			continue
		}
		if intoDir && tx.unknown == "" {
			base := filepath.Base(src.Value)
			if base != "." && base != ".." && base != "/" {
				dest := word{Value: tx.Resolved.Path + "/" + base, Literal: true}
				if an.judge(dest, l).Protected {
					hits = appendUnique(hits, tw.Value+"/"+base)
				}
			}
		}
		if recursive {
			sx := an.judge(src, l)
			if sx.unknown == "" && sx.Exists && an.isDir(sx.Resolved.Path) {
				if bad := an.cfg.policy.ProtectedIn(sx.Resolved.Path); bad != "" {
					hits = appendUnique(hits, src.Value+" (brings "+bad+")")
				}
			}
		}
	}
	return hits
}

// wordCandidates yields the spellings of a path that a word may carry: the
// word itself and the values after '=' or ':' (--file=.env, HEAD:.env),
// and the value of a short option (-f.env).
func wordCandidates(w word, fn func(word) bool) bool {
	if fn(w) {
		return true
	}
	s := w.Value
	for i := 0; i < len(s); i++ {
		if s[i] == '=' || s[i] == ':' || s[i] == '@' {
			v := w
			v.Value = s[i+1:]
			v.Pat = unquote.EscapeGlob(v.Value)
			v.Glob = false
			v.Tilde = strings.HasPrefix(v.Value, "~")
			if v.Value != "" && fn(v) {
				return true
			}
		}
	}
	if len(s) > 2 && s[0] == '-' && s[1] != '-' {
		v := w
		v.Value = s[2:]
		v.Pat = unquote.EscapeGlob(v.Value)
		v.Glob = false
		v.Tilde = strings.HasPrefix(v.Value, "~")
		if fn(v) {
			return true
		}
	}
	return false
}

// redirectDynamic objects to a redirection whose target is not literal.
func (an *analyzer) redirectDynamic(l *leaf) *finding {
	for _, r := range l.redirs {
		if r.hdoc {
			continue
		}
		for _, w := range r.ws {
			if !w.Literal && !w.ProcPath && (isWriteRedir(r.op, w.Value) || r.op == syntax.DplOut || r.op == syntax.DplIn) {
				return &finding{Ask, false, LayerSensitive, "redirect target " + w.Value + " is not literal",
					fmt.Sprintf("Permission required: Bash command redirects to a dynamic target: %s", w.Value)}
			}
		}
	}
	return nil
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// wildcardInjection is the finding for a glob operand of l (before a
// "--", but for find) that expands, in l's working directory, to a name starting with
// "-" (or may: the directory is not known).
func (an *analyzer) wildcardInjection(l *leaf) *finding {
	// After "--" the words are operands, for the programs that follow the
	// convention; find reads its expression after it all the same
	// (find -- * with a file named -delete deletes).
	find := slices.ContainsFunc(l.args, func(w word) bool { return cmdName(w) == "find" }) // sudo find, env find too
	for _, w := range l.args[min(1, len(l.args)):] {
		if w.Literal && w.Value == "--" && !find {
			return nil
		}
		if w.Glob && an.dashGlob(w, l) {
			return &finding{Ask, true, LayerInjection, "the glob " + w.Value + " expands to a name starting with -, which the command would take for an option",
				"Permission required: the glob " + w.Value + " expands to a file name starting with \"-\", which the command would take for an option (rename the file, or write ./" + w.Value + ")"}
		}
	}
	return nil
}
