package pathpolicy

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/toolscope/toolscope/internal/dirsnap"
)

// errNotDirSys is what Lstat reports when a parent is not a directory.
var errNotDirSys error = syscall.ENOTDIR

// Limits of [Resolve]. A longer path, or one that needs more work, is an
// error: callers fail closed (never allow what they cannot resolve).
const (
	// MaxPathLen is the longest path accepted, in bytes: Linux's PATH_MAX
	// less the terminating NUL, the longest path the kernel accepts.
	MaxPathLen = 4095
	// MaxLinks is how many symbolic links one resolution may follow (the
	// kernel's ELOOP limit).
	MaxLinks = 40
	// maxSteps bounds the components processed, links' targets included.
	maxSteps = 4 * MaxPathLen
)

// Errors of [Resolve].
var (
	ErrTooLong  = errors.New("path too long")
	ErrLoop     = errors.New("too many levels of symbolic links")
	ErrNotDir   = errors.New("not a directory")
	ErrRelative = errors.New("path is not absolute")
)

// Resolved is where a path leads.
type Resolved struct {
	// Path is the physical path: absolute, clean, without symbolic links.
	// Components that do not exist are kept as written (with "." and ".."
	// applied textually), as the directories a command would create.
	Path string
	// Exists reports that the whole path exists.
	Exists bool
	// Missing is the first component (as a resolved path) that does not
	// exist, "" when the whole path exists: everything from it on is
	// textual.
	Missing string
	// Proc reports a path through a /proc magic link (a process's cwd, root,
	// exe, or an entry of its fd/ or map_files/ directory): it leads wherever
	// that process's file is, which cannot be known statically. Path then
	// holds the rest of the path textually below the magic link.
	Proc bool
}

// Resolve returns where the absolute path p leads once every symbolic link
// is followed component by component, as the kernel does. Unlike
// filepath.Clean followed by filepath.EvalSymlinks, a ".." after a link goes
// to the parent of the link's target: with a/root -> ../.., the path
// a/root/../x is two levels above a, not a/x.
//
// It fails with [ErrTooLong] beyond [MaxPathLen], [ErrLoop] after
// [MaxLinks] links, [ErrNotDir] when a component other than the last is not
// a directory (the kernel's ENOTDIR), and with the error of a component it
// cannot inspect (permission denied). Its cost is linear in the length of
// the path and of the links it follows.
func Resolve(p string) (Resolved, error) { return resolve(p, nil) }

// fsys is what resolve asks of the filesystem; a *lstatCache or nil (the
// real filesystem, uncached).
func resolve(p string, fsc *lstatCache) (Resolved, error) {
	if !filepath.IsAbs(p) {
		return Resolved{}, fmt.Errorf("resolve %q: %w", p, ErrRelative)
	}
	if len(p) > MaxPathLen {
		return Resolved{}, fmt.Errorf("resolve a path of %d bytes: %w", len(p), ErrTooLong)
	}
	// rest holds the components still to walk, last first, so that a link's
	// target is pushed in front of them cheaply; cur is the resolved prefix,
	// grown in place so that a long path costs linear time.
	var curBuf [256]byte
	var stack [16]string
	cur := append(curBuf[:0], '/')
	start := p
	if t := fsc.trustedPrefix(p); t == p {
		// A physical directory itself (a working directory).
		return Resolved{Path: p, Exists: true}, nil
	} else if t != "" {
		// A physical directory: start there.
		cur = append(cur[:0], t...)
		start = p[len(t):]
		if start == "" {
			start = "."
		}
	}
	rest := pushComponents(stack[:0], start)
	missing := false
	links, steps := 0, 0
	res := Resolved{}
	for len(rest) > 0 {
		c := rest[len(rest)-1]
		rest = rest[:len(rest)-1]
		if steps++; steps > maxSteps {
			return Resolved{}, fmt.Errorf("resolve %q: %w", p, ErrTooLong)
		}
		switch c {
		case "", ".":
			continue
		case "..":
			cur = parentOf(cur)
			continue
		}
		n := len(cur)
		if n > 1 {
			cur = append(cur, '/')
		}
		cur = append(cur, c...)
		if len(cur) > MaxPathLen {
			return Resolved{}, fmt.Errorf("resolve %q: %w", p, ErrTooLong)
		}
		if missing {
			continue
		}
		if bytes.HasPrefix(cur[:n], procPrefix) && procMagic(string(cur[:n]), c) {
			res.Proc = true
			missing = true // the rest is textual
			continue
		}
		mode, err, next := fsc.lstatBytes(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = true
			res.Missing = next
			continue
		case errors.Is(err, errNotDirSys):
			return Resolved{}, fmt.Errorf("resolve %q: %w", p, ErrNotDir)
		case err != nil:
			return Resolved{}, fmt.Errorf("resolve %q: %w", p, err)
		}
		if mode&fs.ModeSymlink != 0 {
			if links++; links > MaxLinks {
				return Resolved{}, fmt.Errorf("resolve %q: %w", p, ErrLoop)
			}
			target, err := fsc.readlink(next)
			if err != nil {
				return Resolved{}, fmt.Errorf("resolve %q: %w", p, err)
			}
			if len(target)+len(rest) > maxSteps {
				return Resolved{}, fmt.Errorf("resolve %q: %w", p, ErrTooLong)
			}
			cur = cur[:n] // the link itself is not part of the path
			if filepath.IsAbs(target) {
				cur = cur[:1]
			}
			rest = pushComponents(rest, target)
			continue
		}
		if !mode.IsDir() && hasMore(rest) {
			return Resolved{}, fmt.Errorf("resolve %q: %w", p, ErrNotDir)
		}
	}
	res.Path = string(cur)
	res.Exists = !missing && !res.Proc
	return res, nil
}

var procPrefix = []byte("/proc/")

// parentOf cuts the last component off an absolute path ("/" stays "/").
func parentOf(p []byte) []byte {
	i := len(p) - 1
	for i > 0 && p[i] != '/' {
		i--
	}
	if i == 0 {
		return p[:1]
	}
	return p[:i]
}

// pushComponents pushes the components of p onto stack so that the first
// component of p is popped first.
func pushComponents(stack []string, p string) []string {
	stack = slices.Grow(stack, strings.Count(p, "/")+1)
	end := len(p)
	if end > 1 && p[end-1] == '/' {
		// A trailing slash requires a directory: keep it as a marker.
		stack = append(stack, ".")
		end--
	}
	for i := end - 1; i >= -1; i-- {
		if i < 0 || p[i] == '/' {
			stack = append(stack, p[i+1:end])
			end = i
		}
	}
	return stack
}

// hasMore reports whether the remaining components name anything beyond
// the current one ("." and ".." count: file/.. fails with ENOTDIR).
func hasMore(rest []string) bool {
	for _, c := range rest {
		if c != "" {
			return true
		}
	}
	return false
}

func join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// procMagic reports whether dir/name is a /proc magic link: a process's
// cwd, root or exe, or an entry of its fd/ or map_files/ directory.
func procMagic(dir, name string) bool {
	if !strings.HasPrefix(dir, "/proc/") {
		return false
	}
	comps := strings.Split(dir[len("/proc/"):], "/")
	// /proc/<pid>[/task/<tid>]
	proc := func(cs []string) (rest []string, ok bool) {
		if len(cs) == 0 || !isPidLike(cs[0]) {
			return nil, false
		}
		cs = cs[1:]
		if len(cs) >= 2 && cs[0] == "task" && isPidLike(cs[1]) {
			cs = cs[2:]
		}
		return cs, true
	}
	r, ok := proc(comps)
	if !ok {
		return false
	}
	switch len(r) {
	case 0:
		return name == "cwd" || name == "root" || name == "exe"
	case 1:
		return r[0] == "fd" || r[0] == "map_files"
	}
	return false
}

func isPidLike(s string) bool {
	if s == "self" || s == "thread-self" {
		return true
	}
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

// lstatCache remembers what one policy learned of the filesystem, so that
// the many paths of one command cost one lstat per distinct prefix. A nil
// cache asks the filesystem every time.
type lstatCache struct {
	mu      sync.Mutex
	few     []lstatEntry           // the first entries: a command names few paths
	stats   map[string]lstatResult // the rest
	trusted []string               // physical directories (see seedDirs)

	// Directory listings known to be current (read, or validated by a
	// stat, during this policy's life): an entry found in one needs no
	// lstat. want names working directories whose listing is worth
	// reading at the first lstat below them.
	lists []namedListing
	want  []string

	trustedBuf [2]string       // room for the usual trusted directories
	listsBuf   [4]namedListing // and listings
	wantBuf    [2]string       // and wanted listings
}

type namedListing struct {
	dir string
	l   *dirsnap.Listing
}

// listing returns the current listing of dir, if one is known. Must be
// called with mu held.
func (c *lstatCache) listing(dir string) (*dirsnap.Listing, bool) {
	for i := range c.lists {
		if c.lists[i].dir == dir {
			return c.lists[i].l, true
		}
	}
	return nil, false
}

// addListing records a current listing of dir.
func (c *lstatCache) addListing(dir string, l *dirsnap.Listing) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keepListing(dir, l)
}

// keepListing is addListing with mu held.
func (c *lstatCache) keepListing(dir string, l *dirsnap.Listing) {
	if _, ok := c.listing(dir); !ok && len(c.lists) < maxListings {
		if c.lists == nil {
			c.lists = c.listsBuf[:0]
		}
		c.lists = append(c.lists, namedListing{dir, l})
	}
}

// maxListings bounds the listings a policy consults (a tree walk lists
// many directories; later lstats look up only a few).
const maxListings = 64

// wantListing marks dir (a working directory) as one whose listing is to
// be read at the first lstat of an entry in it.
func (c *lstatCache) wantListing(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.want == nil {
		c.want = c.wantBuf[:0]
	}
	c.want = append(c.want, dir)
}

// rootListLimit bounds the working directories whose listing is read to
// answer lstats: a huge one is asked entry by entry.
const rootListLimit = 1024

// fromListing answers an lstat of p from a current listing of its parent,
// reading the parent if it is a working directory marked by wantListing.
// A name missing from the listing is answered (ENOENT) only when the
// directory matches names exactly; otherwise it is asked of the file
// system (a case-folding directory finds it anyway). Must be called with
// mu held; it releases it while reading.
func (c *lstatCache) fromListing(p string) (fs.FileMode, error, bool) {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 || i == len(p)-1 {
		return 0, nil, false
	}
	dir, name := p[:i], p[i+1:]
	l, ok := c.listing(dir)
	if !ok {
		w := -1
		for j, d := range c.want {
			if d == dir {
				w = j
			}
		}
		if w < 0 {
			return 0, nil, false
		}
		c.want = append(c.want[:w], c.want[w+1:]...)
		c.mu.Unlock()
		l, err := dirsnap.Read(dir, rootListLimit)
		c.mu.Lock()
		if err != nil {
			return 0, nil, false
		}
		c.keepListing(dir, l)
		return typeFromListing(l, name)
	}
	return typeFromListing(l, name)
}

func typeFromListing(l *dirsnap.Listing, name string) (fs.FileMode, error, bool) {
	t, ok := l.Type(name)
	if !ok {
		// The kernel would refuse a name too long or holding a NUL
		// otherwise than with ENOENT: those are asked.
		if l.Exact && name != "." && name != ".." && len(name) <= 255 && strings.IndexByte(name, 0) < 0 {
			return 0, syscall.ENOENT, true
		}
		return 0, nil, false
	}
	switch {
	case t.IsDir():
		return fs.ModeDir, nil, true
	case t&fs.ModeSymlink != 0:
		return fs.ModeSymlink, nil, true
	case t.IsRegular():
		return 0, nil, true
	}
	return fs.ModeIrregular, nil, true
}

type lstatEntry struct {
	path string
	lstatResult
}

// get and put must be called with mu held.
func (c *lstatCache) get(p string) (lstatResult, bool) {
	for i := range c.few {
		if c.few[i].path == p {
			return c.few[i].lstatResult, true
		}
	}
	r, ok := c.stats[p]
	return r, ok
}

func (c *lstatCache) put(p string, r lstatResult) {
	for i := range c.few {
		if c.few[i].path == p {
			c.few[i].lstatResult = r
			return
		}
	}
	if _, ok := c.stats[p]; ok || len(c.few) >= maxFew {
		if c.stats == nil {
			c.stats = map[string]lstatResult{}
		}
		if ok || len(c.stats) < maxCached {
			c.stats[p] = r
		}
		return
	}
	if c.few == nil {
		c.few = make([]lstatEntry, 0, 2)
	}
	c.few = append(c.few, lstatEntry{p, r})
}

// maxFew is how many entries a cache keeps before it needs a map.
const maxFew = 6

type lstatResult struct {
	mode   fs.FileMode // the type bits only
	err    error
	target string
	terr   error
	linked bool
}

// lstat returns the type of p (fs.ModeDir, fs.ModeSymlink, 0 for a regular
// file, fs.ModeIrregular for the rest) without following a final link.
func (c *lstatCache) lstat(p string) (fs.FileMode, error) {
	if c == nil {
		return lstatType(p)
	}
	c.mu.Lock()
	r, ok := c.get(p)
	// A trusted directory is physical: "dir/." is dir itself.
	trusted := !ok && (c.trustedDir(p) || strings.HasSuffix(p, "/.") && c.trustedDir(p[:len(p)-2]))
	c.mu.Unlock()
	if ok {
		return r.mode, r.err
	}
	if trusted {
		return fs.ModeDir, nil
	}
	c.mu.Lock()
	mode, lerr, found := c.fromListing(p)
	c.mu.Unlock()
	if found {
		return mode, lerr
	}
	mode, st, err := lstatStamp(p)
	c.mu.Lock()
	c.put(p, lstatResult{mode: mode, err: err})
	if err == nil && mode.IsDir() {
		// The lstat of a directory is the stat that validates a listing
		// remembered across policies: its entries need no lstat of their own.
		if l, ok := dirsnap.Cached(p, st); ok {
			c.keepListing(p, l)
		}
	}
	c.mu.Unlock()
	return mode, err
}

// lstatBytes is lstat of the path in b, which it turns into a string only
// when it must ask the file system; it returns that string (or one equal
// to b).
func (c *lstatCache) lstatBytes(b []byte) (fs.FileMode, error, string) {
	if c == nil {
		p := string(b)
		m, err := lstatType(p)
		return m, err, p
	}
	c.mu.Lock()
	for i := range c.few {
		if c.few[i].path == string(b) {
			r := c.few[i]
			c.mu.Unlock()
			return r.mode, r.err, r.path
		}
	}
	if r, ok := c.stats[string(b)]; ok {
		c.mu.Unlock()
		return r.mode, r.err, string(b)
	}
	c.mu.Unlock()
	p := string(b)
	m, err := c.lstat(p)
	return m, err, p
}

func (c *lstatCache) readlink(p string) (string, error) {
	if c == nil {
		return os.Readlink(p)
	}
	c.mu.Lock()
	r, ok := c.get(p)
	c.mu.Unlock()
	if ok && r.linked {
		return r.target, r.terr
	}
	t, err := os.Readlink(p)
	c.mu.Lock()
	if ok {
		r.target, r.terr, r.linked = t, err, true
		c.put(p, r)
	}
	c.mu.Unlock()
	return t, err
}

// maxCached bounds a policy's cache.
const maxCached = 4096

// seedDirs records that real is a physical directory (no link on the way),
// so that every prefix of it is a directory that is no link: resolutions of
// paths below it start there without asking the filesystem.
func (c *lstatCache) seedDirs(real string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.trusted {
		if t == real {
			return
		}
	}
	if c.trusted == nil {
		c.trusted = c.trustedBuf[:0]
	}
	c.trusted = append(c.trusted, real)
}

// trustedPrefix returns the longest trusted directory that is p or above it.
func (c *lstatCache) trustedPrefix(p string) string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	best := ""
	for _, t := range c.trusted {
		if len(t) > len(best) && (p == t || strings.HasPrefix(p, t) && p[len(t)] == '/') {
			best = t
		}
	}
	return best
}

// trustedDir reports whether p is a trusted directory or one above it.
func (c *lstatCache) trustedDir(p string) bool {
	for _, t := range c.trusted {
		if p == t || strings.HasPrefix(t, p) && (p == "/" || t[len(p)] == '/') {
			return true
		}
	}
	return false
}
