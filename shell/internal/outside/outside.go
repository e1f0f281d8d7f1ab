// Package outside is every look the shell analyser takes beyond the
// command line it judges, behind one small interface, [Access].
//
// Most of what decides a command is in its words; some is not. Whether
// git status runs code depends on the repository's configuration, which
// the analyser finds by looking for .git directories and reads by running
// git config; whether tar -x writes a link out of the tree depends on the
// archive's members; whether pyenv runs a program depends on a version
// file. Those looks go through an [Access], so that the analysis can be
// given another one: the tests install a recording or refusing one and
// see every outside access an analysis makes, and that an access refused
// makes the analysis ask rather than allow.
//
// [System] is the real implementation. It reads files without blocking
// (a FIFO is refused, not waited on), stats without allocating, and
// stamps what it stats with the file's version, so that callers may
// remember a verdict until the file changes.
//
// Not behind Access: the path resolution and secret checks of package
// internal/pathpolicy, which keep their own cache of what they learned.
package outside

import (
	"errors"
	"io"
	"io/fs"

	"github.com/toolscope/toolscope/internal/dirsnap"
)

// Access is the analyser's view of the world outside the command line.
// Errors are those of the operating system (errors.Is(err,
// fs.ErrNotExist) holds for a missing file); an implementation that
// refuses an access returns any other error, and the analyser then treats
// what it could not see as unsafe.
type Access interface {
	// Stat describes path, following a final symbolic link if follow.
	Stat(path string, follow bool) (Info, error)
	// Readlink returns the target of the symbolic link path.
	Readlink(path string) (string, error)
	// ReadFile reads the regular file path if it holds at most max bytes
	// ([ErrNotSmallRegular] otherwise), without waiting on a FIFO. With
	// follow false, a final symbolic link fails (ELOOP where the system
	// can tell).
	ReadFile(path string, max int64, follow bool) ([]byte, error)
	// Open opens the regular file path for reading ([ErrNotRegular] for
	// anything else), without waiting on a FIFO.
	Open(path string) (File, Info, error)
	// ReadDir lists the directory path, sorted by name.
	ReadDir(path string) ([]fs.DirEntry, error)
	// List lists the directory dir (at most limit entries) through the
	// process-wide cache of package internal/dirsnap.
	List(dir string, limit int) (*dirsnap.Listing, error)
	// GitConfig lists the entries of the git configuration file path as
	// git's own parser reads them, without following its includes and
	// without any other configuration.
	GitConfig(path string) ([]ConfigEntry, error)
}

// File is an opened regular file.
type File interface {
	io.ReadSeekCloser
	io.ReaderAt
}

// Info is what Stat learns of a file.
type Info struct {
	// Type is the file's type bits (fs.ModeDir, fs.ModeSymlink, 0 for a
	// regular file, fs.ModeIrregular for anything else).
	Type fs.FileMode
	Size int64
	// Stamp is the file's version (see [Stamp]); Stamped only when the
	// file has not changed in the last second (a change in the same clock
	// tick could leave the times and the size as they were): a verdict
	// on the file may be remembered only then. Off Linux nothing is
	// stamped.
	Stamp   Stamp
	Stamped bool
}

// IsDir reports a directory.
func (i Info) IsDir() bool { return i.Type == fs.ModeDir }

// IsRegular reports a regular file.
func (i Info) IsRegular() bool { return i.Type == 0 }

// ConfigEntry is one entry of a git configuration file: the key as
// section[.subsection].name (section and name in lower case) and its
// value.
type ConfigEntry struct{ Key, Value string }

// ErrNotSmallRegular is ReadFile's error for anything but a regular file
// of at most the size asked.
var ErrNotSmallRegular = errors.New("not a small regular file")

// ErrNotRegular is Open's error for anything but a regular file.
var ErrNotRegular = errors.New("not a regular file")

// System is the real Access: the operating system's file system and the
// git program found on $PATH.
type System struct{}

// ReadFile implements [Access].
func (System) ReadFile(path string, max int64, follow bool) ([]byte, error) {
	return readRegular(path, max, !follow)
}

// Open implements [Access].
func (System) Open(path string) (File, Info, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return nil, Info{}, err
	}
	return f, Info{Type: fi.Mode().Type(), Size: fi.Size()}, nil
}

// List implements [Access].
func (System) List(dir string, limit int) (*dirsnap.Listing, error) { return dirsnap.Read(dir, limit) }

// GitConfig implements [Access].
func (System) GitConfig(path string) ([]ConfigEntry, error) { return gitConfigList(path) }
