// Package search implements the file search behind the Glob and Grep tools.
//
// [Glob] lists the files under a directory that match a doublestar pattern,
// newest first, honouring .gitignore. [Grep] searches file contents with one of
// two engines that print the same output: ripgrep, when the rg binary is on
// PATH, run with exactly the argument vector of the reference implementation;
// and a pure-Go engine (RE2 regular expressions over a parallel, gitignore-aware
// walk) that reproduces what ripgrep prints when its output is not a terminal.
// Both share the reference's post-processing: empty lines dropped, pagination
// by head_limit and offset, and a notice when results were cut.
//
// Both tools take a list of exclusions ([GrepOptions.Exclude],
// [GlobOptions.Exclude]): the files that deny rules and secret policies
// protect. Each engine keeps out of excluded directories and never opens an
// excluded file (ripgrep gets them as --glob flags that take precedence over
// the user's), and what the engines print is filtered by path once more, so
// that a mistake in one layer does not expose a file.
package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/toolscope/toolscope/internal/textfile"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Engine selects how [Grep] searches.
type Engine int

const (
	Auto     Engine = iota // Ripgrep when rg is on PATH, else GoEngine
	Ripgrep                // run the rg binary
	GoEngine               // search in-process with Go's regexp
)

func (e Engine) String() string {
	switch e {
	case Ripgrep:
		return "ripgrep"
	case GoEngine:
		return "go"
	}
	return "auto"
}

// Output modes of [GrepOptions.OutputMode].
const (
	ModeContent          = "content"
	ModeFilesWithMatches = "files_with_matches"
	ModeCount            = "count"
)

// DefaultHeadLimit is the number of output lines kept when HeadLimit is nil.
const DefaultHeadLimit = 250

// DefaultTimeout bounds a search when GrepOptions.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// GrepOptions describes one search. Zero values mean the defaults of the Grep tool.
type GrepOptions struct {
	Pattern    string // regular expression (required)
	Path       string // file or directory to search, absolute; "" means the working directory
	OutputMode string // ModeContent, ModeFilesWithMatches (default) or ModeCount

	Glob string // file filter: split on whitespace, and on commas outside braces; "!g" excludes
	Type string // ripgrep file type ("go", "py", ...)

	Before, After, Context int  // -B, -A, -C lines around matches (content mode); Context wins
	LineNumbers            bool // -n: prefix line numbers (content mode)
	IgnoreCase             bool // -i
	Multiline              bool // -U --multiline-dotall: patterns may span lines, "." matches newlines

	HeadLimit *int // lines or entries to return; nil means DefaultHeadLimit, 0 means all
	Offset    int  // lines or entries to skip first

	// Exclude lists what must never be searched or listed: the files that
	// the user's Read deny rules and the project's secret policy protect.
	// Nothing excluded is opened, and no user glob (Glob, or Glob's
	// pattern) can bring it back. There are two kinds of pattern:
	//
	//   - A pattern without a slash is matched against the base name of
	//     every file and directory, at any depth, like a .gitignore line
	//     without a slash: ".env", ".env.*", "id_rsa*", "*.pem". A matching
	//     directory excludes everything under it (".ssh").
	//   - A pattern starting with "/" is matched against the absolute path
	//     of every file and directory: "/home/u/proj/secrets/**",
	//     "/home/u/proj/config/prod.yml", "/**/secrets/*". A matching
	//     directory excludes everything under it, so "/home/u/proj/secrets"
	//     and "/home/u/proj/secrets/**" exclude the same files. A trailing
	//     slash is ignored, and the path must otherwise be clean (no "//",
	//     "." or ".." segments).
	//
	// Both use doublestar syntax, matched case-sensitively: "*" and "?"
	// match within one path segment, "**" as a whole segment matches any
	// number of segments (elsewhere, and as "***", stars mean "*"), "[...]"
	// is a character class ("[!...]" and "[^...]" negate it), "{a,b}"
	// matches either alternative, and "\" escapes the next character. A
	// "/" may only separate segments: not inside a class or braces, nor
	// escaped. There is no negation: a leading "!" is literal. A pattern
	// must be valid UTF-8, and its braces expand to at most 256
	// alternatives.
	//
	// A path is excluded when a pattern matches it or any directory above
	// it, hidden or not (both engines search hidden files). The searched
	// path is matched as the caller spells it and with symbolic links
	// resolved, and when it is excluded itself the search fails with an
	// [*ExcludedError] (inside a [ToolError]) naming the pattern. A symbolic
	// link found in the search is excluded when its own path or the file it
	// resolves to is.
	//
	// A relative pattern that holds a slash ("secrets/*.key") is refused:
	// relative to the searched directory it would change meaning with every
	// call. Refused and invalid patterns fail the search with a
	// [*BadExcludeError] before anything is read.
	Exclude []string

	Timeout time.Duration // 0 means DefaultTimeout
	Engine  Engine
	RgPath  string // the rg binary; "" looks up "rg" on PATH
}

// GrepResult is the text the model sees, with facts about it.
type GrepResult struct {
	Text    string
	Items   int    // output lines (entries) before pagination
	Engine  Engine // the engine that ran
	Matched bool   // some line matched
}

// ToolError is a failure the model should see (a bad pattern, an unknown
// file type, a timeout, a missing path, an excluded path). Other errors from
// this package mean the infrastructure failed.
type ToolError struct {
	Msg string
	Err error // the underlying error, if any (an [*ExcludedError])
}

func (e *ToolError) Error() string { return e.Msg }

// Unwrap returns e.Err.
func (e *ToolError) Unwrap() error { return e.Err }

func toolErrorf(format string, args ...any) error {
	return &ToolError{Msg: fmt.Sprintf(format, args...)}
}

// vcsDirs are excluded by both engines, as the reference passes --glob !DIR for each.
var vcsDirs = []string{".git", ".svn", ".hg", ".bzr", ".jj", ".sl"}

// Grep searches opts.Path for opts.Pattern and formats the result like the
// reference Grep tool.
func Grep(ctx context.Context, opts *GrepOptions) (*GrepResult, error) {
	o := *opts
	if o.HeadLimit != nil && *o.HeadLimit < 0 {
		return nil, &ToolError{Msg: "Error: head_limit must be non-negative."}
	}
	if o.Offset < 0 {
		return nil, &ToolError{Msg: "Error: offset must be non-negative."}
	}
	switch o.OutputMode {
	case "":
		o.OutputMode = ModeFilesWithMatches
	case ModeContent, ModeFilesWithMatches, ModeCount:
	default:
		return nil, toolErrorf("Error: output_mode must be one of content, files_with_matches, count (got %q).", o.OutputMode)
	}
	var ex *excluder
	if len(o.Exclude) > 0 {
		var err error
		if ex, err = compileExcludeCached(o.Exclude); err != nil {
			return nil, err
		}
	}
	if o.Path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		o.Path = wd
	}
	fi, err := os.Stat(o.Path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, toolErrorf("Path not found: %s", o.Path)
		}
		return nil, toolErrorf("Cannot access path %s: %v", o.Path, err)
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		// A named pipe would block the search in open, past any timeout.
		return nil, toolErrorf("Error: %s is %s, not a regular file or a directory; Grep searches files and directories.", o.Path, textfile.ModeKind(fi.Mode()))
	}
	var rx *rootExcluder
	if ex != nil {
		if rx, err = ex.forPath(o.Path); err != nil {
			var xe *ExcludedError
			if errors.As(err, &xe) {
				return nil, &ToolError{Msg: "Error: " + xe.Error(), Err: xe}
			}
			return nil, err
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	engine := o.Engine
	if engine == Auto {
		engine = GoEngine
		if _, err := lookRg(o.RgPath); err == nil {
			engine = Ripgrep
		}
	}
	start := time.Now()
	parent, byCaller := ctx.Deadline()
	byCaller = byCaller && parent.Before(start.Add(o.Timeout))
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()

	limit := DefaultHeadLimit
	if o.HeadLimit != nil {
		limit = *o.HeadLimit
	}
	pg := &pager{offset: o.Offset, limit: limit}
	if engine == Ripgrep {
		err = runRipgrep(ctx, &o, fi.IsDir(), rx, pg)
	} else {
		err = runGo(ctx, &o, fi.IsDir(), rx, pg)
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			name := "Ripgrep search"
			if engine != Ripgrep {
				name = "The search (Go engine)"
			}
			limit, whose := o.Timeout, "the search's time limit"
			if byCaller {
				limit, whose = max(parent.Sub(start), 0).Round(time.Millisecond), "the caller's deadline"
			}
			return nil, toolErrorf("%s timed out after %s seconds (%s). Try searching a more specific path or pattern.", name, seconds(limit), whose)
		}
		return nil, err
	}
	res := pg.result(o.Pattern)
	res.Engine = engine
	return res, nil
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

func lookRg(path string) (string, error) {
	if path == "" {
		path = "rg"
	}
	return exec.LookPath(path)
}

// pager applies the reference's post-processing to engine output as it
// streams in: empty lines are dropped, the lines are counted, and only those
// on the requested page, items[offset:offset+limit] (limit 0: all), are kept.
type pager struct {
	offset, limit int

	items   int    // non-empty lines seen
	page    []byte // the kept lines, joined by "\n"
	partial []byte // an unfinished line from the last Write
}

func (p *pager) Write(b []byte) (int, error) {
	n := len(b)
	if len(p.partial) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.partial = append(p.partial, b...)
			return n, nil
		}
		p.partial = append(p.partial, b[:i]...)
		p.line(p.partial)
		p.partial = p.partial[:0]
		b = b[i+1:]
	}
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		p.line(b[:i])
		b = b[i+1:]
	}
	p.partial = append(p.partial, b...)
	return n, nil
}

func (p *pager) line(l []byte) {
	if len(l) == 0 {
		return
	}
	i := p.items
	p.items++
	if i < p.offset || p.limit > 0 && i >= p.offset+p.limit {
		return
	}
	if len(p.page) > 0 {
		p.page = append(p.page, '\n')
	}
	p.page = append(p.page, l...)
}

// result finishes the output and formats the page.
// addItems counts n output lines the engine did not pass on (they could
// not reach the page).
func (p *pager) addItems(n int) { p.items += n }

func (p *pager) result(pattern string) *GrepResult {
	p.line(p.partial)
	p.partial = nil
	if p.items == 0 {
		return &GrepResult{Text: "No matches found for pattern: " + pattern}
	}
	text := string(p.page)
	if p.limit > 0 && p.offset+p.limit < p.items {
		text += fmt.Sprintf("\n\n[Showing results with pagination = limit: %d", p.limit)
		if p.offset > 0 {
			text += fmt.Sprintf(", offset: %d", p.offset)
		}
		text += "]"
	}
	return &GrepResult{Text: text, Items: p.items, Matched: true}
}

// splitGlobs splits the glob parameter as the reference does: on whitespace;
// a piece holding both "{" and "}" is kept whole, any other is split on commas.
func splitGlobs(glob string) []string {
	var out []string
	for _, piece := range strings.Fields(glob) {
		if strings.Contains(piece, "{") && strings.Contains(piece, "}") {
			out = append(out, piece)
			continue
		}
		for g := range strings.SplitSeq(piece, ",") {
			if g != "" {
				out = append(out, g)
			}
		}
	}
	return out
}

// searchDir is the directory the engines resolve relative globs against.
func searchDir(path string, isDir bool) string {
	if isDir {
		return path
	}
	return filepath.Dir(path)
}
