package pathpolicy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolscope/toolscope/internal/dirsnap"
)

// DefaultTreeEntries is how many directory entries [Policy.Tree] examines
// before it gives up and reports the tree as incomplete.
const DefaultTreeEntries = 20000

// TreeOptions says how a recursive reader walks a directory.
type TreeOptions struct {
	// Hidden: the reader enters hidden files and directories (grep -r does;
	// ripgrep only with --hidden).
	Hidden bool
	// Follow: the reader follows symbolic links met inside the tree (grep -R,
	// rg -L, cp -L).
	Follow bool
	// MaxEntries bounds the walk; 0 means [DefaultTreeEntries].
	MaxEntries int
}

// TreeReport is what a recursive read of a directory would reach.
type TreeReport struct {
	// Secret is a secret path the read would reach, "" if none.
	Secret string
	// Outside is a path outside the working directories the read would
	// reach (the root itself, or the target of a followed link), "" if none.
	Outside string
	// Incomplete reports a tree too large (or unreadable) to check: callers
	// treat it as both secret and outside.
	Incomplete bool
}

// OK reports whether the recursive read needs no permission.
func (r TreeReport) OK() bool { return r.Secret == "" && r.Outside == "" && !r.Incomplete }

// skipDirs are not examined by [Policy.Tree]: they hold no credentials of
// the user's (git's object store, installed packages) and are large.
var skipDirs = map[string]bool{".git": true, "node_modules": true}

// Tree reports what a recursive read of the directory root (absolute) would
// reach: a secret, a path outside the working directories, or nothing of
// either. A root that holds a well-known secret location (the home
// directory holds ~/.ssh, / holds /proc and /etc/shadow) is secret without a
// walk; a root inside a working directory is walked (bounded, skipping .git
// and node_modules) for secret names such as .env or id_rsa, and for links
// that lead out of the working directories.
func (p *Policy) Tree(root string, o *TreeOptions) TreeReport {
	if o == nil {
		o = &TreeOptions{}
	}
	x := p.Classify(root)
	if x.Err != nil {
		return TreeReport{Incomplete: true}
	}
	if x.Secret {
		return TreeReport{Secret: root}
	}
	real := x.Resolved.Path
	if s := p.holdsSecretLocation(real); s != "" {
		return TreeReport{Secret: s}
	}
	if x.Inside == "" {
		if x.Harmless {
			return TreeReport{}
		}
		return TreeReport{Outside: root}
	}
	if !x.Exists {
		return TreeReport{}
	}
	limit := o.MaxEntries
	if limit <= 0 {
		limit = DefaultTreeEntries
	}
	w := &treeWalk{p: p, o: o, left: limit, seen: map[string]bool{}}
	w.walk(real)
	return w.rep
}

// HoldsSecret reports whether dir is or holds a well-known secret location
// (the home directory holds ~/.ssh, / holds /etc/shadow): a rule that
// grants a whole tree must not be proposed for it.
func (p *Policy) HoldsSecret(dir string) bool { return p.holdsSecretLocation(dir) != "" }

// holdsSecretLocation returns a well-known secret location at or below dir.
func (p *Policy) holdsSecretLocation(dir string) string {
	if p.home != "" {
		if Within(p.home, dir) {
			// dir is the home directory or above it: it holds them all.
			return p.home + "/" + secretDirs[0]
		}
		if Within(dir, p.home) {
			rel := dir[len(p.home):]
			for _, d := range secretDirs {
				if Within("/"+d, rel) {
					return p.home + "/" + d
				}
			}
			for _, s := range secretSeqs {
				if l := "/" + strings.Join(s, "/"); Within(l, rel) {
					return p.home + l
				}
			}
			for _, f := range secretFiles {
				if Within("/"+f, rel) {
					return p.home + "/" + f
				}
			}
		}
	}
	for _, l := range secretRoots {
		if Within(l, dir) {
			return l
		}
	}
	for _, l := range []string{"/proc", "/etc/ssh"} {
		if Within(l, dir) {
			return l
		}
	}
	return ""
}

type treeWalk struct {
	p    *Policy
	o    *TreeOptions
	left int
	seen map[string]bool
	rep  TreeReport

	comps []string // scratch: an entry's lower-case components
}

func (w *treeWalk) done() bool { return w.rep.Secret != "" || w.rep.Outside != "" || w.rep.Incomplete }

func (w *treeWalk) walk(dir string) { w.walkIn(dir, false) }

// walkIn walks dir. linksOnly is set below the skipped directories
// (node_modules, .git) when links are followed: the names there are not
// the user's, but a link there leads wherever it leads (pnpm's links into
// a store outside the project, or one planted to reach the home).
func (w *treeWalk) walkIn(dir string, linksOnly bool) {
	// A directory walked in full needs no second walk; one walked for its
	// links only is walked again in full when the user's tree leads to it.
	key := dir
	if linksOnly {
		key = "\x00" + dir
	}
	if w.seen[dir] || w.seen[key] {
		return
	}
	w.seen[key] = true
	if w.left < 0 {
		w.rep.Incomplete = true
		return
	}
	l, err := w.p.readDir(dir, w.left+1)
	if err != nil {
		w.rep.Incomplete = true
		return
	}
	// An entry's components are the directory's and its own name (dir is
	// a clean path; a name holds no slash and is never . or ..).
	dirComps := appendLower(nil, dir)
	for i, name := range l.Names {
		if w.done() {
			return
		}
		if w.left--; w.left < 0 {
			w.rep.Incomplete = true
			return
		}
		typ := l.Types[i]
		lower := strings.ToLower(name)
		if !w.o.Hidden && strings.HasPrefix(name, ".") {
			continue
		}
		if !linksOnly {
			w.comps = append(append(w.comps[:0], dirComps...), lower)
			if secretName(lower) || isSecretDir(lower) || secretComps(w.comps) {
				w.rep.Secret = filepath.Join(dir, name)
				return
			}
		}
		if typ&(fs.ModeSymlink|fs.ModeDir) == 0 {
			continue
		}
		full := filepath.Join(dir, name)
		switch {
		case typ&fs.ModeSymlink != 0:
			if !w.o.Follow {
				continue
			}
			t := w.p.Classify(full)
			switch {
			case t.Err != nil:
				w.rep.Incomplete = true
			case t.Secret:
				w.rep.Secret = full
				if t.Inside == "" {
					w.rep.Outside = full
				}
			case t.Inside == "" && !t.Harmless:
				w.rep.Outside = full
				// A link to the home (or above it) reaches its secrets.
				if s := w.p.holdsSecretLocation(t.Resolved.Path); s != "" {
					w.rep.Secret = s
				}
			default:
				if fi, err := os.Stat(full); err == nil && fi.IsDir() && t.Inside != "" {
					if s := w.p.holdsSecretLocation(t.Resolved.Path); s != "" {
						w.rep.Secret = s
						return
					}
					w.walk(t.Resolved.Path)
				}
			}
		case typ.IsDir():
			switch {
			case linksOnly || skipDirs[lower] && w.o.Follow:
				w.walkIn(full, true)
			case skipDirs[lower]:
			default:
				w.walk(full)
			}
		}
	}
}

// ProtectedIn returns the first path below dir (relative to it) that a
// recursive copy or move of dir would carry to its destination and that is
// protected or secret there by name (.git, .bashrc, .env, .ssh, ...), or ""
// if none. Links are not followed (cp -r copies them as links). A tree too
// large to check returns a description saying so: callers treat it as
// protected.
func (p *Policy) ProtectedIn(dir string) string {
	left := DefaultTreeEntries
	var walk func(d, rel string) string
	walk = func(d, rel string) string {
		if left < 0 {
			return "(a tree too large to check)"
		}
		l, err := p.readDir(d, left+1)
		if errors.Is(err, dirsnap.ErrTooMany) {
			return "(a tree too large to check)"
		}
		if err != nil {
			return rel + " (unreadable)"
		}
		for i, name := range l.Names {
			if left--; left < 0 {
				return "(a tree too large to check)"
			}
			r := name
			if rel != "" {
				r = rel + "/" + name
			}
			comps := splitLower(r)
			if secretComps(comps) || p.protectedComps(comps) {
				return r
			}
			if l.Types[i].IsDir() {
				if bad := walk(filepath.Join(d, name), r); bad != "" {
					return bad
				}
			}
		}
		return ""
	}
	return walk(dir, "")
}
