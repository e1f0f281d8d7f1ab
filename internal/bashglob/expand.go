package bashglob

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
)

// Expand performs bash's pathname expansion of pattern against the file
// system and returns the matching paths, sorted bytewise (bash sorts them
// by the locale's collation; in C.UTF-8 that is the same order for valid
// UTF-8).
//
// pattern is either absolute or, with opts.Dir set, relative to opts.Dir;
// results then are relative, as bash prints them. Expand follows bash 5.2
// closely: it expands component by component, reading only directories
// whose component has meta characters (following symbolic links) and
// checking a trailing literal component with lstat (so a dangling symbolic
// link counts); a trailing '/' keeps only directories; runs of slashes are
// kept before the first component with meta characters and collapse to
// one after it, exactly as bash prints them.
//
// Expand returns nil and no error when bash would leave the word as
// written (with its escapes removed): when the pattern has no pathname
// expansion syntax and when nothing matches (bash's default, without
// nullglob or failglob). It returns the *UnsupportedError for a pattern
// that Unsupported reports, and an error wrapping ErrTooManyEntries or
// ErrTooManyResults when a bound of opts is exceeded: never a partial
// answer. Because the pattern has finitely many components and no '**',
// symbolic link loops cannot make it run forever; a loop simply fails to
// resolve.
func Expand(pattern string, opts *ExpandOptions) ([]string, error) {
	var eo ExpandOptions
	if opts != nil {
		eo = *opts
	}
	c := compile(pattern)
	if c.err != nil {
		return nil, c.err
	}
	if !wordGlob(pattern) {
		return nil, nil
	}
	g := globForm(pattern)
	if !strings.HasPrefix(g, "/") && !strings.HasPrefix(eo.Dir, "/") {
		return nil, fmt.Errorf("bashglob: relative pattern %q needs an absolute ExpandOptions.Dir", pattern)
	}
	x := &expander{
		o:          &eo,
		maxEntries: eo.MaxEntries,
		comps:      map[string]*component{},
	}
	if x.maxEntries == 0 {
		x.maxEntries = DefaultMaxEntries
	}
	res, _ := x.globPath(g)
	if x.err != nil {
		return nil, x.err
	}
	maxResults := eo.MaxResults
	if maxResults == 0 {
		maxResults = DefaultMaxResults
	}
	if maxResults > 0 && len(res) > maxResults {
		return nil, fmt.Errorf("%w: more than %d", ErrTooManyResults, maxResults)
	}
	if len(res) == 0 {
		return nil, nil
	}
	sort.Strings(res)
	return res, nil
}

// wordGlob reports whether bash subjects a word to pathname expansion at
// all: whether it has an unquoted '*' or '?', or an unquoted '[' followed,
// with no unquoted '/' in between, by an unquoted ']' (or a '+', '@' or '!'
// before a '('). Escaped characters, including an escaped '/', are
// skipped, as bash skips quoted ones.
func wordGlob(p string) bool {
	open := false
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '?', '*':
			return true
		case '[':
			open = true
		case ']':
			if open {
				return true
			}
		case '/', '+', '@', '!':
			if p[i] == '/' {
				open = false
			}
			if i+1 < len(p) && p[i+1] == '(' {
				return true
			}
		case '\\':
			if i+1 >= len(p) {
				return false
			}
			i++
		}
	}
	return false
}

// crudeGlob is the coarser test bash's glob library applies to parts of a
// path to decide whether to read a directory: an unescaped '*' or '?', or
// an unescaped '[' followed anywhere by an unescaped ']'.
func crudeGlob(s string) bool {
	open := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '?', '*':
			return true
		case '[':
			open = true
		case ']':
			if open {
				return true
			}
		case '+', '@', '!':
			if i+1 < len(s) && s[i+1] == '(' {
				return true
			}
		case '\\':
			if i+1 >= len(s) {
				return false
			}
			i++
		}
	}
	return false
}

// globForm turns every escaped '/' into a plain '/', as bash does before
// globbing.
func globForm(p string) string {
	if !strings.Contains(p, `\/`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			if p[i+1] != '/' {
				b.WriteByte('\\')
			}
			b.WriteByte(p[i+1])
			i++
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// dequote removes the escaping backslashes from s.
func dequote(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			if i >= len(s) {
				break
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// expander holds the state of one Expand call.
type expander struct {
	o          *ExpandOptions
	entries    int
	maxEntries int
	comps      map[string]*component
	buf        []rune
	err        error
}

// osPath turns a path as bash builds it into one to hand to the system.
func (x *expander) osPath(p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return x.o.Dir + "/" + p
}

// noteErr records err when it is not a plain absence and the options ask
// for strictness.
func (x *expander) noteErr(err error) {
	if x.o.StrictErrors && !isAbsence(err) && x.err == nil {
		x.err = err
	}
}

// globPath expands path the way bash's glob_filename does: it splits off
// the last component, expands the directory part recursively if it has
// meta characters, and expands the last component in each resulting
// directory. ok is false where bash reports an error (such as an
// unreadable directory), which callers treat as no match.
func (x *expander) globPath(path string) (res []string, ok bool) {
	if x.err != nil {
		return nil, false
	}
	var dir, file string
	if i := strings.LastIndexByte(path, '/'); i < 0 {
		file = path
	} else {
		dir, file = path[:i+1], path[i+1:]
	}
	if dir != "" && crudeGlob(dir) {
		dirs, ok := x.globPath(dir[:len(dir)-1])
		if !ok || len(dirs) == 0 {
			return nil, false
		}
		for _, d := range dirs {
			dname := d
			if d == "" && file != "" {
				dname = "."
			}
			names, ok := x.globVector(file, dname)
			if x.err != nil {
				return nil, false
			}
			if ok {
				res = append(res, joinAll(d, names)...)
			}
		}
		return res, true
	}
	if file == "" {
		return []string{dir}, true
	}
	dd := dequote(dir)
	vdir := dd
	if dir == "" {
		vdir = "."
	}
	names, ok := x.globVector(file, vdir)
	if !ok {
		return nil, false
	}
	return joinAll(dd, names), true
}

// joinAll prefixes every name with dir, adding a '/' unless dir ends in
// one, as bash's glob_dir_to_array does.
func joinAll(dir string, names []string) []string {
	if dir == "" {
		return names
	}
	sep := "/"
	if strings.HasSuffix(dir, "/") {
		sep = ""
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = dir + sep + n
	}
	return out
}

// globVector returns the names in directory dir matching the component
// pat, like bash's glob_vector.
func (x *expander) globVector(pat, dir string) ([]string, bool) {
	if pat == "" {
		// Directory only (trailing slash).
		if !x.isDir(dir) {
			return nil, false
		}
		return []string{""}, true
	}
	if !crudeGlob(pat) {
		if !x.isDir(dir) {
			return nil, false
		}
		name := dequote(pat)
		if _, err := os.Lstat(x.osPath(dir + "/" + name)); err != nil {
			x.noteErr(err)
			return nil, true
		}
		return []string{name}, true
	}
	comp := x.comps[pat]
	if comp == nil {
		c, _ := compileComponent(pat)
		comp = &c
		x.comps[pat] = comp
	}
	names, ok := x.readDir(dir)
	if !ok {
		return nil, false
	}
	var out []string
	for _, n := range names {
		var ok bool
		if ok, x.buf = comp.match(n, &x.o.Options, x.buf); ok {
			out = append(out, n)
		}
	}
	return out, true
}

// isDir reports whether p is a directory, following symbolic links.
func (x *expander) isDir(p string) bool {
	op := x.osPath(p)
	c := x.o.Cache
	t, ok := dirTest{}, false
	if c != nil {
		t, ok = c.dirs[op]
		if !ok {
			// The listing of the parent may already say: a directory or a
			// file that is no link needs no stat.
			if i := strings.LastIndexByte(op, '/'); i >= 0 && i < len(op)-1 {
				parent, name := op[:i], op[i+1:]
				if parent == "" {
					parent = "/"
				}
				if l, found := c.lists[dirKey(parent)]; found && l.err == nil && name != "." && name != ".." {
					if typ, known := l.typeOf(name); known && typ&fs.ModeSymlink == 0 {
						c.lists[dirKey(parent)] = l
						return typ.IsDir()
					}
				}
			}
		}
	}
	if !ok {
		fi, err := os.Stat(op)
		t = dirTest{err: err, dir: err == nil && fi.IsDir()}
		if c != nil {
			if c.dirs == nil {
				c.dirs = map[string]dirTest{}
			}
			c.dirs[op] = t
		}
	}
	if t.err != nil {
		x.noteErr(t.err)
	}
	return t.dir
}

// readDir lists directory p, charging the entries to the budget.
func (x *expander) readDir(p string) ([]string, bool) {
	op := x.osPath(p)
	c := x.o.Cache
	l, ok := dirList{}, false
	if c != nil {
		l, ok = c.lists[dirKey(op)]
	}
	if !ok {
		l.names, l.types, l.err = x.list(op)
		if c != nil && !errors.Is(l.err, ErrTooManyEntries) {
			if c.lists == nil {
				c.lists = map[string]dirList{}
			}
			c.lists[dirKey(op)] = l
		}
	}
	if l.err != nil {
		if errors.Is(l.err, ErrTooManyEntries) {
			x.err = l.err
		} else {
			x.noteErr(l.err)
		}
		return nil, false
	}
	x.entries += len(l.names)
	if x.maxEntries > 0 && x.entries > x.maxEntries {
		x.err = fmt.Errorf("%w: more than %d", ErrTooManyEntries, x.maxEntries)
		return nil, false
	}
	if !x.o.DotEntries {
		return l.names, true
	}
	return append([]string{".", ".."}, l.names...), true
}

// list reads the names in directory op, stopping with ErrTooManyEntries
// once more than the budget left are read.
func (x *expander) list(op string) ([]string, []fs.FileMode, error) {
	if c := x.o.Cache; c != nil && c.Lister != nil {
		limit := 0
		if x.maxEntries > 0 {
			limit = x.maxEntries - x.entries
			if limit <= 0 {
				return nil, nil, fmt.Errorf("%w: more than %d", ErrTooManyEntries, x.maxEntries)
			}
		}
		names, types, err := c.Lister.ReadDir(op, limit)
		if err != nil {
			if errors.Is(err, ErrTooManyEntries) {
				return nil, nil, fmt.Errorf("%w: more than %d", ErrTooManyEntries, x.maxEntries)
			}
			return nil, nil, err
		}
		if c.OnList != nil {
			c.OnList(op, names, types)
		}
		return names, types, nil
	}
	f, err := openDir(op)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var names []string
	var types []fs.FileMode
	for {
		ents, err := f.ReadDir(256)
		for _, e := range ents {
			if x.maxEntries > 0 && x.entries+len(names) >= x.maxEntries {
				return nil, nil, fmt.Errorf("%w: more than %d", ErrTooManyEntries, x.maxEntries)
			}
			names = append(names, e.Name())
			types = append(types, e.Type())
		}
		if errors.Is(err, io.EOF) || (err == nil && len(ents) == 0) {
			if x.o.Cache != nil && x.o.Cache.OnList != nil {
				x.o.Cache.OnList(op, names, types)
			}
			return names, types, nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
}
