package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/toolscope/toolscope/internal/dirsnap"
	"github.com/toolscope/toolscope/internal/pathpolicy"
)

// maxTreeDirs bounds the directories one scan of a writable directory
// reads. The protected files and secrets below it are found at any depth
// up to that many directories; past it the scan stops, and the run
// reports [ProtectedPaths] missing, so a caller that runs commands
// without asking only when the sandbox [Status.Confines] them asks again.
var maxTreeDirs = 50_000

// treeCache remembers what the scans of the writable directories found in
// each directory, so the next scan reads again only the directories whose
// entries changed: it keeps what it made of a listing under the stamp
// package dirsnap gives it (the change time, which moves with every entry
// made, removed or renamed and which no process can set, on the file
// systems that keep one, once a second old). It lives in the Sandbox, in
// memory only: a cache a command could write would let it hide what it
// made.
type treeCache struct {
	mu    sync.Mutex
	roots map[string]map[string]*dirMemo // root → directory → memo
}

// dirMemo is what one directory held when it was read.
type dirMemo struct {
	ino     uint64           // the directory's identity, whether or not stamp is usable
	ctime   syscall.Timespec // ditto
	stamp   dirsnap.Stamp    // under which the rest stays right
	subdirs []string         // names of the directories to descend into
	// secret directories (hidden whole, so nothing in them is bound), to
	// descend into too: one the command makes is not hidden, and what it
	// holds (a repository in x.pem/, an .envrc in .azure/) is looked for.
	secretDirs []string
	found      []treeFind // its protected and secret entries
	failed     bool       // it could not be read
}

// treeFind is one protected or secret entry of a directory.
type treeFind struct {
	name   string
	id     fileID
	secret bool // hidden: masked, not bound read-only
	class  bool // a member of the protected class (a secret may be too: .env)
	bind   bool // a directory or a regular file, not secret: bound read-only
}

// fileID is a file's identity: the same path with another identity was
// made anew (a parent renamed away and the path made again). The ctime
// is part of it only for what is not bound (a link): a bound file cannot
// be removed, so its inode number cannot be another's, while its ctime
// changes whenever someone outside writes it.
type fileID struct {
	dev, ino uint64
	ctime    syscall.Timespec
}

// treeScan is what one scan of a writable directory found.
type treeScan struct {
	root     string
	prot     map[string]protFind // protected paths, the top's included
	dirs     map[string]*dirMemo // the directories visited (not changed after the scan)
	bind     []string            // the protected paths to bind read-only
	secrets  []string            // secret paths, to mask
	unread   []string            // directories that could not be read
	complete bool                // false: stopped at the bound
}

// protFind is a protected path's identity, and whether it is bound.
type protFind struct {
	id    fileID
	bound bool
}

// scan walks root at any depth, not following links and not descending
// into the members of the protected class (read-only whole) nor into
// node_modules (a package manager's tree, replaced whole by the next
// install; its .bin is protected when it is on $PATH), and returns the
// protected and secret paths below it; in a secret directory (hidden
// whole) it looks for members only. It reads only the directories that
// changed since the last scan of root.
//
// A link that leads into one of into (the sandbox's cache: written by
// commands without asking, and not scanned) counts as a member of the
// class: a directory linked there would bring its .envrc or .git into the
// project.
func (c *treeCache) scan(root string, max int, into ...string) *treeScan {
	c.mu.Lock()
	old := c.roots[root]
	c.mu.Unlock()
	policy := pathpolicy.New(&pathpolicy.Options{Home: "/nonexistent"})
	memos := make(map[string]*dirMemo, len(old))
	ts := &treeScan{root: root, prot: map[string]protFind{}, dirs: memos, complete: true}
	type item struct {
		dir    string
		secret bool // in a secret directory
	}
	stack := []item{{root, false}}
	for len(stack) > 0 {
		dir, inSecret := stack[len(stack)-1].dir, stack[len(stack)-1].secret
		stack = stack[:len(stack)-1]
		if len(memos) >= max {
			ts.complete = false
			break
		}
		var st syscall.Stat_t
		if syscall.Lstat(dir, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			continue
		}
		m := old[dir]
		if m == nil || m.stamp != dirsnap.StampOf(&st) {
			m = readDir(dir, root, &st, policy, into, inSecret)
		}
		memos[dir] = m
		if m.failed {
			ts.unread = append(ts.unread, dir)
		}
		for _, f := range m.found {
			p := filepath.Join(dir, f.name)
			if f.secret {
				ts.secrets = append(ts.secrets, p)
			}
			if f.class {
				ts.prot[p] = protFind{f.id, f.bind || f.secret}
			}
			if f.bind {
				ts.bind = append(ts.bind, p)
			}
		}
		for _, s := range m.subdirs {
			stack = append(stack, item{filepath.Join(dir, s), inSecret})
		}
		for _, s := range m.secretDirs {
			stack = append(stack, item{filepath.Join(dir, s), true})
		}
	}
	c.mu.Lock()
	if c.roots == nil {
		c.roots = map[string]map[string]*dirMemo{}
	}
	if ts.complete || len(memos) > len(c.roots[root]) {
		c.roots[root] = memos
	}
	c.mu.Unlock()
	return ts
}

// readDir reads one directory and sorts its entries. In a secret
// directory (inSecret) every name is secret by its path, and hidden with
// it: there only the members of the class are found, with the ctime in
// their identity, as nothing binds them.
func readDir(dir, root string, st *syscall.Stat_t, policy *pathpolicy.Policy, into []string, inSecret bool) *dirMemo {
	m := &dirMemo{ino: st.Ino, ctime: st.Ctim}
	l, stamp, err := dirsnap.ReadUncached(dir)
	if err != nil {
		m.failed = true // and read again next time
		return m
	}
	m.stamp = stamp
	for i, name := range l.Names {
		typ := l.Types[i]
		p := filepath.Join(dir, name)
		rel := strings.TrimPrefix(p[len(root):], "/")
		var secret, member bool
		if inSecret {
			_, member = pathpolicy.MemberOf(rel)
		} else if s, protected := policy.Spelling(rel); protected {
			// A secret may be a member too (.env); a protected name
			// that is no secret is one.
			secret, member = s, !s
			if s {
				_, member = pathpolicy.MemberOf(rel)
			}
		}
		link := typ&os.ModeSymlink != 0
		if !secret && !member {
			switch {
			case typ.IsDir() && name != "node_modules":
				m.subdirs = append(m.subdirs, name)
			case link && len(into) > 0 && linksInto(p, into):
				member = true
			}
			if !member {
				continue
			}
		}
		f := treeFind{name: name, secret: secret, class: member}
		var fs syscall.Stat_t
		if syscall.Lstat(p, &fs) == nil {
			t := fs.Mode & syscall.S_IFMT
			f.id = fileID{dev: uint64(fs.Dev), ino: fs.Ino}
			f.bind = !secret && !inSecret && (t == syscall.S_IFDIR || t == syscall.S_IFREG)
			if !f.bind && !secret {
				f.id.ctime = fs.Ctim
			}
		} else if !secret {
			continue // gone meanwhile
		}
		m.found = append(m.found, f)
		if secret && !member && typ.IsDir() && name != "node_modules" {
			m.secretDirs = append(m.secretDirs, name)
		}
	}
	return m
}

// linksInto reports whether the link p leads into one of dirs, by its
// text or once resolved.
func linksInto(p string, dirs []string) bool {
	t, err := os.Readlink(p)
	if err != nil {
		return false
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(p), t)
	}
	cands := []string{filepath.Clean(t)}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		cands = append(cands, r)
	}
	for _, c := range cands {
		for _, d := range dirs {
			if pathpolicy.Within(c, d) || pathpolicy.Within(d, c) {
				return true
			}
		}
	}
	return false
}
