package bashglob

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// MaxPatternLen is the longest pattern, in bytes, that Match, MatchPrefix
// and Expand evaluate. Unsupported reports longer patterns, so callers
// treat them as matching everything. The limit bounds the work of
// MatchPrefix (linear in the pattern length) and of Match (proportional to
// the pattern length times the name length).
const MaxPatternLen = 16 << 10

// Options adjusts the matching rules. The zero value, and a nil *Options,
// mean bash 5.2's defaults in a non-interactive shell in a UTF-8 locale
// whose collation is code point order (C.UTF-8).
type Options struct {
	// DotGlob lets wildcards and bracket expressions match a leading
	// '.', as after bash's "shopt -s dotglob". The names "." and ".."
	// still need a literal leading dot (and DotEntries).
	DotGlob bool

	// DotEntries lets a pattern component that begins with a literal
	// '.' match the names "." and "..", as bash before 5.2 did (and bash
	// 5.2 with "shopt -u globskipdots", dash, and others): there ".*"
	// matches "..". Expand then also lists "." and ".." in every
	// directory it reads. Set it to ask the conservative question for an
	// unknown shell.
	DotEntries bool

	// FoldCase makes letters match regardless of case: a character of the
	// name matches a pattern element when any of its simple case
	// foldings (unicode.SimpleFold; ASCII only where bash compares bytes)
	// does. This applies to literal characters, ranges, classes and
	// negated sets alike, so "[!a]" matches "A" and "a" (whose variant
	// "A" is not "a"). It answers whether a pattern could refer to a file
	// on a case-insensitive file system; it is deliberately broader than
	// bash's nocaseglob.
	FoldCase bool

	// AnyLocale makes a bracket expression match every character whose
	// membership bash leaves to the locale, negated or not: when the
	// expression has a character class, every character above U+007F;
	// when it has a (non-empty) range, every character above U+00FF,
	// which bash orders with wcscoll; when it has an equivalence class,
	// every character that none of its equivalence classes names.
	// Without it, the answers of the C.UTF-8 locale are given, which is
	// what bash does in a UTF-8 locale whose collation is code point
	// order.
	AnyLocale bool
}

// DefaultMaxEntries is the directory-entry budget Expand uses when
// ExpandOptions.MaxEntries is zero.
const DefaultMaxEntries = 100000

// DefaultMaxResults is the result budget Expand uses when
// ExpandOptions.MaxResults is zero.
const DefaultMaxResults = 10000

// ExpandOptions configures Expand.
type ExpandOptions struct {
	// Options are the matching rules.
	Options

	// Dir is the absolute directory against which a relative pattern is
	// expanded, like the shell's working directory. Results of a relative
	// pattern are relative, as bash prints them. It is ignored for
	// absolute patterns.
	Dir string

	// MaxEntries bounds the directory entries Expand reads in all. Zero
	// means DefaultMaxEntries; a negative value means no bound. Going
	// over it makes Expand fail with ErrTooManyEntries.
	MaxEntries int

	// MaxResults bounds the number of results. Zero means
	// DefaultMaxResults; a negative value means no bound. Going over it
	// makes Expand fail with ErrTooManyResults.
	MaxResults int

	// StrictErrors makes Expand fail when it cannot read a directory or
	// test a path for a reason other than its absence (such as
	// permission denied). By default such paths contribute nothing, as
	// in bash; a missing path, a non-directory and a symbolic link loop
	// always contribute nothing.
	StrictErrors bool

	// Cache, if not nil, remembers the directories Expand lists and tests,
	// for the Expand calls that share it: one look at the file system
	// serves every pattern of one command line.
	Cache *DirCache
}

// DirCache holds directory listings and directory tests for the Expand
// calls that share it. It sees the file system as it was when each
// directory was first read: keep one only for a short job, such as judging
// one command line. It is not safe for concurrent use.
type DirCache struct {
	// OnList, if not nil, is told of every directory the cache lists: its
	// path as opened, and the names and types (the fs.ModeType bits) of
	// its entries, as the directory read reported them.
	OnList func(dir string, names []string, types []fs.FileMode)

	// Lister, if not nil, lists directories in place of reading them.
	Lister Lister

	lists map[string]dirList
	dirs  map[string]dirTest
}

// Lister lists directories for a DirCache. ReadDir returns the names of
// dir's entries and their types (the fs.ModeType bits), in any order, which
// the caller does not modify; it fails with an error wrapping
// ErrTooManyEntries when dir holds more than limit entries (limit > 0). An
// implementation may answer from a cache it knows to be current.
type Lister interface {
	ReadDir(dir string, limit int) (names []string, types []fs.FileMode, err error)
}

type dirList struct {
	names []string
	types []fs.FileMode // the entries' types, as the directory read reported them
	index map[string]int
	err   error
}

// typeOf returns the type of the entry name of a listing.
func (l *dirList) typeOf(name string) (fs.FileMode, bool) {
	if l.types == nil {
		return 0, false
	}
	if l.index == nil {
		l.index = make(map[string]int, len(l.names))
		for i, n := range l.names {
			l.index[n] = i
		}
	}
	i, ok := l.index[name]
	if !ok {
		return 0, false
	}
	return l.types[i], true
}

// dirKey is the key of a directory path in a DirCache: "d/." and "d/" are
// d (a textual clean would also fold "link/..", which the kernel does not).
func dirKey(p string) string {
	for {
		switch {
		case len(p) > 1 && strings.HasSuffix(p, "/"):
			p = p[:len(p)-1]
		case len(p) > 2 && strings.HasSuffix(p, "/."):
			p = p[:len(p)-2]
		default:
			return p
		}
	}
}

type dirTest struct {
	dir bool
	err error
}

// ErrUnsupported is what errors.Is finds in every *UnsupportedError.
var ErrUnsupported = errors.New("bashglob: unsupported pattern")

// ErrTooManyEntries is returned (wrapped) by Expand when it would read more
// directory entries than ExpandOptions.MaxEntries allows.
var ErrTooManyEntries = errors.New("bashglob: too many directory entries")

// ErrTooManyResults is returned (wrapped) by Expand when the expansion has
// more results than ExpandOptions.MaxResults allows.
var ErrTooManyResults = errors.New("bashglob: too many results")

// UnsupportedError reports a pattern construct whose bash meaning this
// package does not pin down. See Unsupported.
type UnsupportedError struct {
	// Pattern is the pattern.
	Pattern string
	// Offset is the byte offset of the construct in Pattern.
	Offset int
	// Construct describes the construct.
	Construct string
}

// Error implements error.
func (e *UnsupportedError) Error() string {
	p := e.Pattern
	if len(p) > 64 {
		p = p[:64] + "..."
	}
	return fmt.Sprintf("bashglob: unsupported pattern %q: %s at offset %d", p, e.Construct, e.Offset)
}

// Is reports whether target is ErrUnsupported.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }
