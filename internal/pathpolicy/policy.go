package pathpolicy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolscope/toolscope/internal/bashglob"
	"github.com/toolscope/toolscope/internal/dirsnap"
)

// Options configures a [Policy]. The zero value (or nil) has no working
// directory, the process's home directory and the default protected names.
type Options struct {
	// WorkingDirs are the absolute directories the agent works in (the
	// project root and additional directories). They are resolved once, when
	// the policy is made.
	WorkingDirs []string
	// Home is the home directory; "" means os.UserHomeDir().
	Home string
	// ProtectedFiles are file names, or path suffixes when they contain a
	// slash, that no tool may write without asking. nil means
	// [DefaultProtectedFiles]; an empty non-nil slice means none.
	ProtectedFiles []string
	// ProtectedDirs are directory names (or suffixes such as
	// ".github/workflows") no tool may write into without asking. nil
	// means [DefaultProtectedDirs].
	ProtectedDirs []string
	// ProtectedPaths are absolute paths protected with everything below
	// them, wherever they are (toolscope's own state, configuration and
	// run files). Relative entries are ignored.
	ProtectedPaths []string
	// PathDirs are the directories on the command search path: writing
	// a file in one writes a program the next command may run by name, so
	// each is protected with everything below it. nil means the absolute
	// entries of the process's $PATH; relative entries are ignored.
	PathDirs []string
}

// Policy answers what a path is. It is safe for concurrent use. It remembers
// what it learned of the filesystem (which components are links, and where
// they lead), so make one per decision: a long-lived Policy would answer
// from a stale picture.
type Policy struct {
	cache lstatCache
	names *names // the protected names, prepared
	home  string
	roots []string // resolved working directories, once ready
	extra extras   // the protected directories beyond names

	// The working directories are resolved at the first question that
	// needs them (a command refused before any path is judged costs no
	// look at the file system).
	rootsMu    sync.Mutex
	rootsReady atomic.Bool
	pending    []string

	globMu sync.Mutex
	globs  bashglob.DirCache // the directories globs have listed

	pendingBuf, rootsBuf [2]string // room for the usual one or two working directories
}

// New returns the policy for o.
func New(o *Options) *Policy {
	p := new(Policy)
	Init(p, o)
	return p
}

// Init makes the zero Policy *p the policy for o (as New does), for a
// caller that keeps the Policy inside a value of its own (one allocation
// for both). p must not have been used.
func Init(p *Policy, o *Options) {
	if o == nil {
		o = &Options{}
	}
	p.home = o.Home
	p.pending, p.roots = p.pendingBuf[:0], p.rootsBuf[:0]
	if p.home == "" {
		p.home, _ = os.UserHomeDir()
	}
	if p.home != "" {
		p.home = Clean(p.home)
	}
	for _, d := range o.WorkingDirs {
		if d != "" && filepath.IsAbs(d) {
			p.pending = append(p.pending, d)
		}
	}
	if len(p.pending) == 0 {
		p.rootsReady.Store(true)
	}
	p.globs.Lister = (*policyLister)(p)
	files, dirs := o.ProtectedFiles, o.ProtectedDirs
	if sameSlice(files, DefaultProtectedFiles) {
		files = nil
	}
	if sameSlice(dirs, DefaultProtectedDirs) {
		dirs = nil
	}
	if files == nil && dirs == nil {
		p.names = defaultNames
	} else {
		var globs []string
		if files == nil {
			files, globs = DefaultProtectedFiles, defaultGlobs()
		}
		if dirs == nil {
			dirs = DefaultProtectedDirs
		}
		p.names = prepare(files, dirs, globs)
	}
	p.extra.protected, p.extra.pathDirs, p.extra.processPATH = o.ProtectedPaths, o.PathDirs, o.PathDirs == nil
}

// sameSlice reports whether a is b itself (the defaults passed on by a
// caller that resolved its own nil).
func sameSlice(a, b []string) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}

// policyLister lists directories for the policy's globs.
type policyLister Policy

// ReadDir lists a directory through the process-wide cache of listings,
// and lets the policy's resolutions answer from it.
func (pl *policyLister) ReadDir(dir string, limit int) ([]string, []fs.FileMode, error) {
	p := (*Policy)(pl)
	// "d/" and "d/." are d (not a textual clean: "link/.." is not).
	for {
		if len(dir) > 1 && strings.HasSuffix(dir, "/") {
			dir = dir[:len(dir)-1]
		} else if len(dir) > 2 && strings.HasSuffix(dir, "/.") {
			dir = dir[:len(dir)-2]
		} else {
			break
		}
	}
	l, err := p.readDir(dir, limit)
	if err != nil {
		if errors.Is(err, dirsnap.ErrTooMany) {
			return nil, nil, fmt.Errorf("%w (%w)", bashglob.ErrTooManyEntries, err)
		}
		return nil, nil, err
	}
	return l.Names, l.Types, nil
}

// readDir lists dir (following links, as opening it does) through the
// listings the policy already holds, else through package dirsnap, and
// keeps the listing for the policy's later lstats. A policy is one
// snapshot of the file system: a listing read or validated earlier in its
// life (the working directory's, validated by the stat that resolved it)
// is not asked for again. A directory with more than limit entries
// (limit > 0) fails with dirsnap.ErrTooMany.
func (p *Policy) readDir(dir string, limit int) (*dirsnap.Listing, error) {
	p.cache.mu.Lock()
	l, ok := p.cache.listing(dir)
	p.cache.mu.Unlock()
	if ok {
		if limit > 0 && len(l.Names) > limit {
			return nil, fmt.Errorf("%w: more than %d in %s", dirsnap.ErrTooMany, limit, dir)
		}
		return l, nil
	}
	l, err := dirsnap.Read(dir, limit)
	if err != nil {
		return nil, err
	}
	p.cache.addListing(dir, l)
	return l, nil
}

// ready resolves the working directories if that has not been done yet.
// Every method that looks at the file system or at the working
// directories calls it first.
func (p *Policy) ready() {
	if p.rootsReady.Load() {
		return
	}
	p.rootsMu.Lock()
	defer p.rootsMu.Unlock()
	if p.rootsReady.Load() {
		return
	}
	for _, d := range p.pending {
		if real, ok := p.resolveRoot(d); ok {
			p.roots = append(p.roots, real)
		}
	}
	p.pending = nil
	if p.home != "" {
		// Paths in the home directory are common (~/.bashrc, ~/.ssh):
		// its listing, once read, is validated by the lstat that
		// resolving such a path makes anyway (see lstatCache.lstat).
		p.cache.wantListing(p.home)
	}
	p.rootsReady.Store(true)
}

// defaultNames are the protected class's names, prepared once.
var defaultNames = prepare(DefaultProtectedFiles, DefaultProtectedDirs, defaultGlobs())

// Home returns the home directory the policy uses ("" if unknown).
func (p *Policy) Home() string { return p.home }

// WorkingDirs returns the resolved working directories.
func (p *Policy) WorkingDirs() []string {
	p.ready()
	return append([]string(nil), p.roots...)
}

// Path is what the policy knows of one path.
type Path struct {
	// Given is the absolute path as written (not cleaned).
	Given string
	// Resolved is where it leads ([Resolve]); Real is "" when Err is set.
	Resolved
	// Err is why it could not be resolved; callers must fail closed.
	Err error
	// Inside is the working directory that holds the resolved path, "" if
	// none.
	Inside string
	// Secret reports that reading the path could expose credentials, judged
	// on the path as written and on where it leads.
	Secret bool
	// Protected reports that writing the path would change a protected file
	// or directory (or a secret), judged on the path as written and on where
	// it leads.
	Protected bool
	// Harmless reports a system path anyone may read ([HarmlessReads]).
	Harmless bool
}

// ReadOK reports whether a read-only command may read the path without
// asking: it resolves, it is not secret, and it lies in a working directory
// or among the harmless system paths.
func (x Path) ReadOK() bool {
	return x.Err == nil && !x.Secret && (x.Inside != "" || x.Harmless)
}

// Classify judges the absolute path abs. It never fails: a path that cannot
// be resolved has Err set and is neither inside nor harmless.
func (p *Policy) Classify(abs string) Path {
	x := Path{Given: abs}
	if !filepath.IsAbs(abs) {
		x.Err = ErrRelative
		return x
	}
	if len(abs) > MaxPathLen {
		// No file has such a path; judge it the worst way, at once.
		x.Err, x.Secret, x.Protected = ErrTooLong, true, true
		return x
	}
	x.Secret, x.Protected = p.Spelling(abs)
	if dev := harmlessDevice(abs); dev {
		x.Harmless = true
		x.Resolved = Resolved{Path: filepath.Clean(abs), Exists: true}
		x.Protected = false
		return x
	}
	p.ready()
	r, err := resolve(abs, &p.cache)
	if err != nil {
		x.Err = err
		return x
	}
	x.Resolved = r
	if r.Path != abs {
		sec, prot := p.Spelling(r.Path)
		x.Secret = x.Secret || sec
		x.Protected = x.Protected || prot
	}
	if r.Proc {
		// A process's fd, cwd or root leads anywhere.
		x.Secret = true
	}
	x.Inside = p.inside(r.Path)
	// A virtual environment is looked for inside the working directories
	// only: outside them every write asks anyway, and the look costs an
	// lstat per candidate (/usr/bin/pyvenv.cfg, ...).
	x.Protected = x.Protected || x.Secret || p.inGitDir(r) || p.inExtra(abs, r.Path) || x.Inside != "" && p.inVenv(r.Path)
	x.Harmless = !r.Proc && p.harmless(r.Path)
	return x
}

// inside returns the working directory holding the resolved path p.
func (p *Policy) inside(real string) string {
	for _, r := range p.roots {
		if Within(real, r) {
			return r
		}
	}
	return ""
}

// Within reports whether path is dir or below it, comparing whole
// components (so /srv/proj2 is not within /srv/proj).
func Within(path, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir) && len(path) > len(dir) && path[len(dir)] == '/'
}

func (p *Policy) harmless(real string) bool {
	if !harmlessFirst[firstComponent(real)] {
		return harmlessDevice(real)
	}
	for _, r := range harmlessRoots {
		if Within(real, r) {
			return true
		}
	}
	return harmlessDevice(real)
}

// harmlessDevice reports the device files of [HarmlessReads], judged on the
// path as written: /dev/stdin leads to /proc/self/fd/0, which is the
// command's own input.
func harmlessDevice(p string) bool {
	if !strings.Contains(p, "/dev") {
		// Cleaning only drops components: a path that cleans to /dev/x
		// holds "/dev".
		return false
	}
	c := filepath.Clean(p)
	for _, d := range harmlessDevices {
		if c == d {
			return true
		}
	}
	if n, ok := strings.CutPrefix(c, "/dev/fd/"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		return true
	}
	return false
}

// protectedComps reports protected names in a path's lower-case components.
func (p *Policy) protectedComps(comps []string) bool { return p.names.protected(comps) }

// maxGitDirDepth bounds how many ancestors inGitDir examines.
const maxGitDirDepth = 64

// inGitDir reports whether the resolved path lies inside a directory that
// git would take for a repository of its own (a committed bare repository:
// HEAD, objects/ and refs/): writing its config or hooks makes later git
// commands run code. Only existing ancestors below a working directory are
// examined, the nearest maxGitDirDepth of them.
func (p *Policy) inGitDir(r Resolved) bool {
	if !gitInternal(r.Path) {
		return false
	}
	root := p.inside(r.Path)
	if root == "" {
		return false
	}
	d := filepath.Dir(r.Path)
	if r.Missing != "" {
		d = filepath.Dir(r.Missing)
	}
	for n := 0; n < maxGitDirDepth && Within(d, root); n, d = n+1, filepath.Dir(d) {
		if isGitDir(d) {
			return true
		}
		if d == root {
			break
		}
	}
	return false
}

// gitNames are the names of a git directory's entries whose change makes
// git run code or read elsewhere.
var gitNames = []string{"config", "config.worktree", "hooks", "info", "objects", "refs", "head", "packed-refs",
	"index", "commondir", "gitdir", "modules", "worktrees"}

// gitInternal reports a path with a component named like a git directory's
// entry: only such a path can change a committed repository's behaviour.
func gitInternal(path string) bool {
	for rest := path; rest != ""; {
		c := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			c, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if c == "" {
			continue
		}
		// EqualFold matches whatever lower-casing would, and more (the
		// Kelvin sign and the long s fold to k and s): never fewer names.
		for _, n := range gitNames {
			if len(c) >= len(n) && len(c) <= 3*len(n) && strings.EqualFold(c, n) {
				return true
			}
		}
	}
	return false
}

// isGitDir reports a directory with the layout git recognises as a
// repository directory.
func isGitDir(d string) bool {
	fi, err := os.Stat(filepath.Join(d, "HEAD"))
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// Secret reports whether reading the absolute path could expose credentials,
// judged on the path as written and on where it leads. A path that cannot be
// resolved is judged on its spelling alone.
func (p *Policy) Secret(abs string) bool { return p.Classify(abs).Secret }

// rootCache remembers where working directories lead, across policies:
// resolving one costs an lstat per component, and every decision needs
// them. An entry is used only while the directory still leads to the same
// inode (one stat); a stale entry can only name the same directory by an
// older path, which makes inside checks stricter, never looser.
var rootCache sync.Map // string -> rootEntry

type rootEntry struct {
	real     string
	dev, ino uint64
}

const maxRootCache = 256

var rootCacheSize atomic.Int64

// resolveRoot resolves a working directory, through rootCache, and seeds
// the policy's cache with the directories on the way (they are real
// directories: the path has no link left).
func (p *Policy) resolveRoot(d string) (string, bool) {
	if v, ok := rootCache.Load(d); ok {
		e := v.(rootEntry)
		if st, err := dirsnap.Stat(d); err == nil && st.Dev() == e.dev && st.Ino() == e.ino {
			p.cache.seedDirs(e.real)
			// The same stat says whether the root's remembered listing
			// still holds: the entries at the top of the project then
			// need no lstat.
			if l, ok := dirsnap.Cached(e.real, st); ok {
				p.cache.addListing(e.real, l)
			} else {
				p.cache.wantListing(e.real)
			}
			return e.real, true
		}
		rootCache.Delete(d)
		rootCacheSize.Add(-1)
	}
	r, err := resolve(d, &p.cache)
	if err != nil {
		return "", false
	}
	if r.Path == "/" && filepath.Clean(d) != "/" {
		// A working directory replaced by a link to / (mv proj x; ln -s /
		// proj) would put the whole file system inside: it is dropped.
		return "", false
	}
	if st, err := dirsnap.Stat(r.Path); err == nil && st.Dev() != 0 && rootCacheSize.Load() < maxRootCache {
		if _, loaded := rootCache.LoadOrStore(d, rootEntry{r.Path, st.Dev(), st.Ino()}); !loaded {
			rootCacheSize.Add(1)
		}
	}
	return r.Path, true
}

// Lstat returns the type of p (fs.ModeDir, fs.ModeSymlink, 0 for a regular
// file, fs.ModeIrregular for the rest), through the policy's cache: later
// resolutions through p do not ask again.
func (p *Policy) Lstat(path string) (fs.FileMode, error) {
	p.ready()
	return p.cache.lstat(path)
}

// IsDir reports whether the resolved path p is a directory.
func (p *Policy) IsDir(real string) bool {
	p.ready()
	mode, err := p.cache.lstat(real)
	return err == nil && mode.IsDir()
}

// Resolve is [Resolve] with what the policy learned of the filesystem.
func (p *Policy) Resolve(abs string) (Resolved, error) {
	p.ready()
	return resolve(abs, &p.cache)
}

// Spelling judges a path by its spelling alone, without looking at the
// filesystem: whether some component names a secret or a protected place.
// It is cheap, for words that may or may not be paths (option values,
// "HEAD:.env").
func (p *Policy) Spelling(path string) (secret, protected bool) {
	if !p.maybeSensitive(path) {
		return false, false
	}
	var buf [24]string
	comps := appendLower(buf[:0], path)
	secret = secretComps(comps)
	return secret, secret || p.protectedComps(comps)
}

// maybeSensitive is a quick test that rules out most paths without
// splitting them: every secret or protected name starts with a dot, or is
// one of a few others, or lies under a few system roots.
func (p *Policy) maybeSensitive(path string) bool {
	if hasDotName(path) {
		return true
	}
	if !isASCII(path) {
		// Lower-casing folds a few non-ASCII letters into ASCII ones (the
		// Kelvin sign into k).
		path = strings.ToLower(path)
	}
	return p.names.quick.scan(path)
}

// quickSecretNames are the parts of the secret names without a leading
// dot: _netrc, id_*, credentials.json, terraform.tfstate, master.key (in
// any case).
var quickSecretNames = []string{"id_", "_netrc", "credentials", "tfstate", "master.key", "serviceaccount", "service-account",
	"service_account"}

// quickScan is maybeSensitive's test of a path in one pass: whether it
// holds one of the names (lower case; ASCII letters in any case), or lies
// under /proc, /etc, /run or /var/run.
type quickScan struct {
	names   []string
	byFirst [256][]string // the names by their first byte
	// pairs has bit c1 of word c0 set when a name of two bytes or more
	// starts with c0 c1 (c0 < 128; both lower case): most positions of a
	// path start no name, and one look says so.
	pairs [128][4]uint64
	short [256]bool // a name of one byte starts with it
}

// newQuickScan is the quickScan of the protected names that do not start
// with a dot, and quickSecretNames.
func newQuickScan(odd []string) *quickScan {
	q := &quickScan{names: append(append([]string(nil), odd...), quickSecretNames...)}
	for _, n := range q.names {
		q.byFirst[n[0]] = append(q.byFirst[n[0]], n)
		if len(n) < 2 || n[0] >= 128 {
			q.short[n[0]] = true
		} else {
			q.pairs[n[0]][n[1]>>6] |= 1 << (n[1] & 63)
		}
	}
	return q
}

// mayStart reports whether a name may start at path[i], c its lower-case
// byte.
func (q *quickScan) mayStart(path string, i int, c byte) bool {
	if q.short[c] {
		return true
	}
	if c >= 128 || i+1 >= len(path) {
		return false
	}
	d := path[i+1]
	if 'A' <= d && d <= 'Z' {
		d += 'a' - 'A'
	}
	return q.pairs[c][d>>6]&(1<<(d&63)) != 0
}

func (q *quickScan) scan(path string) bool {
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c == '/' {
			r := path[i:]
			if strings.HasPrefix(r, "/proc") || strings.HasPrefix(r, "/etc/") || strings.HasPrefix(r, "/run/") {
				return true // /var/run/ too
			}
		}
		if c == '.' && secretSuffixAt(path, i) {
			return true
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if len(q.byFirst[c]) == 0 || !q.mayStart(path, i, c) {
			continue
		}
		for _, n := range q.byFirst[c] {
			if hasFoldASCIIAt(path, i, n) {
				return true
			}
		}
	}
	return false
}

// hasFoldASCIIAt reports whether s holds the lower-case ASCII name at i,
// in any case.
func hasFoldASCIIAt(s string, i int, name string) bool {
	if i+len(name) > len(s) {
		return false
	}
	for j := 0; j < len(name); j++ {
		c := s[i+j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[j] {
			return false
		}
	}
	return true
}

// hasDotName reports a component of path that starts with a dot and is
// neither "." nor "..": "proj/." and "a/../b" have none.
func hasDotName(path string) bool {
	for i := strings.IndexByte(path, '.'); i >= 0 && i < len(path); {
		if i == 0 || path[i-1] == '/' {
			j := i + 1
			if j < len(path) && path[j] == '.' {
				j++
			}
			if j < len(path) && path[j] != '/' {
				return true
			}
		}
		k := strings.IndexByte(path[i+1:], '.')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return false
}

// harmlessFirst holds the first components of harmlessRoots: a path whose
// first component is none of them is under none of them.
var harmlessFirst = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range harmlessRoots {
		m[firstComponent(r)] = true
	}
	return m
}()

// firstComponent returns the first component of an absolute path ("" for
// "/" or a relative path).
func firstComponent(p string) string {
	if len(p) < 2 || p[0] != '/' {
		return ""
	}
	p = p[1:]
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return p
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// secretSuffixAt reports whether the dot at path[i] starts one of
// secretSuffixes that ends its component ("server.key", not "a.keys/x").
func secretSuffixAt(path string, i int) bool {
	j := i + 1
	for j < len(path) && path[j] != '/' && j-i <= 10 {
		j++
	}
	if j < len(path) && path[j] != '/' {
		return false // longer than any suffix
	}
	for _, x := range secretSuffixes {
		if len(x) == j-i && hasFoldASCIIAt(path, i, x) {
			return true
		}
	}
	return false
}
