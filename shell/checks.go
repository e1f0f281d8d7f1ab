package shell

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// cmdName is the command name used by the deny-side checks: the base name,
// so /bin/rm and ./rm are judged like rm.
func cmdName(w word) string {
	s := w.s
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "ash": true, "mksh": true, "fish": true, "csh": true, "tcsh": true, "rbash": true, "yash": true}

// peeled is a command with the commands it runs through wrappers.
type peeled struct {
	argvs   [][]word
	sudo    []bool
	scripts []string
	dynamic string
	deep    bool
}

func (an *analyzer) gather(argv []word, p *peeled, depth int, sudo bool) {
	p.argvs = append(p.argvs, argv)
	p.sudo = append(p.sudo, sudo)
	if len(argv) == 0 {
		return
	}
	if depth > maxPeelDepth {
		p.deep = true
		return
	}
	name := cmdName(argv[0])
	inners, scripts := peelOne(name, argv[1:])
	p.scripts = append(p.scripts, scripts...)
	for _, in := range inners {
		if len(in) == 0 {
			continue
		}
		if (!in[0].literal || in[0].glob) && p.dynamic == "" {
			p.dynamic = in[0].s
		}
		an.gather(in, p, depth+1, sudo || name == "sudo" || name == "doas")
	}
}

// skipOpts skips leading options of a wrapper. withVal lists short options
// taking a value; longVal lists long options taking a value in the next word.
func skipOpts(args []word, withVal, longVal string) []word {
	for len(args) > 0 {
		a := args[0].s
		if a == "--" {
			return args[1:]
		}
		if len(a) < 2 || a[0] != '-' {
			return args
		}
		args = args[1:]
		if strings.HasPrefix(a, "--") {
			if !strings.Contains(a, "=") && strings.Contains(" "+longVal+" ", " "+a[2:]+" ") && len(args) > 0 {
				args = args[1:]
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(withVal, a[j]) >= 0 {
				if j == len(a)-1 && len(args) > 0 {
					args = args[1:]
				}
				break
			}
		}
	}
	return args
}

func skipAssigns(args []word) []word {
	for len(args) > 0 && isAssignWord(args[0].s) {
		args = args[1:]
	}
	return args
}

func isAssignWord(s string) bool {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func joinWords(ws []word) string {
	return strings.Join(argvStrings(ws), " ")
}

// peelOne returns the commands a wrapper runs, and shell scripts it runs.
func peelOne(name string, args []word) ([][]word, []string) {
	one := func(a []word) [][]word { return [][]word{a} }
	switch name {
	case "sudo", "doas":
		return one(skipAssigns(skipOpts(args, "ugCDhprtTUa", "user group close-from chdir host prompt role type command-timeout other-user"))), nil
	case "env":
		var scripts []string
		rest := args
		for len(rest) > 0 {
			a := rest[0].s
			if a == "-S" || a == "--split-string" {
				if len(rest) > 1 {
					scripts = append(scripts, joinWords(rest[1:]))
				}
				return nil, scripts
			}
			if strings.HasPrefix(a, "--split-string=") || strings.HasPrefix(a, "-S") && len(a) > 2 {
				v := strings.TrimPrefix(strings.TrimPrefix(a, "--split-string="), "-S")
				scripts = append(scripts, v+" "+joinWords(rest[1:]))
				return nil, scripts
			}
			break
		}
		return one(skipAssigns(skipOpts(args, "uCP", "unset chdir"))), nil
	case "nice":
		return one(skipOpts(args, "n", "adjustment")), nil
	case "busybox", "toybox":
		return one(args), nil
	case "nohup", "builtin", "setsid", "unbuffer", "caffeinate", "catchsegv", "pkexec", "fakeroot", "proxychains",
		"proxychains4", "torsocks", "firejail", "unshare", "systemd-run", "nsenter", "chronic", "doas-keepenv":
		return one(skipOpts(args, "", "")), nil
	case "time":
		return one(skipOpts(args, "fo", "format output")), nil
	case "timeout":
		r := skipOpts(args, "sk", "signal kill-after")
		if len(r) > 0 {
			r = r[1:]
		}
		return one(r), nil
	case "stdbuf":
		return one(skipOpts(args, "ioe", "input output error")), nil
	case "command":
		for _, a := range args {
			if a.s == "-v" || a.s == "-V" {
				return nil, nil
			}
			if !strings.HasPrefix(a.s, "-") {
				break
			}
		}
		return one(skipOpts(args, "", "")), nil
	case "exec":
		return one(skipOpts(args, "a", "")), nil
	case "xargs":
		return one(skipOpts(args, "ILnPsdEa", "max-args max-lines max-procs max-chars delimiter arg-file process-slot-var")), nil
	case "ionice":
		return one(skipOpts(args, "cnp", "class classdata pid")), nil
	case "taskset":
		r := skipOpts(args, "", "")
		if len(r) > 0 {
			r = r[1:]
		}
		return one(r), nil
	case "flock":
		r := skipOpts(args, "wEc", "timeout conflict-exit-code command")
		for i, a := range args {
			if (a.s == "-c" || a.s == "--command") && i+1 < len(args) {
				return nil, []string{args[i+1].s}
			}
		}
		if len(r) > 0 {
			r = r[1:]
		}
		return one(r), nil
	case "strace", "ltrace":
		return one(skipOpts(args, "oepsuEaSPXI", "output")), nil
	case "chroot":
		r := skipOpts(args, "", "userspec groups")
		if len(r) > 0 {
			r = r[1:]
		}
		return one(r), nil
	case "watch":
		r := skipOpts(args, "nq", "interval")
		if len(r) > 0 {
			return one(r), []string{joinWords(r)}
		}
		return nil, nil
	case "eval":
		if len(args) > 0 {
			return nil, []string{joinWords(args)}
		}
		return nil, nil
	case "su", "runuser", "sg", "script":
		for i, a := range args {
			if (a.s == "-c" || a.s == "--command") && i+1 < len(args) {
				return nil, []string{args[i+1].s}
			}
			if strings.HasPrefix(a.s, "--command=") {
				return nil, []string{strings.TrimPrefix(a.s, "--command=")}
			}
		}
		return nil, nil
	case "find":
		var out [][]word
		for i := 0; i < len(args); i++ {
			switch args[i].s {
			case "-exec", "-execdir", "-ok", "-okdir":
				j := i + 1
				for j < len(args) && args[j].s != ";" && args[j].s != "+" {
					j++
				}
				out = append(out, args[i+1:j])
				i = j
			}
		}
		return out, nil
	}
	if shells[name] {
		hasC := false
		for i := 0; i < len(args); i++ {
			s := args[i].s
			switch {
			case s == "--":
				if hasC && i+1 < len(args) {
					return nil, []string{args[i+1].s}
				}
				return nil, nil
			case s == "-o" || s == "+o" || s == "-O" || s == "+O" || s == "--rcfile" || s == "--init-file":
				i++
			case s == "--command" || s == "-c":
				hasC = true
			case strings.HasPrefix(s, "--"):
			case len(s) > 1 && (s[0] == '-' || s[0] == '+'):
				if strings.ContainsRune(s[1:], 'c') {
					hasC = true
				}
			default:
				if hasC {
					return nil, []string{s}
				}
				return nil, nil
			}
		}
	}
	return nil, nil
}

// checkLeaf runs the deny-side layers on one simple command, in order:
// dangerous pattern, removal, sed, sensitive path. It returns nil if none
// objects.
func (an *analyzer) checkLeaf(l *leaf) *finding {
	if l.badWords != "" {
		return &finding{Ask, true, LayerReject, "command contains " + l.badWords,
			"Permission required: Command contains " + l.badWords + ", which cannot be verified"}
	}
	if len(l.args) > 0 && (!l.args[0].literal || l.args[0].glob) {
		return injectionFinding("dynamic command name " + l.args[0].s)
	}
	var p peeled
	an.gather(l.args, &p, 0, false)
	if p.dynamic != "" {
		return injectionFinding("dynamic command name " + p.dynamic)
	}
	if p.deep {
		return injectionFinding("wrapper nesting too deep")
	}
	// Here-documents fed to a shell are scripts too.
	if len(l.args) > 0 && shells[cmdName(l.args[0])] {
		for _, r := range l.redirs {
			if r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc {
				if r.Hdoc != nil {
					p.scripts = append(p.scripts, unquoteHdoc(an.src, r.Hdoc))
				}
			} else if r.Op == syntax.WordHdoc {
				p.scripts = append(p.scripts, unquoteWord(an.src, r.Word).s)
			}
		}
	}
	// 1. dangerous patterns
	for i, argv := range p.argvs {
		if pat := dangerousPattern(argv, p.sudo[i]); pat != "" {
			return dangerFinding(pat)
		}
	}
	if f := an.redirectDanger(l); f != nil {
		return f
	}
	// 2. dangerous removal
	for _, argv := range p.argvs {
		if bad, ok := an.removal(argv, l.cwd); ok {
			return &finding{Ask, true, LayerRemoval, "dangerous removal of " + bad,
				"Dangerous removal operation detected: '" + bad + "'\n\nThis command would remove a critical system directory. " +
					"This requires explicit approval and cannot be auto-allowed by permission rules."}
		}
	}
	// 3. sed constraints
	for _, argv := range p.argvs {
		if len(argv) > 0 && cmdName(argv[0]) == "sed" {
			if sc := an.sedCheck(argv[1:], l.cwd); sc.err != "" {
				return &finding{Ask, true, LayerSed, sc.err, "Permission required: " + sc.err}
			}
		}
	}
	// 4. sensitive paths
	var hits []string
	for _, argv := range p.argvs {
		hits = an.sensitiveArgs(argv, l.cwd, hits)
	}
	hits = an.sensitiveRedirs(l, hits)
	for _, v := range l.assignVals {
		if wordCandidates(v, func(w word) bool { return an.isSecret(w, l.cwd) }) {
			hits = appendUnique(hits, v.s)
		}
	}
	if len(hits) > 0 {
		return &finding{Ask, true, LayerSensitive, "sensitive paths " + strings.Join(hits, ", "),
			"Permission required: Bash command operates on sensitive paths: " + strings.Join(hits, ", ")}
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

func unquoteHdoc(src string, w *syntax.Word) string {
	return unquoteParts(src, w.Parts).s
}

func injectionFinding(kind string) *finding {
	return &finding{Ask, true, LayerInjection, "command contains " + kind,
		"Permission required: Command contains " + kind + " which cannot be statically analyzed"}
}

func dangerFinding(pat string) *finding {
	return &finding{Ask, true, LayerDangerous, "dangerous pattern " + pat,
		"Permission required: Command contains dangerous pattern: " + pat}
}

var rmSpec = &flagSpec{
	short: shorts("rRfiIdv", "", ""),
	long:  longs("recursive force one-file-system no-preserve-root dir verbose help version", "", ""),
}

func init() {
	rmSpec.long["interactive"] = fOptValue
	rmSpec.long["preserve-root"] = fOptValue
}

// dangerousPattern returns the name of a dangerous pattern in argv, or "".
func dangerousPattern(argv []word, sudo bool) string {
	if len(argv) == 0 {
		return ""
	}
	name := cmdName(argv[0])
	args := argv[1:]
	switch {
	case name == "rm":
		if sudo {
			return "sudo rm"
		}
		for _, a := range args {
			if strings.HasPrefix(a.s, "-") && a.glob {
				return "rm -rf" // a globbed option may expand to -rf
			}
		}
		r := parseFlags(rmSpec, args)
		if r.has("no-preserve-root") {
			return "rm --no-preserve-root"
		}
		if r.has("r", "R", "recursive") && r.has("f", "force") {
			return "rm -rf"
		}
	case name == "chmod":
		rec := false
		for _, a := range args {
			if a.s == "-R" || strings.HasPrefix(a.s, "--rec") {
				rec = true
			}
		}
		for _, a := range args {
			if strings.HasPrefix(a.s, "--reference") {
				break
			}
			if strings.HasPrefix(a.s, "-") && dangerousMode(a.s[1:]) == "" && a.s != "-" {
				continue
			}
			if m := dangerousMode(a.s); m != "" {
				if rec {
					return "chmod -R " + m
				}
				return "chmod " + m
			}
			break
		}
	case name == "chown" || name == "chgrp":
		for _, a := range args {
			s := a.s
			if s == "--" {
				break
			}
			if strings.HasPrefix(s, "--") {
				if len(s) > 2 && strings.HasPrefix("--recursive", s) {
					return name + " -R"
				}
				continue
			}
			if strings.HasPrefix(s, "-") && strings.ContainsRune(s, 'R') {
				return name + " -R"
			}
		}
	case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "mkswap" || name == "mkdosfs" || name == "newfs":
		return "mkfs"
	case name == "dd":
		return "dd"
	case name == "fdisk" || name == "sfdisk" || name == "cfdisk" || name == "gdisk" || name == "sgdisk":
		return "fdisk"
	case name == "parted", name == "wipefs", name == "shred", name == "format", name == "blkdiscard":
		return name
	case name == "shutdown", name == "reboot", name == "halt", name == "poweroff":
		return name
	case name == "kill" || name == "killall" || name == "pkill":
		if killsHard(args) {
			return name + " -9"
		}
		if name == "kill" {
			for i, a := range args {
				if a.s == "--" && i+1 < len(args) && args[i+1].s == "-1" {
					return "kill -1"
				}
			}
		}
	}
	return ""
}

func isKillSig(s string) bool {
	s = strings.ToUpper(s)
	s = strings.TrimPrefix(s, "SIG")
	return s == "9" || s == "KILL"
}

func killsHard(args []word) bool {
	for i, a := range args {
		s := a.s
		if s == "--" {
			return false
		}
		next := ""
		if i+1 < len(args) {
			next = args[i+1].s
		}
		switch {
		case s == "-s" || s == "-n" || s == "--signal":
			if isKillSig(next) {
				return true
			}
		case strings.HasPrefix(s, "--signal="):
			if isKillSig(strings.TrimPrefix(s, "--signal=")) {
				return true
			}
		case strings.HasPrefix(s, "-s") && len(s) > 2:
			if isKillSig(s[2:]) {
				return true
			}
		case strings.HasPrefix(s, "-") && len(s) > 1:
			if isKillSig(s[1:]) {
				return true
			}
		}
	}
	return false
}

// dangerousMode reports a chmod mode that grants write to others or sets
// setuid/setgid.
func dangerousMode(m string) string {
	if m == "" {
		return ""
	}
	if m[0] >= '0' && m[0] <= '7' {
		n, err := strconv.ParseUint(m, 8, 32)
		if err != nil {
			return ""
		}
		digits := strings.TrimLeft(m, "0")
		if n&0o002 != 0 {
			return m
		}
		if len(digits) >= 4 && n&0o6000 != 0 {
			return m
		}
		return ""
	}
	for _, clause := range strings.Split(m, ",") {
		i := 0
		for i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0 {
			i++
		}
		who := clause[:i]
		rest := clause[i:]
		for len(rest) > 0 {
			op := rest[0]
			if op != '+' && op != '=' && op != '-' {
				break
			}
			j := 1
			for j < len(rest) && rest[j] != '+' && rest[j] != '-' && rest[j] != '=' {
				j++
			}
			perms := rest[1:j]
			rest = rest[j:]
			if op == '-' {
				continue
			}
			if strings.ContainsRune(perms, 's') {
				return m
			}
			if strings.ContainsRune(perms, 'w') && (strings.ContainsAny(who, "oa")) {
				return m
			}
		}
	}
	return ""
}

// redirectDanger flags writes to devices and network pseudo-files.
func (an *analyzer) redirectDanger(l *leaf) *finding {
	for _, r := range l.redirs {
		if r.Word == nil || isHeredoc(r.Op) {
			continue
		}
		t := unquoteWord(an.src, r.Word).s
		if strings.HasPrefix(t, "/dev/tcp/") || strings.HasPrefix(t, "/dev/udp/") {
			return dangerFinding("network redirect " + t)
		}
		if isWriteRedir(r, t) && strings.HasPrefix(filepath.Clean(t), "/dev/") && !exemptDev(t) {
			return dangerFinding("> /dev/")
		}
	}
	return nil
}

func isHeredoc(op syntax.RedirOperator) bool {
	return op == syntax.Hdoc || op == syntax.DashHdoc || op == syntax.WordHdoc
}

func exemptDev(t string) bool {
	switch filepath.Clean(t) {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	if n, ok := strings.CutPrefix(filepath.Clean(t), "/dev/fd/"); ok && isDigits(n) {
		return true
	}
	return false
}

func isFdWord(t string) bool {
	if t == "-" {
		return true
	}
	t = strings.TrimSuffix(t, "-")
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

// isWriteRedir reports whether r writes to the file named t.
func isWriteRedir(r *syntax.Redirect, t string) bool {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut:
		return true
	case syntax.DplOut:
		return !isFdWord(t)
	}
	return false
}

// removal returns an operand of rm/rmdir/mv (or find -delete's start
// directory) that names a critical directory.
func (an *analyzer) removal(argv []word, cwd string) (string, bool) {
	if len(argv) == 0 {
		return "", false
	}
	name := cmdName(argv[0])
	var ops []word
	switch name {
	case "rm", "rmdir", "unlink":
		ops = parseFlags(rmSpec, argv[1:]).operands
	case "mv":
		r := parseFlags(mvSpec, argv[1:])
		ops = r.operands
		if _, ok := r.value("t", "target-directory"); !ok && len(ops) > 0 {
			ops = ops[:len(ops)-1]
		}
	case "find":
		del := false
		for _, a := range argv[1:] {
			if a.s == "-delete" {
				del = true
			}
		}
		if !del {
			return "", false
		}
		for _, a := range argv[1:] {
			if strings.HasPrefix(a.s, "-") || a.s == "(" || a.s == "!" {
				break
			}
			ops = append(ops, a)
		}
	default:
		return "", false
	}
	for _, op := range ops {
		s := op.s
		if !op.literal {
			return s, true
		}
		if s == "*" || s == "./*" || strings.HasSuffix(s, "/*") || s == "~" || strings.HasPrefix(s, "~") && !strings.HasPrefix(s, "~/") {
			return s, true
		}
		if op.glob {
			i := strings.IndexAny(s, "*?[")
			prefix := s[:i]
			dir := prefix
			if j := strings.LastIndexByte(prefix, '/'); j >= 0 {
				dir = prefix[:j+1]
			} else {
				dir = "."
			}
			w := op
			w.s = dir
			if p, ok := an.resolve(w, cwd); !ok || p == "/" || p == an.cfg.home {
				return s, true
			}
			continue
		}
		p, ok := an.resolve(op, cwd)
		if !ok || an.critical(p) {
			return s, true
		}
	}
	return "", false
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

// sensitiveArgs collects protected write targets and secret reads in argv.
func (an *analyzer) sensitiveArgs(argv []word, cwd string, hits []string) []string {
	if len(argv) < 2 {
		return hits
	}
	name := cmdName(argv[0])
	write := fsWriteCmds[name]
	if name == "sed" {
		// Only sed's file operands are written, and only with -i; its
		// script is not a path.
		write = false
		if sc := an.sedCheck(argv[1:], cwd); sc.inPlace {
			for _, f := range sc.files {
				if an.isDangerousTarget(f, cwd) {
					hits = appendUnique(hits, f.s)
				}
			}
		}
	}
	if searchers[name] {
		ops := 0
		for _, a := range argv[1:] {
			if strings.HasPrefix(a.s, "-") {
				continue
			}
			ops++
			if p, ok := an.resolve(a, cwd); ok && a.literal && an.coversHome(p) {
				hits = appendUnique(hits, a.s)
			}
		}
		if (name == "rg" || name == "ag" || ops <= 1) && an.coversHome(cwd) && cwd != "" {
			// rg/ag (and grep -r with only a pattern) search the working directory.
			for _, a := range argv[1:] {
				if name == "rg" || name == "ag" || a.s == "-r" || a.s == "-R" || strings.HasPrefix(a.s, "--recursive") ||
					strings.HasPrefix(a.s, "-") && !strings.HasPrefix(a.s, "--") && strings.ContainsAny(a.s, "rR") {
					hits = appendUnique(hits, cwd)
					break
				}
			}
		}
	}
	for _, a := range argv[1:] {
		if write && wordCandidates(a, func(w word) bool { return an.isDangerousTarget(w, cwd) }) {
			hits = appendUnique(hits, a.s)
			continue
		}
		if !noReadCmds[name] && wordCandidates(a, func(w word) bool { return an.isSecret(w, cwd) }) {
			hits = appendUnique(hits, a.s)
		}
	}
	return hits
}

func (an *analyzer) sensitiveRedirs(l *leaf, hits []string) []string {
	for _, r := range l.redirs {
		if r.Word == nil || isHeredoc(r.Op) {
			continue
		}
		w := unquoteWord(an.src, r.Word)
		if isWriteRedir(r, w.s) {
			if an.isDangerousTarget(w, l.cwd) || an.isSecret(w, l.cwd) {
				hits = appendUnique(hits, w.s)
			}
		} else if r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut || r.Op == syntax.DplIn && !isFdWord(w.s) {
			if an.isSecret(w, l.cwd) {
				hits = appendUnique(hits, w.s)
			}
		}
	}
	return hits
}

// redirectDynamic objects to a write whose target is not literal.
func (an *analyzer) redirectDynamic(l *leaf) *finding {
	for _, r := range l.redirs {
		if r.Word == nil || isHeredoc(r.Op) {
			continue
		}
		w := unquoteWord(an.src, r.Word)
		if !w.literal && (isWriteRedir(r, w.s) || r.Op == syntax.DplOut || r.Op == syntax.DplIn) {
			return &finding{Ask, false, LayerSensitive, "redirect target " + w.s + " is not literal",
				fmt.Sprintf("Permission required: Bash command redirects to a dynamic target: %s", w.s)}
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
