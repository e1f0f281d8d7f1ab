package builtin

import (
	"io/fs"
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
	at map[string]time.Time // resolved path → when written
}

// ownWritesKept bounds how long a write is remembered: longer than any
// command runs.
const ownWritesKept = 24 * time.Hour

func (w *writeLog) add(path string) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at == nil {
		w.at = map[string]time.Time{}
	}
	if len(w.at) > 1024 {
		for p, t := range w.at {
			if now.Sub(t) > ownWritesKept {
				delete(w.at, p)
			}
		}
	}
	w.at[path] = now
}

// keep returns whether a path made while a command ran (since start) is
// a file the file tools wrote since then, or a directory holding nothing
// but such files: one that holds another file too (the command's, beside
// an approved one) is not kept.
func (w *writeLog) keep(start time.Time) func(string) bool {
	return func(p string) bool {
		w.mu.Lock()
		recent := map[string]bool{}
		for q, t := range w.at {
			if !t.Before(start) && pathpolicy.Within(q, p) {
				recent[q] = true
			}
		}
		w.mu.Unlock()
		if len(recent) == 0 {
			return false
		}
		only, n := true, 0
		filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			n++
			if err != nil || n > 10_000 || !d.IsDir() && !recent[q] {
				only = false
				return filepath.SkipAll
			}
			return nil
		})
		return only
	}
}
