package search

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"strings"

	"github.com/toolscope/toolscope/internal/proc"
)

// RipgrepArgs returns the rg argument vector the reference builds for o
// (everything after the program name), ending with o.Path. It leaves out
// o.Exclude: [Grep] adds the exclusions itself, since translating them
// depends on the searched directory (see ripgrepArgs).
func RipgrepArgs(o *GrepOptions) []string { return ripgrepArgs(o, false, nil) }

// ripgrepArgs is [RipgrepArgs], or with filtered, the arguments for a
// search whose output goes through rgFilter, with exclusions: excludes are
// "!"-prefixed globs, placed after the user's globs because among rg's globs the last
// one that matches a path decides, so no user glob can re-include an
// excluded path. With exclusions the search runs on "." in the searched
// directory (rg anchors globs at its working directory, which it sees with
// symbolic links resolved; on "." the paths it matches are relative and the
// anchoring holds however the directory is spelled), rg ends every path it
// prints with a NUL byte and always prints line numbers, so that rgFilter
// can tell each path apart exactly and restore the reference format.
func ripgrepArgs(o *GrepOptions, filtered bool, excludes []string) []string {
	return ripgrepArgsFold(o, filtered, excludes, nil)
}

// ripgrepArgsFold is ripgrepArgs with also iexcludes, globs given to rg
// as --iglob (matched regardless of case): the ExcludeFold patterns.
func ripgrepArgsFold(o *GrepOptions, filtered bool, excludes, iexcludes []string) []string {
	args := []string{"--hidden"}
	for _, d := range vcsDirs {
		args = append(args, "--glob", "!"+d)
	}
	args = append(args, "--max-columns", "500")
	if o.Multiline {
		args = append(args, "-U", "--multiline-dotall")
	}
	if o.IgnoreCase {
		args = append(args, "-i")
	}
	switch o.OutputMode {
	case ModeFilesWithMatches, "":
		args = append(args, "-l")
	case ModeCount:
		args = append(args, "-c")
	}
	if o.OutputMode == ModeContent {
		if o.LineNumbers || filtered {
			args = append(args, "-n")
		}
		switch {
		case o.Context > 0:
			args = append(args, "-C", strconv.Itoa(o.Context))
		default:
			if o.Before > 0 {
				args = append(args, "-B", strconv.Itoa(o.Before))
			}
			if o.After > 0 {
				args = append(args, "-A", strconv.Itoa(o.After))
			}
		}
	}
	if strings.HasPrefix(o.Pattern, "-") {
		args = append(args, "-e", o.Pattern)
	} else {
		args = append(args, o.Pattern)
	}
	if o.Type != "" {
		args = append(args, "--type", o.Type)
	}
	for _, g := range splitGlobs(o.Glob) {
		args = append(args, "--glob", g)
	}
	if !filtered {
		return append(args, o.Path)
	}
	for _, g := range excludes {
		args = append(args, "--glob", g)
	}
	for _, g := range iexcludes {
		args = append(args, "--iglob", g)
	}
	return append(args, "--null", ".")
}

// runRipgrep runs rg in the search directory (so relative globs mean the same
// as in the Go engine), streaming its stdout to out. With rx, the search of a
// directory passes the exclusions to rg and filters its output (rgFilter);
// a single file has been checked already.
func runRipgrep(ctx context.Context, o *GrepOptions, isDir bool, rx *rootExcluder, out io.Writer) error {
	rg, err := lookRg(o.RgPath)
	if err != nil {
		return toolErrorf("ripgrep error (code 127): %v", err)
	}
	args := RipgrepArgs(o)
	var filter *rgFilter
	if rx != nil && isDir {
		var iglobs []string
		if rx.fold != nil {
			iglobs = rx.fold.rgGlobs()
		}
		args = ripgrepArgsFold(o, true, rx.rgGlobs(), iglobs)
		filter = newRgFilter(o, rx, out)
		out = filter
	}
	cmd := proc.Command(ctx, rg, args...)
	cmd.Dir = searchDir(o.Path, isDir)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	err = cmd.Run()
	if filter != nil {
		filter.flush()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() == 1: // no match
	case errors.As(err, &ee):
		return toolErrorf("ripgrep error (code %d): %s", ee.ExitCode(), strings.TrimSpace(stderr.String()))
	default:
		return toolErrorf("ripgrep error (code 127): %v", err)
	}
	return nil
}

// rgFilter reads what rg prints when run by ripgrepArgs with exclusions,
// drops every record whose path is excluded, and writes the rest in the
// reference format (as rg prints without --null and, unless asked for,
// without line numbers). It is the second line of defence: were a glob
// translation wrong, rg would print an excluded file, and the filter would
// still drop it.
//
// rg prints, for the path "./rel":
//
//	files_with_matches  ./rel NUL
//	count               ./rel NUL count LF
//	content             ./rel NUL lineno (":" match | "-" context) text LF
//	                    "--" LF between groups of context
//
// A record starts with "./", and the path runs to the NUL (it may hold a
// line feed). Any other line is passed on only if it is "--", and only
// between two records that are kept.
type rgFilter struct {
	out     io.Writer
	rx      *rootExcluder
	display string // the path prefix the reference prints: o.Path and "/"
	mode    string
	numbers bool

	buf     []byte
	line    []byte // the record being written
	lastRel string // the previous record's path and verdict: records come grouped by file
	lastOut bool
	kept    bool // some record was written
	sep     bool // a "--" is due before the next record written
}

func newRgFilter(o *GrepOptions, rx *rootExcluder, out io.Writer) *rgFilter {
	return &rgFilter{out: out, rx: rx, display: strings.TrimRight(o.Path, "/") + "/", mode: o.OutputMode, numbers: o.LineNumbers, lastRel: "\x00"}
}

func (f *rgFilter) Write(b []byte) (int, error) {
	f.buf = append(f.buf, b...)
	n := f.records(f.buf, false)
	f.buf = f.buf[:copy(f.buf, f.buf[n:])]
	return len(b), nil
}

// flush handles a last record that rg did not end.
func (f *rgFilter) flush() {
	f.records(f.buf, true)
	f.buf = f.buf[:0]
}

// records handles the complete records at the start of b and returns how
// many bytes they took; with final, what is left is a record too.
func (f *rgFilter) records(b []byte, final bool) int {
	done := 0
	for done < len(b) {
		rest := b[done:]
		if len(rest) < 2 && !final {
			break
		}
		if !bytes.HasPrefix(rest, []byte("./")) {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 && !final {
				break
			}
			if i < 0 {
				i = len(rest) - 1
			}
			if string(bytes.TrimSuffix(rest[:i+1], []byte("\n"))) == "--" && f.kept {
				f.sep = true
			}
			done += i + 1
			continue
		}
		nul := bytes.IndexByte(rest, 0)
		if nul < 0 {
			if !final {
				break
			}
			nul = len(rest)
		}
		end := nul + 1 // files_with_matches: the NUL ends the record
		var fields []byte
		if f.mode != ModeFilesWithMatches && f.mode != "" && nul < len(rest) {
			i := bytes.IndexByte(rest[nul+1:], '\n')
			if i < 0 && !final {
				break
			}
			if i < 0 {
				i = len(rest) - nul - 1
			}
			fields = rest[nul+1 : nul+1+i]
			end = nul + 1 + i + 1
		}
		f.record(string(rest[2:nul]), fields)
		done += min(end, len(rest))
	}
	return done
}

func (f *rgFilter) record(rel string, fields []byte) {
	if rel != f.lastRel {
		f.lastRel = rel
		f.lastOut = f.rx.relHit(rel) == nil
	}
	if !f.lastOut {
		return
	}
	l := f.line[:0]
	if f.sep {
		l = append(l, "--\n"...)
		f.sep = false
	}
	l = append(l, f.display...)
	l = append(l, rel...)
	switch f.mode {
	case ModeCount:
		l = append(l, ':')
		l = append(l, fields...)
	case ModeContent:
		// fields is "lineno:text" or "lineno-text".
		i := 0
		for i < len(fields) && '0' <= fields[i] && fields[i] <= '9' {
			i++
		}
		if i == 0 || i == len(fields) {
			l = append(l, ':') // not rg's format: keep it as it came
			l = append(l, fields...)
			break
		}
		l = append(l, fields[i])
		if f.numbers {
			l = append(l, fields[:i+1]...)
		}
		l = append(l, fields[i+1:]...)
	}
	l = append(l, '\n')
	f.line = l
	f.kept = true
	f.out.Write(l)
}
