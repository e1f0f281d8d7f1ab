package pathpolicy

import (
	"path"
	"slices"
	"strings"
	"sync"
)

// Effect says why writing a member of the protected class matters.
type Effect uint8

const (
	// Runs: a program runs or loads the file automatically, later and
	// without being asked to (a hook, a start-up file, configuration that
	// names commands, a directory of programs on $PATH).
	Runs Effect = iota + 1
	// Grants: the file grants permissions, holds credentials or starts
	// processes for someone (an agent's settings, .mcp.json, .ssh).
	Grants
)

func (e Effect) String() string {
	switch e {
	case Runs:
		return "runs"
	case Grants:
		return "grants"
	}
	return "?"
}

// Shape says how an [Entry]'s pattern matches a path. Names are compared
// case-insensitively, component by component.
type Shape uint8

const (
	// Name: the last component is the pattern (".bashrc" at any depth).
	Name Shape = iota + 1
	// Suffix: the path ends with the pattern's components (".ssh/config").
	Suffix
	// Dir: the pattern's components appear somewhere in the path; that
	// directory and everything below it are protected (".git",
	// ".github/workflows"), at any depth.
	Dir
	// Glob: the last component matches the pattern's last component, a
	// glob of path.Match (*.pth), and the components before it (if the
	// pattern has any) precede it.
	Glob
)

func (s Shape) String() string {
	switch s {
	case Name:
		return "name"
	case Suffix:
		return "suffix"
	case Dir:
		return "dir"
	case Glob:
		return "glob"
	}
	return "?"
}

// Entry is one member of the protected class: files that programs run or
// load later, or that grant permissions.
type Entry struct {
	// Pattern is a name, a slash-separated suffix, a directory (or
	// directory suffix) or a last-component glob, as Shape says.
	Pattern string
	Shape   Shape
	Effect  Effect
	// Why is one line: what runs it, or what it grants.
	Why string
}

// class is the one list of files that run later or grant permissions,
// protected everywhere, at any depth. DefaultProtectedFiles (Name and
// Suffix entries) and DefaultProtectedDirs (Dir entries) are derived from
// it; the Glob entries are only here. docs/protected-paths.md is generated
// from it (TestProtectedClassDoc keeps the two equal).
//
// CI definitions are members: they run on the CI service with the
// repository's secrets the next time anyone pushes, which is running code
// elsewhere with more rights than the agent has.
var class = []Entry{
	// Version control.
	{".git", Dir, Runs, "git's repository, at any depth (nested and vendored checkouts too): config (core.fsmonitor, core.hooksPath, aliases) and hooks run on the next git command"},
	{".gitconfig", Name, Runs, "git configuration: aliases, core.fsmonitor, core.sshCommand, credential helpers"},
	{".gitmodules", Name, Runs, "submodule URLs and update = !command, run by git submodule update"},
	{".gitattributes", Name, Runs, "names the filter and diff drivers git runs on checkout and diff"},
	{".git-credentials", Name, Grants, "git's stored credentials"},
	{"console-decisions.jsonl", Name, Grants, "toolscope console's decision log: who approved what (an agent must not write its own approvals)"},
	{".hg", Dir, Runs, "Mercurial's repository: .hg/hgrc hooks run on the next hg command"},
	{".hgrc", Name, Runs, "Mercurial configuration: hooks and extensions"},
	// Git hook managers.
	{".husky", Dir, Runs, "husky's git hooks"},
	{".huskyrc", Name, Runs, "husky 4 hook commands"},
	{".huskyrc.json", Name, Runs, "husky 4 hook commands"},
	{".huskyrc.js", Name, Runs, "husky 4 hook commands (a program)"},
	{"husky.config.js", Name, Runs, "husky 4 hook commands (a program)"},
	{".pre-commit-config.yaml", Name, Runs, "pre-commit's hooks, run on git commit"},
	{"lefthook.yml", Name, Runs, "lefthook's git hook commands"},
	{".lefthook.yml", Name, Runs, "lefthook's git hook commands"},
	{"lefthook.yaml", Name, Runs, "lefthook's git hook commands"},
	{".lefthook.yaml", Name, Runs, "lefthook's git hook commands"},
	{"lefthook.toml", Name, Runs, "lefthook's git hook commands"},
	{".lefthook.toml", Name, Runs, "lefthook's git hook commands"},
	{"lefthook.json", Name, Runs, "lefthook's git hook commands"},
	{".lefthook.json", Name, Runs, "lefthook's git hook commands"},
	{"lefthook-local.yml", Name, Runs, "lefthook's local overrides of hook commands"},
	{".lefthook-local.yml", Name, Runs, "lefthook's local overrides of hook commands"},
	{"lefthook-local.yaml", Name, Runs, "lefthook's local overrides of hook commands"},
	{".lefthook-local.yaml", Name, Runs, "lefthook's local overrides of hook commands"},
	{"lefthook-local.toml", Name, Runs, "lefthook's local overrides of hook commands"},
	{".lefthook-local.toml", Name, Runs, "lefthook's local overrides of hook commands"},
	{"lefthook-local.json", Name, Runs, "lefthook's local overrides of hook commands"},
	{".lefthook-local.json", Name, Runs, "lefthook's local overrides of hook commands"},
	{".config/lefthook.yml", Suffix, Runs, "lefthook's git hook commands"},
	{".config/lefthook.yaml", Suffix, Runs, "lefthook's git hook commands"},
	{".config/lefthook.toml", Suffix, Runs, "lefthook's git hook commands"},
	{".config/lefthook.json", Suffix, Runs, "lefthook's git hook commands"},
	// Shell start-up.
	{".bashrc", Name, Runs, "bash start-up file"},
	{".bash_profile", Name, Runs, "bash start-up file"},
	{".bash_login", Name, Runs, "bash start-up file"},
	{".bash_logout", Name, Runs, "bash exit file"},
	{".zshrc", Name, Runs, "zsh start-up file"},
	{".zprofile", Name, Runs, "zsh start-up file"},
	{".zshenv", Name, Runs, "zsh start-up file, read by every zsh"},
	{".zlogin", Name, Runs, "zsh start-up file"},
	{".zlogout", Name, Runs, "zsh exit file"},
	{".profile", Name, Runs, "login shell start-up file"},
	{".envrc", Name, Runs, "direnv runs it on cd (PATH_add, arbitrary shell)"},
	{".env", Name, Runs, "loaded into the environment by dotenv, direnv, docker compose (NODE_OPTIONS, LD_PRELOAD); also every .env.* and .env-*"},
	// Credentials and remote access.
	{".ssh", Dir, Grants, "ssh keys, authorized_keys and config"},
	{".ssh/config", Suffix, Runs, "ssh's ProxyCommand and LocalCommand run on the next ssh"},
	{".ssh/authorized_keys", Suffix, Grants, "who may log in"},
	{".aws", Dir, Grants, "AWS credentials and credential_process commands"},
	{".gnupg", Dir, Grants, "GnuPG keys and trust"},
	{".netrc", Name, Grants, "credentials curl, git and ftp send"},
	{".pgpass", Name, Grants, "PostgreSQL passwords"},
	{".pypirc", Name, Grants, "package index credentials"},
	{".kube/config", Suffix, Runs, "kubectl runs its exec credential plugins"},
	{".docker/config.json", Suffix, Runs, "docker runs its credential helpers"},
	// Package managers and toolchains.
	{".npmrc", Name, Runs, "npm configuration: script-shell, node-options, registry credentials"},
	{".yarnrc", Name, Runs, "yarn 1 configuration: yarn-path runs another program"},
	{".yarnrc.yml", Name, Runs, "yarn configuration: yarnPath, plugins"},
	{".pnpmfile.cjs", Name, Runs, "pnpm runs its hooks on install"},
	{"bunfig.toml", Name, Runs, "bun configuration: preload scripts"},
	{".bunfig.toml", Name, Runs, "bun configuration: preload scripts"},
	{".cargo/config.toml", Suffix, Runs, "cargo's runner, linker and aliases"},
	{".cargo/config", Suffix, Runs, "cargo's runner, linker and aliases"},
	{"rust-toolchain.toml", Name, Runs, "rustup installs and runs the toolchain it names (or a path)"},
	{"rust-toolchain", Name, Runs, "rustup installs and runs the toolchain it names (or a path)"},
	{"mise.toml", Name, Runs, "mise runs its hooks and tasks, sets the environment"},
	{".mise.toml", Name, Runs, "mise runs its hooks and tasks, sets the environment"},
	// Python start-up.
	{"*.pth", Glob, Runs, "Python's site module runs its import lines at every interpreter start (site-packages)"},
	{"sitecustomize.py", Name, Runs, "imported at every interpreter start when on sys.path"},
	{"usercustomize.py", Name, Runs, "imported at every interpreter start when on sys.path"},
	{".venv/bin", Dir, Runs, "a virtualenv's programs, run by name once it is activated"},
	{"venv/bin", Dir, Runs, "a virtualenv's programs, run by name once it is activated"},
	// Interactive tools that read files from the directory they start in.
	{".gdbinit", Name, Runs, "gdb runs its commands at start-up"},
	{".lldbinit", Name, Runs, "lldb runs its commands at start-up"},
	{".exrc", Name, Runs, "vi runs its commands (exrc)"},
	{".nvimrc", Name, Runs, "neovim runs it (exrc)"},
	{".nvim.lua", Name, Runs, "neovim runs it (exrc)"},
	{".vimrc", Name, Runs, "vim runs it"},
	{".curlrc", Name, Runs, "curl's default options (output files, config)"},
	{".wgetrc", Name, Runs, "wget's default options"},
	{".tmux.conf", Name, Runs, "tmux runs its run-shell commands"},
	{".irbrc", Name, Runs, "irb runs it at start-up"},
	{".pryrc", Name, Runs, "pry runs it at start-up"},
	{".psqlrc", Name, Runs, "psql runs it at start-up (\\! runs commands)"},
	{".sqliterc", Name, Runs, "sqlite3 runs it at start-up (.shell runs commands)"},
	{".Rprofile", Name, Runs, "R runs it at start-up from the working directory"},
	// Editors, IDEs and dev containers.
	{".vscode", Dir, Runs, "VS Code tasks (runOn: folderOpen), settings naming interpreters and terminals, launch configurations"},
	{".idea", Dir, Runs, "JetBrains run configurations and startup tasks"},
	{".zed", Dir, Runs, "Zed tasks and settings"},
	{".devcontainer", Dir, Runs, "devcontainer.json initializeCommand runs on the host; postCreateCommand and Dockerfiles"},
	{".devcontainer.json", Name, Runs, "initializeCommand runs on the host when the container is built"},
	// Coding agents.
	{".claude", Dir, Grants, "Claude Code settings (permission rules), hooks that run commands"},
	{".cursor", Dir, Grants, "Cursor rules, MCP servers and settings"},
	{".gemini", Dir, Grants, "Gemini CLI settings, MCP servers"},
	{".codex", Dir, Grants, "Codex settings, MCP servers"},
	{".mcp.json", Name, Grants, "the MCP servers a client starts (commands run on the next session)"},
	// CI definitions: run with the repository's secrets on the next push.
	{".github/workflows", Dir, Runs, "GitHub Actions workflows"},
	{".github/actions", Dir, Runs, "GitHub Actions local actions the workflows run"},
	{".gitlab-ci.yml", Name, Runs, "GitLab CI pipeline"},
	{".circleci", Dir, Runs, "CircleCI pipeline"},
	{".buildkite", Dir, Runs, "Buildkite pipeline and hooks"},
	{"Jenkinsfile", Name, Runs, "Jenkins pipeline"},
	{".travis.yml", Name, Runs, "Travis CI pipeline"},
	{"azure-pipelines.yml", Name, Runs, "Azure Pipelines pipeline"},
}

// ProtectedClass returns the protected class: every entry's pattern,
// shape, effect and reason. The policy's defaults are made from it; the
// OS sandbox and the CLI read it too.
func ProtectedClass() []Entry { return append([]Entry(nil), class...) }

// DefaultProtectedFiles are the file names (or path suffixes, when they
// contain a slash) that no tool may write without asking: the Name and
// Suffix entries of [ProtectedClass] (shell start-up files, git and
// package-manager configuration, credentials, hook managers'
// configuration, .mcp.json, ...). ".env" also covers every ".env.*" and
// ".env-*" variant.
var DefaultProtectedFiles = classPatterns(Name, Suffix)

// DefaultProtectedDirs are the directories (names, or suffixes such as
// ".github/workflows") no tool may write into without asking, wherever
// they are: the Dir entries of [ProtectedClass].
var DefaultProtectedDirs = classPatterns(Dir)

func classPatterns(shapes ...Shape) []string {
	var out []string
	for _, e := range class {
		for _, s := range shapes {
			if e.Shape == s {
				out = append(out, e.Pattern)
			}
		}
	}
	return out
}

// names is a prepared set of protected patterns, for matching lower-case
// components.
type names struct {
	files   map[string][][]string // Name and Suffix entries by last component
	fileSeq [][]string            // the same, in order
	dirs    map[string]bool       // one-component Dir entries
	dirList []string              // the same, in order
	dirSeqs [][]string            // Dir entries of more components
	globs   []globEntry
	envFam  bool     // ".env" is a member: so are .env.* and .env-*
	odd     []string // quick-scan tokens of the names that do not start with a dot
	quick   *quickScan
}

type globEntry struct {
	parent []string // components before the glob
	glob   string   // lower case
	lit    string   // its longest literal run (".pth"); "" with brackets or escapes
}

// prepare makes the names of files (Name or Suffix), dirs (names or
// suffixes) and globs.
func prepare(files, dirs, globs []string) *names {
	// Sized and allocated up front: the defaults are prepared in every
	// process, at start.
	n := &names{files: make(map[string][][]string, len(files)), dirs: make(map[string]bool, len(dirs)),
		fileSeq: make([][]string, 0, len(files)), dirList: make([]string, 0, len(dirs)), globs: make([]globEntry, 0, len(globs))}
	addOdd := func(c string) {
		if c == "" || c[0] == '.' {
			return
		}
		// A prefix finds the name too, and fewer tokens make the scan
		// quicker ("lefthook" for its dozen names).
		if len(c) > maxQuickToken {
			c = c[:maxQuickToken]
		}
		if !slices.Contains(n.odd, c) {
			n.odd = append(n.odd, c)
		}
	}
	for _, f := range files {
		c := splitLower(f)
		if len(c) == 0 {
			continue
		}
		last := c[len(c)-1]
		n.files[last] = append(n.files[last], c)
		n.fileSeq = append(n.fileSeq, c)
		if len(c) == 1 && c[0] == ".env" {
			n.envFam = true
		}
		addOdd(c[0])
	}
	for _, d := range dirs {
		c := splitLower(d)
		switch len(c) {
		case 0:
			continue
		case 1:
			if !n.dirs[c[0]] {
				n.dirList = append(n.dirList, c[0])
			}
			n.dirs[c[0]] = true
		default:
			n.dirSeqs = append(n.dirSeqs, c)
		}
		addOdd(c[0])
	}
	for _, g := range globs {
		c := splitLower(g)
		if len(c) == 0 {
			continue
		}
		g := globEntry{parent: c[:len(c)-1], glob: c[len(c)-1]}
		if !strings.ContainsAny(g.glob, "[]\\") {
			// Without brackets or escapes every run between wildcards
			// is literal: a matching name holds it.
			g.lit = longestLiteral(g.glob)
		}
		n.globs = append(n.globs, g)
		// The quick scan looks for the glob's longest literal run (".pth").
		if len(c) > 1 {
			addOdd(c[0])
		}
		if lit := longestLiteral(c[len(c)-1]); lit == "" {
			n.odd = append(n.odd, "/") // every absolute path: always look
		} else if !slices.Contains(n.odd, lit) {
			n.odd = append(n.odd, lit)
		}
	}
	n.quick = newQuickScan(n.odd)
	return n
}

// maxQuickToken is the longest prefix of a name the quick scan looks for.
const maxQuickToken = 8

// longestLiteral returns the longest run of g without glob characters.
func longestLiteral(g string) string {
	best := ""
	for _, part := range strings.FieldsFunc(g, func(r rune) bool { return r == '*' || r == '?' || r == '[' || r == ']' || r == '\\' }) {
		if len(part) > len(best) {
			best = part
		}
	}
	return best
}

// protected reports protected names in a path's lower-case components.
func (n *names) protected(comps []string) bool {
	if len(comps) == 0 {
		return false
	}
	for i, c := range comps {
		if n.dirs[c] {
			return true
		}
		for _, seq := range n.dirSeqs {
			if c == seq[0] && hasSeqAt(comps, i, seq) {
				return true
			}
		}
	}
	last := comps[len(comps)-1]
	if n.envFam && (strings.HasPrefix(last, ".env.") || strings.HasPrefix(last, ".env-")) && !isTemplate(last) {
		return true
	}
	for _, f := range n.files[last] {
		if len(f) <= len(comps) && hasSeqAt(comps, len(comps)-len(f), f) {
			return true
		}
	}
	for _, g := range n.globs {
		k := len(comps) - 1 - len(g.parent)
		if k < 0 || !strings.Contains(last, g.lit) || !hasSeqAt(comps, k, g.parent) {
			continue // a name without the glob's literal run cannot match it
		}
		if ok, _ := path.Match(g.glob, last); ok {
			return true
		}
	}
	return false
}

// defaultGlobs are the Glob entries of the class.
func defaultGlobs() []string { return classPatterns(Glob) }

var (
	entryNamesOnce sync.Once
	entryNames     []*names // one per class entry, in order
)

// MemberOf returns the first entry of [ProtectedClass] that path (a
// slash-separated path, judged by its spelling alone, as the class's
// patterns match anywhere in it) is a member of: ".../.git/config" is
// the ".git" entry, "tools/.venv/bin/python" the ".venv/bin" one. ok is
// false for a path outside the class, secrets included: a private key is
// hidden from reads but runs nothing.
func MemberOf(path string) (e Entry, ok bool) {
	entryNamesOnce.Do(func() {
		entryNames = make([]*names, len(class))
		for i, e := range class {
			switch e.Shape {
			case Dir:
				entryNames[i] = prepare(nil, []string{e.Pattern}, nil)
			case Glob:
				entryNames[i] = prepare(nil, nil, []string{e.Pattern})
			default:
				entryNames[i] = prepare([]string{e.Pattern}, nil, nil)
			}
		}
	})
	comps := splitLower(path)
	for i, n := range entryNames {
		if n.protected(comps) {
			return class[i], true
		}
	}
	return Entry{}, false
}
