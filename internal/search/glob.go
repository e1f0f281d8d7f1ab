package search

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/toolscope/toolscope/internal/walk"
)

// DefaultGlobLimit is the number of files [Glob] returns when Limit is 0.
const DefaultGlobLimit = 100

// GlobOptions configures [Glob]. nil means defaults.
type GlobOptions struct {
	Limit int // most files returned; 0 means DefaultGlobLimit

	// Exclude lists what must never be listed, with the syntax and meaning
	// of [GrepOptions.Exclude]: excluded directories are not entered, and
	// excluded files (and links to them) are not listed whatever the
	// pattern. An excluded root gives an [*ExcludedError]; a refused
	// pattern a [*BadExcludeError].
	Exclude []string
}

// GlobResult lists the newest matching files.
type GlobResult struct {
	Files     []string // absolute paths, newest modification time first, ties by path
	Truncated bool     // more than len(Files) files matched
	Total     int      // files that matched
}

// Glob matches pattern against the regular files under root and returns the
// newest ones. The pattern uses doublestar syntax ("**", "*", "?", "[...]",
// "{a,b}") relative to root; an absolute pattern inside root is accepted. The
// files are those `rg --files --hidden` lists: hidden files are included,
// .git is skipped, .gitignore is honoured, and no symbolic link is followed
// out of root. Nothing that opts.Exclude excludes is listed. An invalid
// pattern gives an error wrapping [doublestar.ErrBadPattern].
func Glob(ctx context.Context, root, pattern string, opts *GlobOptions) (*GlobResult, error) {
	limit := DefaultGlobLimit
	if opts != nil && opts.Limit > 0 {
		limit = opts.Limit
	}
	var ex *excluder
	if opts != nil && len(opts.Exclude) > 0 {
		var err error
		if ex, err = compileExcludeCached(opts.Exclude); err != nil {
			return nil, err
		}
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	pat := filepath.ToSlash(pattern)
	if filepath.IsAbs(pattern) {
		rel, err := filepath.Rel(root, filepath.Clean(pattern))
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, fmt.Errorf("glob pattern %q is outside the search directory %s", pattern, root)
		}
		pat = filepath.ToSlash(rel)
	}
	for strings.HasPrefix(pat, "./") {
		pat = pat[2:]
	}
	if !doublestar.ValidatePattern(pat) {
		return nil, fmt.Errorf("invalid glob pattern %q: %w", pattern, doublestar.ErrBadPattern)
	}

	// The walk's threads test the pattern and the exclusions, and stat only
	// the files that match: the loop below sees nothing else.
	match := compileGlob(pat)
	wopts := walk.Options{GitIgnore: true, Hidden: true, ModTime: true, NoPath: true}
	base, _ := doublestar.SplitPattern(pat)
	wopts.Override = func(rel string, isDir bool) walk.Match {
		if isDir {
			// Enter only the directories on the way to the pattern's fixed leading part.
			if base != "." && !strings.HasPrefix(base+"/", rel+"/") && !strings.HasPrefix(rel, base+"/") {
				return walk.Ignore
			}
			return walk.None
		}
		if !match(rel) {
			return walk.Ignore
		}
		return walk.None
	}
	var rx *rootExcluder
	if ex != nil {
		if rx, err = ex.forPath(root); err != nil {
			return nil, err
		}
		wopts.Override = rx.override(wopts.Override)
	}
	h := &newest{limit: limit}
	for e, err := range walk.Files(ctx, root, &wopts) {
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue // unreadable directories are skipped
		}
		if e.Path != "" && e.Path == root {
			// The root is a file: the walk yields it alone, unfiltered.
			if !match(e.Rel) {
				continue
			}
		} else if rx != nil && rx.fileHit(e.Rel, e.Target) != nil {
			continue // a link to an excluded file, or (were the override wrong) an excluded one
		}
		h.total++
		h.offer(globFile{rel: e.Rel, path: e.Path, mtime: e.ModTime})
	}
	files := make([]string, 0, h.Len())
	slices.SortFunc(h.files, compareFiles)
	for _, f := range h.files {
		if f.path == "" {
			f.path = root + string(filepath.Separator) + filepath.FromSlash(f.rel)
		}
		files = append(files, f.path)
	}
	return &GlobResult{Files: files, Truncated: h.total > len(files), Total: h.total}, nil
}

// compileGlob returns the test of a relative path against a valid Glob
// pattern: doublestar's answer, found without it for the patterns an agent
// writes most: "**" and "**/*" (everything), and "**/" followed by one
// segment without braces or "**" ("**/*.go", "**/main.go", "**/[A-Z]*.md"),
// which doublestar matches against the last component only, as a base-name
// pattern (FuzzGlobPattern compares them).
func compileGlob(pat string) func(rel string) bool {
	if pat == "**" || pat == "**/*" {
		return func(string) bool { return true }
	}
	if seg, ok := strings.CutPrefix(pat, "**/"); ok && seg != "" && !strings.ContainsAny(seg, "/{}") && !strings.Contains(seg, "**") {
		n := newNamePattern(seg, seg)
		return func(rel string) bool { return n.match(rel[strings.LastIndexByte(rel, '/')+1:]) }
	}
	return func(rel string) bool { return doublestar.MatchUnvalidated(pat, rel) }
}

// globFile is a file found: its path relative to the root and, when the
// root is a file, its absolute path.
type globFile struct {
	rel, path string
	mtime     time.Time
}

// compareFiles orders newest first, then by path. Paths below the same
// root compare as their relative paths do.
func compareFiles(a, b globFile) int {
	if c := b.mtime.Compare(a.mtime); c != 0 {
		return c
	}
	return cmp.Compare(a.rel, b.rel)
}

// newest keeps the limit best files in a heap whose root is the worst kept.
type newest struct {
	files []globFile
	limit int
	total int
}

func (h *newest) Len() int           { return len(h.files) }
func (h *newest) Less(i, j int) bool { return compareFiles(h.files[i], h.files[j]) > 0 }
func (h *newest) Swap(i, j int)      { h.files[i], h.files[j] = h.files[j], h.files[i] }
func (h *newest) Push(x any)         { h.files = append(h.files, x.(globFile)) }
func (h *newest) Pop() any {
	f := h.files[len(h.files)-1]
	h.files = h.files[:len(h.files)-1]
	return f
}

func (h *newest) offer(f globFile) {
	if len(h.files) < h.limit {
		heap.Push(h, f)
		return
	}
	if compareFiles(f, h.files[0]) < 0 {
		h.files[0] = f
		heap.Fix(h, 0)
	}
}
