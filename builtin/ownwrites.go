package builtin

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/toolscope/toolscope/internal/pathpolicy"
)

// ownWrites remembers the files the file tools of this process wrote
// lately (each asked for and approved, or allowed, outside any sandbox),
// so that the check after a sandboxed command, which moves aside the
// protected files made while it ran, does not take one of theirs (a
// .vscode/settings.json an approved Write made in the same turn) for the
// command's.
var ownWrites writeLog

type writeLog struct {
	mu sync.Mutex
	at map[string]ownWrite // resolved path → the write
}

// ownWrite is one write: when, and the file it left.
type ownWrite struct {
	at time.Time
	fi os.FileInfo
}

// ownWritesKept bounds how long a write is remembered: longer than any
// command runs.
const ownWritesKept = 24 * time.Hour

func (w *writeLog) add(path string) {
	now := time.Now()
	fi, err := os.Lstat(path)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at == nil {
		w.at = map[string]ownWrite{}
	}
	if len(w.at) > 1024 {
		for p, x := range w.at {
			if now.Sub(x.at) > ownWritesKept {
				delete(w.at, p)
			}
		}
	}
	w.at[path] = ownWrite{now, fi}
}

// keep returns whether a path made while a command ran (since start) is
// a file the file tools wrote since then, as they left it, or a directory
// holding nothing but such files: one that holds another file too (the
// command's, beside an approved one), or that the command wrote over, is
// not kept.
func (w *writeLog) keep(start time.Time) func(string) bool {
	return func(p string) bool {
		w.mu.Lock()
		recent := map[string]os.FileInfo{}
		for q, x := range w.at {
			if !x.at.Before(start) && pathpolicy.Within(q, p) {
				recent[q] = x.fi
			}
		}
		w.mu.Unlock()
		if len(recent) == 0 {
			return false
		}
		only, n := true, 0
		filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			n++
			if err != nil || n > 10_000 {
				only = false
				return filepath.SkipAll
			}
			if d.IsDir() {
				return nil
			}
			fi, ok := recent[q]
			now, err := os.Lstat(q)
			if !ok || err != nil || !os.SameFile(fi, now) || changed(fi, now) {
				only = false
				return filepath.SkipAll
			}
			return nil
		})
		return only
	}
}
