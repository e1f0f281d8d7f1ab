package shell

import (
	"path/filepath"
	"strings"
)

// roTool validates the arguments (argv[1:]) of a read-only candidate.
type roTool func(an *analyzer, l *leaf, args []word) (bool, string)

func anyArgs(*analyzer, *leaf, []word) (bool, string) { return true, "" }

func noArgs(_ *analyzer, _ *leaf, args []word) (bool, string) {
	if len(args) > 0 {
		return false, "unexpected arguments"
	}
	return true, ""
}

// denyFlags builds a validator from a spec: any refused option fails.
func denyFlags(fs *flagSpec, maxOperands int) roTool {
	return func(_ *analyzer, _ *leaf, args []word) (bool, string) {
		r := parseFlags(fs, args)
		if r.bad != "" {
			return false, "option " + r.bad + " is not read-only"
		}
		if maxOperands >= 0 && len(r.operands) > maxOperands {
			return false, "too many operands"
		}
		return true, ""
	}
}

// versionOnly accepts exactly one of the given version flags.
func versionOnly(flags ...string) roTool {
	return func(_ *analyzer, _ *leaf, args []word) (bool, string) {
		if len(args) == 1 {
			for _, f := range flags {
				if args[0].s == f {
					return true, ""
				}
			}
		}
		return false, "only a version query is read-only"
	}
}

var roTools map[string]roTool

func init() {
	roTools = map[string]roTool{}
	for _, n := range strings.Fields(`ls cat head tail wc grep egrep fgrep pwd true false : whoami id uname nproc arch groups
		tty basename dirname realpath readlink cut tr nl paste rev seq expr tac numfmt column cmp diff comm fold od hexdump
		strings md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum uptime free ps pgrep sleep which
		whereis type du df stat locale getconf dircolors lsblk`) {
		roTools[n] = anyArgs
	}
	roTools["echo"] = anyArgs
	roTools["printf"] = denyFlags(&flagSpec{short: shorts("", "", "v")}, -1)
	roTools["cd"] = roCd
	roTools["file"] = denyFlags(&flagSpec{short: shorts("", "mefFP", "C"), long: longs("", "magic-file exclude separator parameter", "compile")}, -1)
	roTools["find"] = roFind
	roTools["rg"] = denyFlags(&flagSpec{
		short: shorts("", "ABCEMTdefgjmrt", "z"),
		long:  longs("", "", "pre hostname-bin search-zip"),
	}, -1)
	roTools["ag"] = denyFlags(&flagSpec{short: shorts("", "ABCGgmp", "z"), long: longs("", "", "pager search-zip")}, -1)
	roTools["sort"] = denyFlags(&flagSpec{
		short:       shorts("bdfgiMhnRrVcCmsuz", "ktST", "o"),
		long:        longs("ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort reverse version-sort merge stable unique zero-terminated debug help version", "key field-separator buffer-size temporary-directory parallel sort random-source check", "output compress-program files0-from"),
		strictShort: true, strictLong: true,
	}, -1)
	uniqSpec := &flagSpec{
		short:       shorts("cdDiuz", "fsw", ""),
		long:        longs("count repeated ignore-case unique zero-terminated help version", "skip-fields skip-chars check-chars", ""),
		strictShort: true, strictLong: true,
	}
	uniqSpec.long["all-repeated"] = fOptValue
	uniqSpec.long["group"] = fOptValue
	roTools["uniq"] = denyFlags(uniqSpec, 1)
	roTools["base64"] = denyFlags(&flagSpec{
		short:       shorts("dinDb", "w", "o"),
		long:        longs("decode ignore-garbage help version", "wrap", "output input"),
		strictShort: true, strictLong: true,
	}, 1)
	roTools["date"] = roDate
	roTools["tree"] = denyFlags(&flagSpec{short: shorts("", "LPIHT", "oR"), long: longs("", "filelimit charset sort timefmt", "output fromfile")}, -1)
	roTools["hostname"] = denyFlags(&flagSpec{
		short:       shorts("aAdfiIsy", "", "Fb"),
		long:        longs("alias all-fqdns domain fqdn long ip-address all-ip-addresses short nis yp help version", "", "file boot"),
		strictShort: true, strictLong: true,
	}, 0)
	jqFlags := denyFlags(&flagSpec{short: shorts("", "L", "f"), long: longs("", "indent", "from-file")}, -1)
	roTools["jq"] = func(an *analyzer, l *leaf, args []word) (bool, string) {
		for _, a := range args {
			if strings.Contains(a.s, "env") || strings.Contains(a.s, "ENV") {
				return false, "jq program reads the environment"
			}
		}
		return jqFlags(an, l, args)
	}
	roTools["ps"] = func(_ *analyzer, _ *leaf, args []word) (bool, string) {
		for _, a := range args {
			if !strings.HasPrefix(a.s, "-") && strings.ContainsAny(a.s, "eE") {
				return false, "ps e shows process environments"
			}
		}
		return true, ""
	}
	roTools["xxd"] = denyFlags(&flagSpec{short: shorts("", "cgloqsC", ""), long: longs("", "", "")}, 1)
	roTools["sed"] = roSed
	roTools["git"] = roGit
	roTools["go"] = roGo
	roTools["docker"] = roSub(map[string]roTool{"ps": anyArgs, "images": anyArgs, "inspect": anyArgs, "logs": anyArgs, "version": anyArgs, "info": anyArgs, "--version": noArgs, "-v": noArgs})
	ghNoWeb := denyFlags(&flagSpec{short: shorts("", "RLSAlBHJqtj", "w"), long: longs("", "repo limit state author label base head json jq template search", "web")}, -1)
	roTools["gh"] = roSub2(map[string]roTool{"repo view": ghNoWeb, "issue list": ghNoWeb, "issue view": ghNoWeb, "pr list": ghNoWeb, "pr view": ghNoWeb, "pr status": ghNoWeb, "pr checks": ghNoWeb, "pr diff": ghNoWeb, "status": ghNoWeb, "auth status": ghNoWeb, "--version": noArgs})
	roTools["npm"] = roSub(map[string]roTool{"ls": anyArgs, "list": anyArgs, "--version": noArgs, "-v": noArgs})
	pip := roSub(map[string]roTool{"list": anyArgs, "show": anyArgs, "freeze": anyArgs, "--version": noArgs, "-V": noArgs})
	roTools["pip"], roTools["pip3"] = pip, pip
	roTools["node"] = versionOnly("--version", "-v")
	for _, n := range []string{"python", "python3"} {
		roTools[n] = versionOnly("--version", "-V")
	}
	roTools["ruby"] = versionOnly("--version")
	roTools["java"] = versionOnly("-version", "--version")
	roTools["javac"] = versionOnly("-version", "--version")
	for _, n := range []string{"cargo", "rustc", "gcc", "clang", "deno", "bun", "tsc", "pnpm", "yarn"} {
		roTools[n] = versionOnly("--version", "-V", "-v")
	}
}

func roSub(subs map[string]roTool) roTool {
	return func(an *analyzer, l *leaf, args []word) (bool, string) {
		if len(args) == 0 {
			return false, "no subcommand"
		}
		if t, ok := subs[args[0].s]; ok {
			return t(an, l, args[1:])
		}
		return false, "subcommand " + args[0].s + " is not read-only"
	}
}

func roSub2(subs map[string]roTool) roTool {
	return func(an *analyzer, l *leaf, args []word) (bool, string) {
		if len(args) >= 2 {
			if t, ok := subs[args[0].s+" "+args[1].s]; ok {
				return t(an, l, args[2:])
			}
		}
		if len(args) >= 1 {
			if t, ok := subs[args[0].s]; ok {
				return t(an, l, args[1:])
			}
		}
		return false, "subcommand is not read-only"
	}
}

func roCd(_ *analyzer, _ *leaf, args []word) (bool, string) {
	n := 0
	for _, a := range args {
		if a.s != "-P" && a.s != "-L" && a.s != "--" {
			n++
		}
	}
	if n > 1 {
		return false, "too many operands"
	}
	return true, ""
}

var findActions = map[string]bool{"-exec": true, "-execdir": true, "-ok": true, "-okdir": true, "-delete": true,
	"-fls": true, "-fprint": true, "-fprint0": true, "-fprintf": true}

func roFind(_ *analyzer, _ *leaf, args []word) (bool, string) {
	for _, a := range args {
		if findActions[a.s] {
			return false, "find action " + a.s + " is not read-only"
		}
	}
	return true, ""
}

var dateSpec = &flagSpec{
	short: shorts("uR", "dfr", "s"),
	long:  longs("universal utc rfc-email debug help version", "date file reference", "set"),
}

func init() {
	dateSpec.short['I'] = fOptValue
	dateSpec.long["iso-8601"] = fOptValue
	dateSpec.long["rfc-3339"] = fValue
	dateSpec.long["resolution"] = fNone
}

func roDate(_ *analyzer, _ *leaf, args []word) (bool, string) {
	r := parseFlags(dateSpec, args)
	if r.bad != "" {
		return false, "option " + r.bad + " sets the clock"
	}
	for _, o := range r.operands {
		if !strings.HasPrefix(o.s, "+") {
			return false, "operand sets the clock"
		}
	}
	return true, ""
}

func roSed(an *analyzer, l *leaf, args []word) (bool, string) {
	r := an.sedCheck(args, l.cwd)
	if r.err == "" && r.printOnly {
		return true, ""
	}
	return false, "sed is read-only only as sed -n Np or N,Mp"
}

func roGo(_ *analyzer, _ *leaf, args []word) (bool, string) {
	if len(args) == 0 {
		return false, "no subcommand"
	}
	switch args[0].s {
	case "version":
		return true, ""
	case "env":
		for _, a := range args[1:] {
			if a.s == "-w" || a.s == "-u" || strings.HasPrefix(a.s, "-w=") || strings.HasPrefix(a.s, "-u=") {
				return false, "go env -w/-u writes configuration"
			}
		}
		return true, ""
	}
	return false, "go " + args[0].s + " is not read-only"
}

// ---- git ----

var gitDeniedLong = []string{"output", "ext-diff", "textconv", "open-files-in-pager", "upload-pack", "receive-pack",
	"exec", "show-signature", "filters", "paginate", "edit", "run"}

var gitROSubs = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "blame": true, "annotate": true, "shortlog": true,
	"describe": true, "rev-parse": true, "rev-list": true, "ls-files": true, "ls-tree": true, "cat-file": true,
	"grep": true, "whatchanged": true, "count-objects": true, "merge-base": true, "name-rev": true, "show-ref": true,
	"for-each-ref": true, "diff-tree": true, "diff-files": true, "diff-index": true, "check-ignore": true,
	"check-attr": true, "show-branch": true, "cherry": true, "version": true,
}

var gitBranchSpec = &flagSpec{
	short:       shorts("larvi", "", ""),
	long:        longs("list all remotes verbose show-current no-color no-column no-abbrev ignore-case omit-empty", "format sort contains no-contains merged no-merged points-at", ""),
	strictShort: true, strictLong: true,
}

var gitTagSpec = &flagSpec{
	short:       shorts("li", "", ""),
	long:        longs("list ignore-case omit-empty no-column no-color", "sort contains no-contains merged no-merged points-at format", ""),
	strictShort: true, strictLong: true,
}

var gitConfigSpec = &flagSpec{
	short:       shorts("lz", "f", ""),
	long:        longs("get get-all get-regexp get-urlmatch list show-origin show-scope global local system worktree name-only null bool int bool-or-int path expiry-date includes no-includes", "file blob type default", ""),
	strictShort: true, strictLong: true,
}

func init() {
	for _, n := range []string{"color", "column", "abbrev"} {
		gitBranchSpec.long[n] = fOptValue
	}
	gitTagSpec.long["color"] = fOptValue
	gitTagSpec.long["column"] = fOptValue
	gitTagSpec.short['n'] = fOptValue
}

func (an *analyzer) insideCwd(w word, cwd string) bool {
	if !w.literal || w.glob {
		return false
	}
	p, ok := an.resolve(w, cwd)
	if !ok {
		return false
	}
	rel, err := filepath.Rel(cwd, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func roGit(an *analyzer, l *leaf, args []word) (bool, string) {
	i := 0
	version := false
	for i < len(args) {
		a := args[i].s
		if !strings.HasPrefix(a, "-") {
			break
		}
		switch {
		case a == "-C":
			if i+1 >= len(args) || !an.insideCwd(args[i+1], l.cwd) {
				return false, "git -C outside the working directory"
			}
			i += 2
			continue
		case strings.HasPrefix(a, "-C"):
			w := args[i]
			w.s = a[2:]
			if !an.insideCwd(w, l.cwd) {
				return false, "git -C outside the working directory"
			}
		case a == "--no-pager" || a == "-P" || a == "--no-optional-locks" || a == "--literal-pathspecs" ||
			a == "--glob-pathspecs" || a == "--noglob-pathspecs" || a == "--icase-pathspecs" || a == "--no-replace-objects":
		case a == "--version":
			version = true
		default:
			return false, "git global option " + a + " is not allowed"
		}
		i++
	}
	if i == len(args) {
		if version {
			return true, ""
		}
		return false, "no git subcommand"
	}
	sub := args[i].s
	rest := args[i+1:]
	for _, w := range rest {
		a := w.s
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") {
			name := a[2:]
			val := ""
			if eq := strings.IndexByte(name, '='); eq >= 0 {
				name, val = name[:eq], name[eq+1:]
			}
			if name == "" {
				continue
			}
			for _, d := range gitDeniedLong {
				if strings.HasPrefix(d, name) {
					return false, "git option --" + name + " is not read-only"
				}
			}
			if (name == "format" || name == "pretty") && strings.Contains(val, "%G") {
				return false, "signature placeholders run gpg"
			}
		} else if strings.HasPrefix(a, "-") && strings.ContainsRune(a, 'O') {
			return false, "git option -O is not read-only"
		}
	}
	if gitROSubs[sub] {
		return true, ""
	}
	switch sub {
	case "reflog":
		if len(rest) == 0 || rest[0].s == "show" || strings.HasPrefix(rest[0].s, "-") {
			return true, ""
		}
	case "branch":
		r := parseFlags(gitBranchSpec, rest)
		if r.bad != "" {
			return false, "git branch " + r.bad + " is not read-only"
		}
		if len(r.operands) > 0 && !r.has("list", "l") {
			return false, "git branch with operands creates a branch"
		}
		return true, ""
	case "tag":
		r := parseFlags(gitTagSpec, rest)
		if r.bad != "" {
			return false, "git tag " + r.bad + " is not read-only"
		}
		if len(r.operands) > 0 && !r.has("list", "l") {
			return false, "git tag with operands creates a tag"
		}
		return true, ""
	case "remote":
		if len(rest) == 0 || len(rest) == 1 && (rest[0].s == "-v" || rest[0].s == "--verbose") {
			return true, ""
		}
		switch rest[0].s {
		case "get-url":
			for _, w := range rest[1:] {
				if strings.HasPrefix(w.s, "-") && w.s != "--push" && w.s != "--all" {
					return false, "git remote get-url option"
				}
			}
			return true, ""
		case "show":
			hasN := false
			for _, w := range rest[1:] {
				if w.s == "-n" {
					hasN = true
				} else if strings.HasPrefix(w.s, "-") {
					return false, "git remote show option"
				}
			}
			if hasN {
				return true, ""
			}
			return false, "git remote show without -n contacts the network"
		}
	case "config":
		if len(rest) > 0 && (rest[0].s == "get" || rest[0].s == "list") {
			r := parseFlags(gitConfigSpec, rest[1:])
			if r.bad != "" {
				return false, "git config " + r.bad
			}
			return true, ""
		}
		r := parseFlags(gitConfigSpec, rest)
		if r.bad != "" {
			return false, "git config " + r.bad + " is not read-only"
		}
		switch {
		case r.has("list", "l"):
			if len(r.operands) == 0 {
				return true, ""
			}
		case r.has("get", "get-all", "get-regexp", "get-urlmatch"):
			if len(r.operands) >= 1 && len(r.operands) <= 2 {
				return true, ""
			}
		}
		return false, "git config without --get/--list may write"
	case "stash":
		if len(rest) > 0 && (rest[0].s == "list" || rest[0].s == "show") {
			return true, ""
		}
	case "worktree":
		if len(rest) > 0 && rest[0].s == "list" {
			return true, ""
		}
	}
	return false, "git " + sub + " is not read-only"
}

// readOnly decides whether a leaf is read-only. redirOnly reports that the
// leaf would be read-only but for writing redirections.
func (an *analyzer) readOnly(l *leaf) (ro, redirOnly bool, why string) {
	writes := false
	for _, r := range l.redirs {
		if r.Word == nil || isHeredoc(r.Op) {
			continue
		}
		w := unquoteWord(an.src, r.Word)
		if isWriteRedir(r, w.s) && !exemptDev(w.s) {
			writes = true
		}
	}
	if l.emptyCmd {
		return false, writes, "redirection without a command"
	}
	if len(l.assigns) > 0 {
		return false, false, "environment assignment before the command"
	}
	if l.background {
		return false, false, "background job"
	}
	if l.timed {
		return false, false, "time wrapper"
	}
	if l.cwdUnknown {
		return false, false, "working directory unknown after cd"
	}
	if len(l.args) == 0 {
		return false, false, "no command"
	}
	name := l.args[0].s
	if strings.ContainsRune(name, '/') {
		return false, false, "command given by path"
	}
	tool := roTools[name]
	if tool == nil {
		return false, false, name + " is not a read-only command"
	}
	for _, w := range l.args {
		if w.obscured {
			return false, false, "argument uses $'...' or $\"...\" quoting"
		}
	}
	for _, w := range l.args[1:] {
		if !w.literal && !((name == "echo" || name == "printf") && w.param && !w.badParam) {
			return false, false, "argument " + w.s + " is not literal"
		}
	}
	if ok, why := tool(an, l, l.args[1:]); !ok {
		return false, false, why
	}
	if writes {
		return false, true, "writes to a file"
	}
	return true, false, ""
}
