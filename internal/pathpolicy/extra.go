package pathpolicy

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The protected class beyond names: directories known by where they are.
// Options.ProtectedPaths (toolscope's own state, configuration and run
// files), the directories on $PATH (Options.PathDirs) and the directory a
// repository's core.hooksPath names. Each is protected with everything
// below it, judged on the path as written and where it leads.

// extraTTL is how long a resolution of an extra directory, or what a
// repository's configuration says, is reused across policies before it is
// looked at again. Judging a command must not cost a stat of every $PATH
// entry; a link swapped in the last second is the price (the OS sandbox
// does not share it).
const extraTTL = time.Second

// maxExtraCache bounds each process-wide cache.
const maxExtraCache = 1024

type ttlEntry[V any] struct {
	val V
	at  time.Time
}

// ttlCache is a process-wide cache whose entries are computed again
// after extraTTL.
type ttlCache[V any] struct {
	mu sync.Mutex
	m  map[[2]string]ttlEntry[V]
}

func (c *ttlCache[V]) get(key [2]string, now time.Time, compute func() V) V {
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && now.Sub(e.at) < extraTTL && now.Sub(e.at) >= 0 {
		return e.val
	}
	v := compute()
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxExtraCache {
		c.m = map[[2]string]ttlEntry[V]{}
	}
	c.m[key] = ttlEntry[V]{v, now}
	c.mu.Unlock()
	return v
}

// dirPair is a protected directory as written (cleaned) and where it
// leads.
type dirPair struct{ clean, real string }

var (
	resolvedDirs ttlCache[string]    // {dir, ""} -> where it leads
	pathExtras   ttlCache[[]dirPair] // {$PATH, ""} -> its absolute directories
	repoHooks    ttlCache[[]dirPair] // {working directory, home} -> the hooks directories its repository names
)

// resolvedDir returns where the absolute directory d leads (d cleaned when
// it cannot be resolved).
func resolvedDir(d string, now time.Time) string {
	return resolvedDirs.get([2]string{d, ""}, now, func() string {
		r, err := resolve(d, nil)
		if err != nil || r.Proc {
			return filepath.Clean(d)
		}
		return r.Path
	})
}

// pairs returns the absolute directories of dirs, cleaned and resolved.
func pairs(dirs []string, now time.Time) []dirPair {
	var out []dirPair
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			continue
		}
		c := filepath.Clean(d)
		if !slices.ContainsFunc(out, func(p dirPair) bool { return p.clean == c }) {
			out = append(out, dirPair{c, resolvedDir(c, now)})
		}
	}
	return out
}

// SplitPathList returns the absolute directories of a $PATH value, cleaned,
// without duplicates. Relative and empty entries ("", ".", "bin",
// "./node_modules/.bin") are dropped: they name directories of whatever
// directory a command runs in, and a command should run without them.
func SplitPathList(path string) []string {
	var out []string
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// extras are a policy's protected directories beyond names, computed at
// the first judgement that needs them.
type extras struct {
	once        sync.Once
	protected   []string // Options.ProtectedPaths
	pathDirs    []string // Options.PathDirs
	processPATH bool     // pathDirs is nil: the process's $PATH
	snap        *extraSnap
}

// extraSnap is what the extra directories were for some inputs, at some
// time: shared, read-only. The last one is kept process-wide; a policy
// with the same inputs within extraTTL uses it (the usual case: every
// decision of a process has the same working directories and $PATH), so
// a decision costs neither a computation nor an allocation for them.
type extraSnap struct {
	at                  time.Time
	protected, pathDirs []string
	processPATH         bool
	path                string
	roots               []string
	home                string

	lists  [][]dirPair
	firsts []string // the first components of every directory, as written and where it leads
	all    bool     // a directory at "/" or too many first components: compare every path in full
}

// lastExtras are the last snapshots, most recent first: a process whose
// decisions alternate between a few sets of working directories (serve's
// sessions, a benchmark's table) finds its own.
var lastExtras [4]atomic.Pointer[extraSnap]

var nextExtra atomic.Uint32

// same reports whether s was made for these inputs less than extraTTL ago.
// The inputs are compared first: the clock is read only for a snapshot
// that could serve (time.Since reads the monotonic clock alone).
func (s *extraSnap) same(e *extras, path string, roots []string, home string) bool {
	if s.processPATH != e.processPATH || s.path != path || s.home != home || !slices.Equal(s.roots, roots) ||
		!slices.Equal(s.protected, e.protected) || !slices.Equal(s.pathDirs, e.pathDirs) {
		return false
	}
	age := time.Since(s.at)
	return age < extraTTL && age >= 0
}

func (p *Policy) extraDirs() *extraSnap {
	p.ready()
	e := &p.extra
	e.once.Do(func() {
		path := ""
		if e.processPATH {
			path = os.Getenv("PATH")
		}
		for i := range lastExtras {
			if s := lastExtras[i].Load(); s != nil && s.same(e, path, p.roots, p.home) {
				e.snap = s
				return
			}
		}
		now := time.Now()
		s := &extraSnap{at: now, protected: slices.Clone(e.protected), pathDirs: slices.Clone(e.pathDirs), processPATH: e.processPATH,
			path: path, roots: slices.Clone(p.roots), home: p.home}
		add := func(l []dirPair) {
			if len(l) > 0 {
				s.lists = append(s.lists, l)
			}
		}
		add(pairs(e.protected, now))
		if e.processPATH {
			add(pathExtras.get([2]string{path, ""}, now, func() []dirPair { return pairs(SplitPathList(path), now) }))
		} else {
			add(pairs(e.pathDirs, now))
		}
		for _, root := range p.roots {
			add(repoHooks.get([2]string{root, p.home}, now, func() []dirPair { return pairs(hooksDirs(root, p.home), now) }))
		}
		for _, l := range s.lists {
			for _, d := range l {
				for _, f := range [2]string{firstComponent(d.clean), firstComponent(d.real)} {
					if f == "" || len(s.firsts) >= 16 {
						s.all = true
					} else if !slices.Contains(s.firsts, f) {
						s.firsts = append(s.firsts, f)
					}
				}
			}
		}
		e.snap = s
		lastExtras[nextExtra.Add(1)%uint32(len(lastExtras))].Store(s)
	})
	return e.snap
}

// inExtra reports whether the absolute path, as written or where it leads
// (real), is one of the extra protected directories or below one.
func (p *Policy) inExtra(given, real string) bool {
	s := p.extraDirs()
	if len(s.lists) == 0 {
		return false
	}
	// Most paths share no first component with any of the directories
	// (a project in /srv or /tmp, $PATH in /usr and /bin): no need to
	// compare them with each.
	if !s.all && !slices.Contains(s.firsts, firstComponent(real)) && !slices.Contains(s.firsts, firstComponent(given)) {
		return false
	}
	clean := given
	if !isClean(given) {
		clean = filepath.Clean(given)
	}
	for _, l := range s.lists {
		for _, d := range l {
			if Within(real, d.real) || Within(clean, d.clean) || d.clean != d.real && Within(real, d.clean) {
				return true
			}
		}
	}
	return false
}

// isClean reports an absolute path filepath.Clean leaves alone, in one
// pass: no empty, "." or ".." component and no trailing slash.
func isClean(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	if len(p) == 1 {
		return true
	}
	start := 1 // of the current component
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		switch c := p[start:i]; c {
		case "", ".", "..":
			return false
		}
		start = i + 1
	}
	return true
}

// Clean is filepath.Clean, without its work for an absolute path that is
// already clean (a working directory, the home directory: every decision
// cleans them).
func Clean(p string) string {
	if isClean(p) {
		return p
	}
	return filepath.Clean(p)
}

// ProtectedPaths returns the absolute directories (and files) the policy
// protects beyond names, each with everything below it, where they lead,
// sorted: Options.ProtectedPaths, the directories on $PATH
// (Options.PathDirs), and the directory core.hooksPath names in the
// configuration of the git repository each working directory is in (and
// in the user's global git configuration). The OS sandbox keeps them
// read-only.
func (p *Policy) ProtectedPaths() []string {
	var out []string
	for _, l := range p.extraDirs().lists {
		for _, d := range l {
			if !slices.Contains(out, d.real) {
				out = append(out, d.real)
			}
		}
	}
	slices.Sort(out)
	return out
}

// maxRepoDepth bounds how far above a working directory its repository's
// top is looked for.
const maxRepoDepth = 64

// hooksDirs returns the directories core.hooksPath names for the git
// repository the working directory root is in: in the repository's
// configuration (.git/config, or the common directory's config and
// config.worktree of a worktree or submodule whose .git is a file), and in
// the user's global configuration (~/.gitconfig,
// $XDG_CONFIG_HOME/git/config). A relative value is relative to the
// repository's top, as git runs hooks there; "~/" is home. A config that
// cannot be read is not there (git skips a missing one); a malformed one
// names no directory (git refuses to run with it, hooks included). Outside
// a repository, only the global values apply, relative to nothing: they
// are dropped.
func hooksDirs(root, home string) []string {
	top, gitdir := findRepo(root)
	var configs []string
	if gitdir != "" {
		common := gitdir
		if b, err := readSmall(filepath.Join(gitdir, "commondir")); err == nil {
			c := strings.TrimSpace(string(b))
			if c != "" {
				if !filepath.IsAbs(c) {
					c = filepath.Join(gitdir, c)
				}
				common = filepath.Clean(c)
			}
		}
		configs = append(configs, filepath.Join(common, "config"), filepath.Join(gitdir, "config.worktree"))
	}
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" || !filepath.IsAbs(xdg) {
			xdg = filepath.Join(home, ".config")
		}
		configs = append(configs, filepath.Join(xdg, "git", "config"))
	}
	var out []string
	for _, c := range configs {
		b, err := readSmall(c)
		if err != nil {
			continue
		}
		vals, err := gitConfigValues(b, "core", "hookspath")
		if err != nil {
			continue
		}
		for _, v := range vals {
			switch {
			case v == "":
				continue
			case v == "~" || strings.HasPrefix(v, "~/"):
				if home == "" {
					continue
				}
				v = home + v[1:]
			case !filepath.IsAbs(v):
				if top == "" {
					continue
				}
				v = filepath.Join(top, v)
			}
			if v = filepath.Clean(v); !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// findRepo returns the top of the git repository dir is in and its git
// directory ("" for both outside one): the nearest ancestor with a .git
// directory, or a .git file saying "gitdir: <path>".
func findRepo(dir string) (top, gitdir string) {
	d := filepath.Clean(dir)
	for n := 0; n < maxRepoDepth; n++ {
		g := filepath.Join(d, ".git")
		if fi, err := os.Lstat(g); err == nil {
			switch {
			case fi.IsDir():
				return d, g
			case fi.Mode().IsRegular():
				b, err := readSmall(g)
				if err != nil {
					return d, ""
				}
				line, _, _ := strings.Cut(string(b), "\n")
				v, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
				if !ok {
					return d, ""
				}
				v = strings.TrimSpace(v)
				if v == "" {
					return d, ""
				}
				if !filepath.IsAbs(v) {
					v = filepath.Join(d, v)
				}
				return d, filepath.Clean(v)
			case fi.Mode()&os.ModeSymlink != 0:
				if fi, err := os.Stat(g); err == nil && fi.IsDir() {
					return d, g
				}
			}
		}
		if d == "/" {
			break
		}
		d = filepath.Dir(d)
	}
	return "", ""
}

// readSmall reads at most maxGitConfig bytes of a regular file.
func readSmall(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	var buf bytes.Buffer
	_, err = io.Copy(&buf, io.LimitReader(f, maxGitConfig))
	return buf.Bytes(), err
}

// inVenv reports a resolved path in a virtual environment's bin/ or
// lib/<python>/site-packages/ (or lib/site-packages): a directory holding
// pyvenv.cfg. Its programs run by name once it is activated, and its .pth
// files and packages load at every interpreter start.
func (p *Policy) inVenv(real string) bool {
	if !strings.Contains(real, "/bin") && !strings.Contains(real, "site-packages") {
		return false
	}
	comps := strings.Split(real, "/")
	for i := 1; i < len(comps); i++ {
		var env int
		switch {
		case comps[i] == "bin" && i > 1:
			env = i
		case comps[i] == "site-packages" && i >= 3 && (comps[i-2] == "lib" || comps[i-2] == "lib64"):
			env = i - 2
		case comps[i] == "site-packages" && i >= 2 && (comps[i-1] == "lib" || comps[i-1] == "Lib"):
			env = i - 1
		default:
			continue
		}
		cfg := strings.Join(comps[:env], "/") + "/pyvenv.cfg"
		if mode, err := p.cache.lstat(cfg); err == nil && (mode.IsRegular() || mode&os.ModeSymlink != 0) {
			return true
		}
	}
	return false
}
