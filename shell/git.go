package shell

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/toolscope/toolscope/internal/pathpolicy"
	"github.com/toolscope/toolscope/shell/internal/gitrepo"
	"github.com/toolscope/toolscope/shell/internal/specs"
	"github.com/toolscope/toolscope/shell/internal/unquote"
)

// Git: what makes a git command line read-only (its global options, its
// subcommands and their options, the values that name files it reads),
// what a command sets with git config, and how rules see past git's global
// options. Repositories (discovery, their configuration) are gitrepo.go's.

// gitGlobalOK are git's global options that change nothing but output.
var gitGlobalOK = map[string]bool{
	"--no-pager": true, "-P": true, "--no-optional-locks": true, "--literal-pathspecs": true,
	"--glob-pathspecs": true, "--noglob-pathspecs": true, "--icase-pathspecs": true, "--no-replace-objects": true,
	"--html-path": true, "--man-path": true, "--info-path": true,
}

// harmlessGitKey are configuration keys git config may read from every
// scope: names, defaults and switches, no URL or header that could carry a
// token.
var harmlessGitKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^(user\.(name|email|signingkey)|init\.defaultbranch|core\.[a-z]+|pull\.(rebase|ff)|push\.(default|autosetupremote)|merge\.(ff|conflictstyle)|branch\.[^.]+\.(remote|merge|rebase)|color\.[a-z.]+|diff\.(algorithm|renames|noprefix|mnemonicprefix|colormoved)|log\.[a-z]+|commit\.gpgsign|tag\.gpgsign|rebase\.[a-z]+|fetch\.prune|status\.[a-z]+|advice\.[a-z]+)$`)
})

// gitDenied returns the options the audited table refuses for a git
// subcommand: long names (without dashes) and short letters.
func gitDenied(sub string) (long []string, short string) {
	spec := specs.Sub("git " + sub)
	if spec == nil {
		return gitDeniedLong, "Oh"
	}
	if v, ok := gitDeniedCache.Load(spec); ok {
		d := v.(gitDeniedOpts)
		return d.long, d.short
	}
	long, short = gitDeniedOf(spec)
	gitDeniedCache.Store(spec, gitDeniedOpts{long, short})
	return long, short
}

// gitDeniedCache keeps gitDenied's answer for each subcommand's spec (a
// fixed table). The slices are shared: never modify them.
var gitDeniedCache sync.Map // *progSpec -> gitDeniedOpts

type gitDeniedOpts struct {
	long  []string
	short string
}

func gitDeniedOf(spec *specs.Spec) (long []string, short string) {
	long = gitDeniedLong
	for k, kind := range spec.Opts {
		if kind != specs.OptDeny {
			continue
		}
		if strings.HasPrefix(k, "--") {
			long = append(long, k[2:])
		} else if len(k) == 2 {
			short += k[1:]
		}
	}
	return long, short + "Oh"
}

// gitDeniedLong are options of read-only subcommands that write, run code
// or show credentials; their abbreviations are denied too (git accepts
// unambiguous prefixes).
var gitDeniedLong = []string{"output", "ext-diff", "textconv", "open-files-in-pager", "upload-pack", "receive-pack",
	"exec", "show-signature", "filters", "paginate", "edit", "run", "help", "web", "contents", "batch-command"}

var gitROSubs = map[string]bool{
	"status": true, "log": true, "diff": true, "show": true, "blame": true, "annotate": true, "shortlog": true,
	"describe": true, "rev-parse": true, "rev-list": true, "ls-files": true, "ls-tree": true, "cat-file": true,
	"grep": true, "whatchanged": true, "count-objects": true, "merge-base": true, "name-rev": true, "show-ref": true,
	"for-each-ref": true, "diff-tree": true, "diff-files": true, "diff-index": true, "check-ignore": true,
	"check-attr": true, "show-branch": true, "cherry": true, "version": true,
}

var gitBranchSpec = &specs.Flags{
	Short:       specs.Shorts("larvi", "", ""),
	Long:        specs.Longs("list all remotes verbose show-current no-color no-column no-abbrev ignore-case omit-empty", "format sort contains no-contains merged no-merged points-at", ""),
	StrictShort: true, StrictLong: true,
}

var gitTagSpec = &specs.Flags{
	Short:       specs.Shorts("li", "", ""),
	Long:        specs.Longs("list ignore-case omit-empty no-column no-color", "sort contains no-contains merged no-merged points-at format", ""),
	StrictShort: true, StrictLong: true,
}

var gitConfigSpec = &specs.Flags{
	Short:       specs.Shorts("lz", "f", ""),
	Long:        specs.Longs("get get-all get-regexp get-urlmatch list show-origin show-scope global local system worktree name-only null bool int bool-or-int path expiry-date includes no-includes", "file blob type default", ""),
	StrictShort: true, StrictLong: true,
}

func init() {
	for _, n := range []string{"color", "column", "abbrev"} {
		gitBranchSpec.Long[n] = specs.ArgOptional
	}
	gitTagSpec.Long["color"] = specs.ArgOptional
	gitTagSpec.Long["column"] = specs.ArgOptional
	gitTagSpec.Short['n'] = specs.ArgOptional
}

// planGit judges git: global options, the subcommand and its options, and
// (once paths are known) the repository the command will use. Every word
// that is not an option is also judged as a path: git diff and git grep
// --no-index read arbitrary files, and git diff does so on its own when a
// path lies outside the repository.
func planGit(an *analyzer, l *leaf, args []word) roPlan {
	if !an.cfg.hardened {
		return roPlan{why: "git runs hooks and helpers its repository configures (run it with a hardened environment)"}
	}
	i := 0
	version := false
	var dir *word
	for i < len(args) {
		a := args[i].Value
		if !strings.HasPrefix(a, "-") {
			break
		}
		switch {
		case a == "-C" && i+1 < len(args):
			w := args[i+1]
			dir = &w
			i += 2
			continue
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			w := args[i]
			w.Value, w.Pat, w.Tilde = a[2:], unquote.EscapeGlob(a[2:]), false
			dir = &w
		case gitGlobalOK[a]:
		case a == "--version":
			version = true
		default:
			return roPlan{why: "git global option " + a + " is not allowed"}
		}
		i++
	}
	if i == len(args) {
		if version {
			return roPlan{}
		}
		return roPlan{why: "no git subcommand"}
	}
	sub := args[i].Value
	rest := args[i+1:]
	p := roPlan{}
	noIndex := false
	deniedLong, deniedShort := gitDenied(sub)
	for _, w := range rest {
		a := w.Value
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") {
			name, val, _ := strings.Cut(a[2:], "=")
			if name == "" {
				continue
			}
			if len(name) >= 3 && strings.HasPrefix("no-index", name) {
				noIndex = true
				continue
			}
			for _, d := range deniedLong {
				if d != "no-index" && strings.HasPrefix(d, name) {
					return roPlan{why: "git option --" + name + " is not read-only"}
				}
			}
			if gitrepo.SignatureFormat().MatchString(val) {
				return roPlan{why: "signature placeholders run gpg"}
			}
		} else if strings.HasPrefix(a, "-") && strings.ContainsAny(a[1:], deniedShort) && sub != "branch" && sub != "tag" && sub != "config" {
			return roPlan{why: "git option " + a + " is not read-only"}
		}
	}
	why := gitSub(sub, rest)
	if why != "" {
		return roPlan{why: why}
	}
	// Paths: every non-option word (a revision name is judged as a path in
	// the working directory, which is harmless), and the values of options
	// that name a file git reads (blame --ignore-revs-file, ls-files
	// --exclude-from, config --file).
	for _, w := range rest {
		if !strings.HasPrefix(w.Value, "-") || w.Value == "-" {
			p.reads = append(p.reads, w)
		}
	}
	p.reads = append(p.reads, gitReadValues(sub, rest)...)
	if noIndex {
		if sub != "diff" && sub != "grep" {
			return roPlan{why: "git " + sub + " --no-index"}
		}
		p.trees = p.reads
		p.tree.Hidden = true
		if sub == "grep" && !gitGrepHasPath(rest) {
			// Without a path, git grep --no-index searches the working
			// directory, untracked files included.
			p.trees = append(p.trees, word{Value: ".", Pat: ".", Literal: true})
		}
	}
	if dir != nil {
		p.reads = append(p.reads, *dir)
	}
	operands := p.reads
	if dir != nil {
		operands = p.reads[:len(p.reads)-1]
	}
	implicitNoIndex := sub == "diff" && !noIndex && maybeOutsidePair(rest)
	p.extra = func(an *analyzer, l *leaf) (string, *finding) {
		start := l.cwd
		if dir != nil {
			x := an.judge(*dir, l)
			if x.unknown != "" || x.Path.Err != nil || x.Inside == "" {
				return "git -C " + dir.Value + " leaves the working directories", nil
			}
			start = x.Resolved.Path
		} else if l.cwdUnknown {
			return "the working directory is unknown", nil
		}
		why, repos := an.repos().Check(start)
		if why != "" {
			return why, nil
		}
		if sub == "diff" && !noIndex && (len(repos) == 0 || implicitNoIndex) {
			// Outside a repository, or with a path outside it, git diff
			// compares the two paths as diff -r does.
			for _, w := range operands {
				if w.Value == "--" {
					continue
				}
				x := an.judge(w, l)
				if x.unknown != "" || x.glob {
					return readWhy(w, x), nil
				}
				if why, f := an.treeCheck(x.Given, roPlan{tree: pathpolicy.TreeOptions{Hidden: true}}, w.Value); why != "" || f != nil {
					return why, f
				}
			}
		}
		if sub == "remote" || sub == "config" {
			// git remote -v and git config --local -l print remote URLs,
			// with the token some carry.
			for _, c := range repos {
				for i, d := range []string{c.Dir, an.repos().CommonDir(c.Dir)} {
					if i == 1 && d == c.Dir {
						break // not a linked work tree: one config
					}
					if an.repos().ConfigCreds(filepath.Join(d, "config")) {
						return "", sensitiveFinding([]string{"git " + sub + " prints remote URLs, and " + d + "/config has one with a password or token"})
					}
				}
			}
		}
		if printsContent(sub, rest) {
			for _, c := range repos {
				if s := an.repos().TrackedSecret(c.Dir); s != "" {
					return "", sensitiveFinding([]string{"git " + sub + " prints tracked files, and the repository tracks " + s})
				}
			}
		}
		return "", nil
	}
	return p
}

// gitReadValues returns the values of the options of git sub that name a
// file it reads (oRead in its table), in any spelling git accepts: --name
// VALUE, --name=VALUE, an unambiguous prefix of the name, -xVALUE, -x VALUE.
func gitReadValues(sub string, rest []word) []word {
	spec := specs.Sub("git " + sub)
	if spec == nil {
		return nil
	}
	var out []word
	value := func(w word, v string) word {
		w.Value, w.Pat, w.Tilde = v, unquote.EscapeGlob(v), strings.HasPrefix(v, "~")
		return w
	}
	for i := 0; i < len(rest); i++ {
		a := rest[i].Value
		if a == "--" {
			break
		}
		switch {
		case strings.HasPrefix(a, "--"):
			name, v, hasV := strings.Cut(a[2:], "=")
			if name == "" {
				continue
			}
			reads := false
			for k, kind := range spec.Opts {
				if kind == specs.OptRead && strings.HasPrefix(k, "--"+name) {
					reads = true
				}
			}
			if !reads {
				continue
			}
			if hasV {
				out = append(out, value(rest[i], v))
			} else if i+1 < len(rest) {
				out = append(out, rest[i+1])
				i++
			}
		case len(a) >= 2 && a[0] == '-' && spec.Opts[a[:2]] == specs.OptRead:
			if len(a) > 2 {
				out = append(out, value(rest[i], a[2:]))
			} else if i+1 < len(rest) {
				out = append(out, rest[i+1])
				i++
			}
		}
	}
	return out
}

// gitGrepHasPath reports whether git grep's arguments name a path: the
// words after "--", or after the pattern (the first word, unless -e, -f
// or --regexp/--file supply it).
func gitGrepHasPath(rest []word) bool {
	patternGiven := false
	var words []word
	for i := 0; i < len(rest); i++ {
		a := rest[i].Value
		if a == "--" {
			return i+1 < len(rest)
		}
		switch {
		case a == "-e" || a == "-f" || a == "--regexp" || a == "--file":
			patternGiven = true
			i++ // the pattern, or the file of patterns
		case strings.HasPrefix(a, "--regexp=") || strings.HasPrefix(a, "--file=") || strings.HasPrefix(a, "-e") || strings.HasPrefix(a, "-f"):
			patternGiven = true
		case a == "--and" || a == "--or" || a == "--not":
		case strings.HasPrefix(a, "-"):
		default:
			words = append(words, rest[i])
		}
	}
	if patternGiven {
		return len(words) > 0
	}
	return len(words) > 1
}

// maybeOutsidePair reports a git diff whose words after its options are
// exactly two, one of which may lie outside the repository (absolute, in
// the home directory, or above the working directory): git then compares
// them as files, without the index (builtin/diff.c's implicit
// --no-index). Deciding that by the spelling alone makes more commands
// into such comparisons than git does, never fewer.
func maybeOutsidePair(rest []word) bool {
	i := 0
	for i < len(rest) && strings.HasPrefix(rest[i].Value, "-") && rest[i].Value != "--" && rest[i].Value != "-" {
		i++
	}
	ws := rest[i:]
	if len(ws) != 2 {
		return false
	}
	for _, w := range ws {
		s := w.Value
		if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || w.Tilde || !w.Literal {
			return true
		}
		if c := filepath.Clean(s); c == ".." || strings.HasPrefix(c, "../") {
			return true
		}
	}
	return false
}

// gitSub judges a subcommand's own arguments ("" if read-only).
func gitSub(sub string, rest []word) string {
	if gitROSubs[sub] {
		return ""
	}
	switch sub {
	case "reflog":
		if len(rest) == 0 || rest[0].Value == "show" || strings.HasPrefix(rest[0].Value, "-") {
			return ""
		}
	case "branch":
		r := specs.ParseFlags(gitBranchSpec, rest)
		if r.Bad != "" {
			return "git branch " + r.Bad + " is not read-only"
		}
		if len(r.Operands) > 0 && !r.Has("list", "l") {
			return "git branch with operands creates a branch"
		}
		return ""
	case "tag":
		r := specs.ParseFlags(gitTagSpec, rest)
		if r.Bad != "" {
			return "git tag " + r.Bad + " is not read-only"
		}
		if len(r.Operands) > 0 && !r.Has("list", "l") {
			return "git tag with operands creates a tag"
		}
		return ""
	case "remote":
		if len(rest) == 0 || len(rest) == 1 && (rest[0].Value == "-v" || rest[0].Value == "--verbose") {
			return ""
		}
		switch rest[0].Value {
		case "get-url":
			for _, w := range rest[1:] {
				if strings.HasPrefix(w.Value, "-") && w.Value != "--push" && w.Value != "--all" {
					return "git remote get-url option"
				}
			}
			return ""
		case "show":
			hasN := false
			for _, w := range rest[1:] {
				if w.Value == "-n" {
					hasN = true
				} else if strings.HasPrefix(w.Value, "-") {
					return "git remote show option"
				}
			}
			if hasN {
				return ""
			}
			return "git remote show without -n contacts the network"
		}
	case "config":
		args, action := rest, ""
		if len(args) > 0 && (args[0].Value == "get" || args[0].Value == "list") {
			action, args = args[0].Value, args[1:]
		}
		r := specs.ParseFlags(gitConfigSpec, args)
		if r.Bad != "" {
			return "git config " + r.Bad + " is not read-only"
		}
		list := action == "list" || r.Has("list", "l")
		get := action == "get" || r.Has("get", "get-all", "get-regexp", "get-urlmatch")
		switch {
		case list && len(r.Operands) == 0:
		case get && len(r.Operands) >= 1 && len(r.Operands) <= 2:
		default:
			return "git config without --get/--list may write"
		}
		if r.Has("global", "system") {
			return "git config --global/--system prints configuration outside the working directories"
		}
		if r.Has("local", "worktree", "file", "f", "blob") {
			return "" // the repository's own configuration (a --file is judged as a read)
		}
		// Every scope: the user's and the system's configuration too, which
		// may hold credentials (http.extraHeader, url.<token>.insteadOf).
		if list || r.Has("get-regexp", "get-urlmatch") || action == "get" && len(r.Operands) != 1 ||
			len(r.Operands) != 1 || !harmlessGitKey().MatchString(r.Operands[0].Value) {
			return "git config reads the user's and the system's configuration, which may hold credentials (add --local)"
		}
		return ""
	case "stash":
		if len(rest) > 0 && (rest[0].Value == "list" || rest[0].Value == "show") {
			return ""
		}
	case "worktree":
		if len(rest) > 0 && rest[0].Value == "list" {
			return ""
		}
	}
	return "git " + sub + " is not read-only"
}

// gitConfigSetKey returns the key git config would set when it is one
// that runs a program, reads a file or includes configuration
// (core.fsmonitor, core.hooksPath, include.path, filter.x.clean, ...): the
// repository's configuration is protected, and git writes it here for the
// command line ("" otherwise).
func gitConfigSetKey(args []word) string {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].Value, "-") {
		if args[i].Value == "-c" || args[i].Value == "-C" {
			i++
		}
		i++
	}
	if i >= len(args) || args[i].Value != "config" {
		return ""
	}
	for _, a := range args[i+1:] {
		switch a.Value {
		case "get", "list", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--show-origin",
			"--show-scope", "--name-only":
			return "" // a read
		}
	}
	for _, a := range args[i+1:] {
		k := strings.ToLower(a.Value)
		if strings.HasPrefix(k, "-") || !strings.Contains(k, ".") {
			continue
		}
		first, last := strings.IndexByte(k, '.'), strings.LastIndexByte(k, '.')
		section, name := k[:first], k[last+1:]
		sub := ""
		if last > first {
			sub = k[first+1 : last]
		}
		switch {
		case gitrepo.RunsProgram(section, name), gitrepo.ReadsFile(section, name), section == "include", section == "includeif",
			section == "filter", section == "diff" && sub != "", k == "diff.external", k == "core.fsmonitor",
			k == "core.hookspath", k == "core.pager", k == "core.worktree", section == "alias", section == "pager",
			section == "gpg", name == "promisor", k == "extensions.partialclone":
			return a.Value
		}
		return "" // the first key-like word is the key
	}
	return ""
}

// gitWithoutGlobals drops git's global options, so that a rule for
// "git push" also sees git -C . -c x=y push.
func gitWithoutGlobals(s []string) []string {
	out := []string{"git"}
	i := 1
	for i < len(s) && strings.HasPrefix(s[i], "-") {
		switch s[i] {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path":
			i++
		}
		i++
	}
	return append(out, s[min(i, len(s)):]...)
}

// gitArgsAfterGlobals drops git's global options from args (what follows
// git itself).
func gitArgsAfterGlobals(args []word) []word {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].Value, "-") {
		switch args[i].Value {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path":
			i++
		}
		i++
	}
	return args[min(i, len(args)):]
}

// gitContentSubs print the content of files the repository tracks (or
// tracked): with a secret in the index, they print it.
var gitContentSubs = map[string]bool{
	"show": true, "diff": true, "grep": true, "cat-file": true, "blame": true, "annotate": true, "range-diff": true,
}

// gitPatchSubs print file contents only with a patch option.
var gitPatchSubs = map[string]bool{"log": true, "whatchanged": true, "reflog": true, "stash": true}

// printsContent reports whether git sub with args prints tracked files'
// contents.
func printsContent(sub string, args []word) bool {
	if gitContentSubs[sub] {
		return true
	}
	if !gitPatchSubs[sub] {
		return false
	}
	for _, a := range args {
		s := a.Value
		if s == "--" {
			break
		}
		if strings.HasPrefix(s, "--") {
			for _, p := range []string{"--patch", "--cc", "--dd", "--word-diff", "--color-words", "--binary", "--unified",
				"--remerge-diff", "--full-diff", "--diff-merges", "--function-context", "--textconv", "--ext-diff"} {
				if strings.HasPrefix(s, p) {
					return true
				}
			}
			continue
		}
		if strings.HasPrefix(s, "-") && strings.ContainsAny(s[1:], "pucLUmW") {
			return true
		}
	}
	return false
}
