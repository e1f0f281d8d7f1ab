// Package dirsnap lists directories through a process-wide cache that a
// single stat of the directory validates.
//
// Judging one command line lists and inspects the same few directories
// (the project root, src, the directories a glob or a recursive read
// walks) as every command before it. Reading a directory costs an open,
// two getdents and a close; checking that a remembered listing is still
// right costs one stat: a directory's change time moves with every entry
// created, removed or renamed in it, and no process can set it back.
//
// A listing is remembered only when that argument holds:
//
//   - the file system is one whose directories keep a change time
//     (ext4, xfs, btrfs, tmpfs, overlayfs, f2fs, zfs, bcachefs), never
//     procfs, sysfs, a network or a FUSE file system;
//   - the directory's change time was at least a second old when it was
//     read, so that a change in the same clock tick as the read cannot
//     leave the time as it was (git's "racy" entries, the same problem).
//
// The stamp compared is the device, inode, link count, size, and the
// modification and change times (to the nanosecond). Elsewhere than
// Linux nothing is remembered.
package dirsnap

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"sync"
	"sync/atomic"
)

// Listing is what a directory held: its entries' names, sorted, and their
// types (the fs.ModeType bits, 0 for a regular file). A Listing is shared:
// never modify it.
type Listing struct {
	Names []string
	Types []fs.FileMode

	// Exact reports that the directory finds a name only when its bytes
	// are equal to an entry's: no name missing from Names can be opened
	// in it. It is false for a directory that folds case (ext4's and
	// f2fs's casefold flag) and wherever that cannot be known.
	Exact bool
}

// Type returns the type of the entry name, and whether there is one.
func (l *Listing) Type(name string) (fs.FileMode, bool) {
	i := sort.SearchStrings(l.Names, name)
	if i < len(l.Names) && l.Names[i] == name {
		return l.Types[i], true
	}
	return 0, false
}

// ErrTooMany is returned (wrapped) by Read for a directory with more
// entries than its limit.
var ErrTooMany = errors.New("dirsnap: too many entries")

// Limits of the cache: listings longer than MaxCachedEntries are read but
// not kept, and the cache forgets everything when it holds more than
// maxTotal names or maxDirs directories.
const (
	MaxCachedEntries = 4096
	maxTotal         = 1 << 18
	maxDirs          = 8192
)

// reads counts the directories read (for tests).
var reads atomic.Int64

var cache struct {
	sync.Mutex
	m     map[string]entry
	total int
}

type entry struct {
	stamp stamp
	l     *Listing
	over  int // with l nil: the directory holds more than over entries
}

// Read lists dir (following links, as opening it does), through the cache
// when the directory has not changed since it was last read. A directory
// with more than limit entries (limit > 0) fails with ErrTooMany.
func Read(dir string, limit int) (*Listing, error) {
	st, cacheable, err := statDir(dir)
	if err != nil {
		return nil, err
	}
	if cacheable {
		cache.Lock()
		e, ok := cache.m[dir]
		cache.Unlock()
		switch {
		case ok && e.stamp == st && e.l != nil:
			if limit > 0 && len(e.l.Names) > limit {
				return nil, fmt.Errorf("%w: more than %d in %s", ErrTooMany, limit, dir)
			}
			return e.l, nil
		case ok && e.stamp == st && limit > 0 && limit <= e.over:
			// Known to be too large: not read again to learn it.
			return nil, fmt.Errorf("%w: more than %d in %s", ErrTooMany, limit, dir)
		}
	}
	l, fst, err := read(dir, limit)
	if errors.Is(err, ErrTooMany) && cacheable && fst.ok {
		store(dir, entry{stamp: fst.st, over: limit})
	}
	if err != nil {
		return nil, err
	}
	// The stamp kept is the one of the directory opened (the path may
	// have been made to lead elsewhere between the stat and the open).
	if cacheable && len(l.Names) <= MaxCachedEntries && fst.ok {
		store(dir, entry{stamp: fst.st, l: l})
	}
	return l, nil
}

// ReadUncached lists dir as Read does, without looking in or adding to
// the cache, and returns the stamp under which the listing stays right: a
// caller that keeps something made of the listing (a scan of a whole
// tree, whose directories would crowd the cache out) reuses it while
// StampOf of a new stat of dir equals that stamp. The stamp equals none
// where the listing may not be relied on (see the package doc).
func ReadUncached(dir string) (*Listing, Stamp, error) {
	return read(dir, 0)
}

// Cached returns the listing of dir remembered under the stamp the caller
// just read (see Stat), without reading the directory.
func Cached(dir string, s Stamp) (*Listing, bool) {
	if !s.ok {
		return nil, false
	}
	cache.Lock()
	e, ok := cache.m[dir]
	cache.Unlock()
	if !ok || e.stamp != s.st || e.l == nil {
		return nil, false
	}
	return e.l, true
}

// Stamp is a directory's identity and change times, as Stat read them.
type Stamp struct {
	st stamp
	ok bool // the directory may be cached
}

// Dev and Ino identify the directory (0 where unknown).
func (s Stamp) Dev() uint64 { return s.st.dev }

// Ino: see Dev.
func (s Stamp) Ino() uint64 { return s.st.ino }

// Stat reads dir's stamp (following links), for Cached.
func Stat(dir string) (Stamp, error) {
	st, ok, err := statDir(dir)
	return Stamp{st, ok}, err
}

func store(dir string, e entry) {
	cache.Lock()
	defer cache.Unlock()
	if old, ok := cache.m[dir]; ok {
		cache.total -= old.size()
	}
	if cache.m == nil || len(cache.m) >= maxDirs || cache.total+e.size() > maxTotal {
		cache.m = map[string]entry{}
		cache.total = 0
	}
	cache.m[dir] = e
	cache.total += e.size()
}

// size is what an entry counts against maxTotal.
func (e entry) size() int {
	if e.l == nil {
		return 1
	}
	return len(e.l.Names)
}

// read lists dir, sorted, with the stamp of the directory it opened, taken
// before its entries were read (ok only if the listing may be kept).
func read(dir string, limit int) (*Listing, Stamp, error) {
	reads.Add(1)
	f, err := openDir(dir)
	if err != nil {
		return nil, Stamp{}, err
	}
	defer f.Close()
	fst, exact := settledStamp(f)
	var ents []fs.DirEntry
	for {
		batch, err := f.ReadDir(256)
		ents = append(ents, batch...)
		if limit > 0 && len(ents) > limit {
			// The stamp says what was found too large.
			return nil, fst, fmt.Errorf("%w: more than %d in %s", ErrTooMany, limit, dir)
		}
		if errors.Is(err, io.EOF) || err == nil && len(batch) == 0 {
			break
		}
		if err != nil {
			return nil, Stamp{}, err
		}
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	l := &Listing{Names: make([]string, len(ents)), Types: make([]fs.FileMode, len(ents)), Exact: exact}
	for i, e := range ents {
		l.Names[i], l.Types[i] = e.Name(), e.Type()
	}
	return l, fst, nil
}
