package textfile

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"
)

// Check-and-replace is one step for every toolscope writer.
//
// A tool that edits a file checks that the file is the version the agent
// read, computes the new content and renames it into place. Two writers
// that interleave those steps both pass the check and the second rename
// silently drops the first writer's change. [Lock] makes the steps one:
// it takes a lock on the directory that holds the file, which every
// toolscope writer (goroutines of one process, and other processes, by
// flock(2) on the directory) takes before its check and keeps until its
// rename is done.
//
// The lock is advisory: other programs do not take it. WriteAtomic's
// Verify hook narrows their window to the instant between a last check
// and the rename.

// LockWait bounds how long [Lock] waits for another writer.
var LockWait = 30 * time.Second

// ErrLockTimeout is returned (wrapped) by [Lock] when another writer held
// the directory for longer than [LockWait].
var ErrLockTimeout = errors.New("another writer holds the directory")

// A DirLock is a held lock on a directory; Unlock releases it.
type DirLock struct {
	dir     string
	shared  bool // the lock holds across processes (flock), not only in this one
	release func()
	once    sync.Once
}

// Dir returns the locked directory.
func (l *DirLock) Dir() string { return l.dir }

// Unlock releases the lock. It may be called more than once.
func (l *DirLock) Unlock() {
	if l != nil {
		l.once.Do(l.release)
	}
}

var procLocks = struct {
	sync.Mutex
	m map[string]*procLock
}{m: map[string]*procLock{}}

type procLock struct {
	ch   chan struct{} // holds one token when free
	refs int
}

// Lock locks dir (an existing directory) for a check-and-replace of a
// file in it. It waits at most [LockWait].
func Lock(dir string) (*DirLock, error) {
	dir = canonicalDir(dir)
	procLocks.Lock()
	pl := procLocks.m[dir]
	if pl == nil {
		pl = &procLock{ch: make(chan struct{}, 1)}
		pl.ch <- struct{}{}
		procLocks.m[dir] = pl
	}
	pl.refs++
	procLocks.Unlock()
	drop := func() {
		procLocks.Lock()
		if pl.refs--; pl.refs == 0 {
			delete(procLocks.m, dir)
		}
		procLocks.Unlock()
	}
	deadline := time.NewTimer(LockWait)
	defer deadline.Stop()
	select {
	case <-pl.ch:
	case <-deadline.C:
		drop()
		return nil, fmt.Errorf("locking %s: %w (waited %s)", dir, ErrLockTimeout, LockWait)
	}
	releaseOS, shared, err := lockOS(dir, deadline.C)
	if err != nil {
		pl.ch <- struct{}{}
		drop()
		return nil, err
	}
	return &DirLock{dir: dir, shared: shared, release: func() {
		releaseOS()
		pl.ch <- struct{}{}
		drop()
	}}, nil
}

// canonicalDir is dir with its links resolved, so that every spelling of a
// directory takes the same lock.
func canonicalDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return filepath.Clean(dir)
}
