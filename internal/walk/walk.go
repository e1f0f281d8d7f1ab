// Package walk lists the regular files below a directory in parallel, the way
// ripgrep chooses which files to search: it honours .gitignore, .ignore and
// .git/info/exclude files, skips hidden entries unless asked not to, always
// skips .git, and never follows a symbolic link out of the root.
//
//	for e, err := range walk.Files(ctx, root, &walk.Options{GitIgnore: true}) {
//		if err != nil {
//			continue // an unreadable directory; the walk goes on
//		}
//		fmt.Println(e.Rel)
//	}
//
// # Ignore rules
//
// Patterns follow git (see [Pattern]). As in ripgrep, .gitignore files and
// .git/info/exclude count only inside a git repository (a ".git" entry in the
// root or one of its ancestors), and .gitignore files above the repository
// root are not read; .ignore files count everywhere. Files in deeper
// directories take precedence over shallower ones, .ignore over .gitignore,
// and .gitignore over .git/info/exclude. A directory that is ignored is not
// entered, so nothing below it can be re-included.
package walk

import (
	"context"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Options configures [Files]. The zero value (and nil) walks everything that
// is not hidden and ignores no ignore files.
type Options struct {
	// GitIgnore honours .gitignore files (nested, with negation), .ignore
	// files and .git/info/exclude, like ripgrep.
	GitIgnore bool
	// Hidden includes dotfiles and dot-directories (ripgrep --hidden).
	// A directory named .git is always skipped.
	Hidden bool
	// Threads is the number of directories read at once; 0 means GOMAXPROCS.
	Threads int
	// Override, if set, is asked first about every entry below the root,
	// like ripgrep's --glob: [Ignore] skips it, [Include] takes it even when
	// it is hidden or ignored, and [None] leaves the decision to the other
	// rules. rel is slash-separated and relative to the root.
	Override func(rel string, isDir bool) Match
	// ModTime fills [Entry.ModTime] of every file yielded, in the walk's
	// threads, with the directory still open: cheaper than calling
	// [Entry.Info] on each afterwards.
	ModTime bool
	// NoPath leaves [Entry.Path] empty for the files below a directory
	// root, saving an allocation per file, for callers that need the
	// absolute path of few of them: it is the root, a separator, and Rel.
	NoPath bool
}

// Match is an [Options.Override] decision.
type Match int

const (
	None    Match = iota // no opinion
	Ignore               // skip the entry (and, for a directory, everything below it)
	Include              // take the entry regardless of hidden and ignore rules
)

// Entry is a regular file found by [Files].
type Entry struct {
	Path string // absolute path
	Rel  string // slash-separated path relative to the root; the base name when the root is a file
	// Target is set for a symbolic link: the absolute path of the regular
	// file it resolves to (every link on the way followed, so it lies inside
	// the root's real path). It is empty for a plain file and for a root
	// given as a file. A caller that filters by path must filter by Target
	// too, or a link would smuggle in the file it points to.
	Target string
	// ModTime is the file's modification time (its target's for a symbolic
	// link) with [Options.ModTime]; zero without it, or when the file
	// could not be statted.
	ModTime time.Time

	dir  string // the directory holding the file, when Path may be empty
	info fs.FileInfo
}

// Info returns the file's information: lstat for a plain file, stat of the
// target for a symbolic link to a file inside the root. It costs a system
// call the first time for most entries, so callers stat only what they keep.
func (e Entry) Info() (fs.FileInfo, error) {
	if e.info != nil {
		return e.info, nil
	}
	if e.Path == "" {
		return os.Lstat(e.dir + string(filepath.Separator) + e.Rel[strings.LastIndexByte(e.Rel, '/')+1:])
	}
	return os.Lstat(e.Path)
}

// Files yields every regular file under root; if root is a file, it yields
// root itself. It never follows a symbolic link to a directory, and yields a
// symbolic link to a file only if the target resolves inside root. Order is
// unspecified: directories are read in parallel. Errors reading a directory
// are yielded and the walk goes on; if ctx is cancelled the walk stops and
// yields ctx.Err(). Breaking out of the loop stops the walk promptly.
func Files(ctx context.Context, root string, opts *Options) iter.Seq2[Entry, error] {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
	return func(yield func(Entry, error) bool) {
		abs, err := filepath.Abs(root)
		if err != nil {
			yield(Entry{}, err)
			return
		}
		fi, err := os.Stat(abs)
		if err != nil {
			yield(Entry{}, err)
			return
		}
		if !fi.IsDir() {
			if fi.Mode().IsRegular() {
				e := Entry{Path: abs, Rel: filepath.Base(abs), info: fi}
				if o.ModTime {
					e.ModTime = fi.ModTime()
				}
				yield(e, nil)
			}
			return
		}
		realRoot, err := filepath.EvalSymlinks(abs)
		if err != nil {
			yield(Entry{}, err)
			return
		}
		w := &walker{opts: o, realRoot: realRoot}
		w.run(ctx, abs, yield)
	}
}

type walker struct {
	opts     Options
	realRoot string

	mu     sync.Mutex
	cond   *sync.Cond
	stack  []dirWork
	active int // directories being read
	done   bool
}

type dirWork struct {
	path, rel string
	ign       *dirIgnore
}

type batch struct {
	entries []Entry
	err     error
}

func (w *walker) run(parent context.Context, root string, yield func(Entry, error) bool) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	w.cond = sync.NewCond(&w.mu)
	stop := context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.done = true
		w.mu.Unlock()
		w.cond.Broadcast()
	})
	defer stop()

	var ign *dirIgnore
	if w.opts.GitIgnore {
		ign = ancestorIgnores(root)
	}
	w.stack = append(w.stack, dirWork{path: root, ign: ign})
	out := make(chan batch, 4*w.opts.Threads)
	var wg sync.WaitGroup
	for range w.opts.Threads {
		wg.Go(func() { w.work(ctx, out) })
	}
	go func() { wg.Wait(); close(out) }()

	for b := range out {
		if b.err != nil {
			if !yield(Entry{}, b.err) {
				break
			}
			continue
		}
		for _, e := range b.entries {
			if !yield(e, nil) {
				cancel()
				for range out { // let the workers finish
				}
				return
			}
		}
	}
	if err := parent.Err(); err != nil {
		yield(Entry{}, err)
	}
}

// scratch is a worker's reusable memory for reading directories.
type scratch struct {
	buf  []byte   // the raw listing (Linux)
	ents []rawEnt // the entries of the directory being read
}

// rawEnt is a directory entry as listed: its name (which may point into
// scratch.buf, valid until the next directory is read) and its type bits,
// or modeUnknown.
type rawEnt struct {
	name string
	typ  fs.FileMode
}

// modeUnknown marks an entry whose type the listing did not give.
const modeUnknown = fs.ModeTemporary

func (w *walker) work(ctx context.Context, out chan<- batch) {
	sc := &scratch{}
	for {
		w.mu.Lock()
		for len(w.stack) == 0 && w.active > 0 && !w.done {
			w.cond.Wait()
		}
		if w.done || len(w.stack) == 0 {
			w.done = true
			w.mu.Unlock()
			w.cond.Broadcast()
			return
		}
		d := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.active++
		w.mu.Unlock()

		b := w.readDir(d, sc)
		w.mu.Lock()
		w.active--
		if len(w.stack) == 0 && w.active == 0 {
			w.done = true
		}
		w.mu.Unlock()
		w.cond.Broadcast()
		if len(b.entries) > 0 || b.err != nil {
			select {
			case out <- b:
			case <-ctx.Done():
				return
			}
		}
	}
}

// readDir lists one directory, queues its subdirectories and returns its
// files. Names are copied out of the listing once, as the entry's Rel (the
// name is then the end of it), and only for entries that are kept.
func (w *walker) readDir(d dirWork, sc *scratch) batch {
	h, err := readNames(d.path, sc)
	defer h.close()
	if err != nil && len(sc.ents) == 0 {
		return batch{err: err}
	}
	ign := d.ign
	if w.opts.GitIgnore {
		ign = newDirIgnore(d.path, d.rel, sc.ents, ign)
	}
	var files []Entry
	var subdirs []dirWork
	for i := range sc.ents {
		de := &sc.ents[i]
		name := de.name
		if name == ".git" {
			continue
		}
		typ := de.typ
		if typ == modeUnknown {
			typ = h.typeOf(d.path, de)
		}
		isDir := typ.IsDir()
		if !isDir && !typ.IsRegular() && typ&fs.ModeSymlink == 0 {
			continue // devices, sockets, pipes
		}
		var rel string
		if d.rel != "" {
			rel = d.rel + "/" + name
		} else {
			rel = strings.Clone(name)
		}
		name = rel[len(rel)-len(name):] // no longer in the listing's buffer
		m := None
		if w.opts.Override != nil {
			m = w.opts.Override(rel, isDir)
		}
		if m == Ignore {
			continue
		}
		if m != Include {
			if !w.opts.Hidden && name[0] == '.' {
				continue
			}
			if ign.ignored(rel, isDir) {
				continue
			}
		}
		switch {
		case isDir:
			subdirs = append(subdirs, dirWork{path: d.path + string(filepath.Separator) + name, rel: rel, ign: ign})
		case typ.IsRegular():
			if files == nil {
				files = make([]Entry, 0, len(sc.ents)-i)
			}
			e := Entry{Rel: rel, dir: d.path}
			if !w.opts.NoPath {
				e.Path = d.path + string(filepath.Separator) + name
			}
			if w.opts.ModTime {
				e.ModTime = h.modTime(d.path, de)
			}
			files = append(files, e)
		default: // a symbolic link: keep it only if it is a file inside the root
			path := d.path + string(filepath.Separator) + name
			if real, fi, ok := w.linkTarget(path); ok {
				e := Entry{Path: path, Rel: rel, Target: real, info: fi}
				if w.opts.ModTime {
					e.ModTime = fi.ModTime()
				}
				files = append(files, e)
			}
		}
	}
	if len(subdirs) > 0 {
		w.mu.Lock()
		w.stack = append(w.stack, subdirs...)
		w.mu.Unlock()
		w.cond.Broadcast()
	}
	return batch{entries: files}
}

// linkTarget resolves the symbolic link at path and reports whether it is a
// regular file inside the root.
func (w *walker) linkTarget(path string) (string, fs.FileInfo, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil || !within(w.realRoot, real) {
		return "", nil, false
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return "", nil, false
	}
	return real, fi, true
}

func within(root, path string) bool {
	if root == string(filepath.Separator) {
		return true
	}
	return path == root || strings.HasPrefix(path, root+string(filepath.Separator))
}

// dirIgnore is the ignore state of one directory, linked to its parent's.
type dirIgnore struct {
	parent *dirIgnore
	rel    string // the directory relative to the root, with a trailing "/" ("" for the root and above)
	prefix string // for ancestors of the root: the root relative to this directory, with a trailing "/"
	hasGit bool   // the directory holds a .git entry
	anyGit bool   // this directory or an ancestor holds a .git entry

	ignore, gitignore, exclude *matcher
}

func newDirIgnore(dir, rel string, ents []rawEnt, parent *dirIgnore) *dirIgnore {
	var hasGit, hasIgnore, hasGitignore bool
	for _, de := range ents {
		switch de.name {
		case ".git":
			hasGit = true
		case ".ignore":
			hasIgnore = true
		case ".gitignore":
			hasGitignore = true
		}
	}
	if !hasGit && !hasIgnore && !hasGitignore {
		return parent
	}
	n := &dirIgnore{parent: parent, hasGit: hasGit, anyGit: hasGit || parent != nil && parent.anyGit}
	if rel != "" {
		n.rel = rel + "/"
	}
	n.load(dir, hasIgnore, hasGitignore, hasGit)
	if n.ignore == nil && n.gitignore == nil && n.exclude == nil && !n.hasGit {
		return parent
	}
	return n
}

func (n *dirIgnore) load(dir string, hasIgnore, hasGitignore, hasGit bool) {
	if hasIgnore {
		n.ignore = readMatcher(filepath.Join(dir, ".ignore"))
	}
	if hasGitignore {
		n.gitignore = readMatcher(filepath.Join(dir, ".gitignore"))
	}
	if hasGit {
		n.exclude = readMatcher(filepath.Join(dir, ".git", "info", "exclude"))
	}
}

// ancestorIgnores returns the ignore state of the root's ancestors.
func ancestorIgnores(root string) *dirIgnore {
	var dirs []string
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	var n *dirIgnore
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		exists := func(name string) bool { _, err := os.Lstat(filepath.Join(d, name)); return err == nil }
		hasGit, hasIgnore, hasGitignore := exists(".git"), exists(".ignore"), exists(".gitignore")
		if !hasGit && !hasIgnore && !hasGitignore {
			continue
		}
		rel, err := filepath.Rel(d, root)
		if err != nil {
			continue
		}
		a := &dirIgnore{parent: n, prefix: filepath.ToSlash(rel) + "/", hasGit: hasGit, anyGit: hasGit || n != nil && n.anyGit}
		a.load(d, hasIgnore, hasGitignore, hasGit)
		n = a
	}
	return n
}

// ignored applies the ignore files of n and its ancestors to rel.
func (n *dirIgnore) ignored(rel string, isDir bool) bool {
	if n == nil {
		return false
	}
	var ignDone, giDone, exDone bool
	var ignVal, giVal, exVal bool
	useGit := n.anyGit
	sawGit := false
	for c := n; c != nil; c = c.parent {
		p := c.prefix + rel[len(c.rel):]
		if !ignDone && c.ignore != nil {
			ignDone, ignVal = c.ignore.match(p, isDir)
		}
		if useGit && !sawGit {
			if !giDone && c.gitignore != nil {
				giDone, giVal = c.gitignore.match(p, isDir)
			}
			if !exDone && c.exclude != nil {
				exDone, exVal = c.exclude.match(p, isDir)
			}
		}
		sawGit = sawGit || c.hasGit
	}
	switch {
	case ignDone:
		return ignVal
	case giDone:
		return giVal
	case exDone:
		return exVal
	}
	return false
}
