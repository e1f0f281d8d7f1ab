package pathpolicy

import (
	"os"
	"path/filepath"
	"strings"
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
	// ProtectedDirs are directory names no tool may write into without
	// asking. nil means [DefaultProtectedDirs].
	ProtectedDirs []string
}

// Policy answers what a path is. It is safe for concurrent use. It remembers
// what it learned of the filesystem (which components are links, and where
// they lead), so make one per decision: a long-lived Policy would answer
// from a stale picture.
type Policy struct {
	cache     lstatCache
	home      string
	roots     []string // resolved working directories
	protFiles [][]string
	protDirs  []string
}

// New returns the policy for o.
func New(o *Options) *Policy {
	if o == nil {
		o = &Options{}
	}
	p := &Policy{home: o.Home}
	if p.home == "" {
		p.home, _ = os.UserHomeDir()
	}
	if p.home != "" {
		p.home = filepath.Clean(p.home)
	}
	for _, d := range o.WorkingDirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		r, err := resolve(d, &p.cache)
		if err != nil {
			continue
		}
		p.roots = append(p.roots, r.Path)
	}
	files := o.ProtectedFiles
	if files == nil {
		files = DefaultProtectedFiles
	}
	for _, f := range files {
		if c := splitLower(f); len(c) > 0 {
			p.protFiles = append(p.protFiles, c)
		}
	}
	dirs := o.ProtectedDirs
	if dirs == nil {
		dirs = DefaultProtectedDirs
	}
	for _, d := range dirs {
		p.protDirs = append(p.protDirs, strings.ToLower(d))
	}
	return p
}

// Home returns the home directory the policy uses ("" if unknown).
func (p *Policy) Home() string { return p.home }

// WorkingDirs returns the resolved working directories.
func (p *Policy) WorkingDirs() []string { return append([]string(nil), p.roots...) }

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
	given := splitLower(abs)
	x.Secret = secretComps(given)
	x.Protected = x.Secret || p.protectedComps(given)
	if dev := harmlessDevice(abs); dev {
		x.Harmless = true
		x.Resolved = Resolved{Path: filepath.Clean(abs), Exists: true}
		x.Protected = false
		return x
	}
	r, err := resolve(abs, &p.cache)
	if err != nil {
		x.Err = err
		return x
	}
	x.Resolved = r
	real := splitLower(r.Path)
	if !x.Secret && secretComps(real) {
		x.Secret = true
	}
	if r.Proc {
		// A process's fd, cwd or root leads anywhere.
		x.Secret = true
	}
	if !x.Protected && (x.Secret || p.protectedComps(real) || p.inGitDir(r)) {
		x.Protected = true
	}
	x.Inside = p.inside(r.Path)
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
func (p *Policy) protectedComps(comps []string) bool {
	if len(comps) == 0 {
		return false
	}
	for _, c := range comps {
		for _, d := range p.protDirs {
			if c == d {
				return true
			}
		}
	}
	last := comps[len(comps)-1]
	if last == ".env" || (strings.HasPrefix(last, ".env.") || strings.HasPrefix(last, ".env-")) && !isTemplate(last) {
		for _, f := range p.protFiles {
			if len(f) == 1 && f[0] == ".env" {
				return true
			}
		}
	}
	for _, f := range p.protFiles {
		if len(f) <= len(comps) && hasSeqAt(comps, len(comps)-len(f), f) {
			return true
		}
	}
	return false
}

// maxGitDirDepth bounds how many ancestors inGitDir examines.
const maxGitDirDepth = 64

// inGitDir reports whether the resolved path lies inside a directory that
// git would take for a repository of its own (a committed bare repository:
// HEAD, objects/ and refs/): writing its config or hooks makes later git
// commands run code. Only existing ancestors below a working directory are
// examined, the nearest maxGitDirDepth of them.
func (p *Policy) inGitDir(r Resolved) bool {
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

// IsDir reports whether the resolved path p is a directory.
func (p *Policy) IsDir(real string) bool {
	fi, err := p.cache.lstat(real)
	return err == nil && fi.IsDir()
}
