package builtin

import (
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

// keep returns whether a path made while a command ran (since start) is,
// or holds, a file the file tools wrote since then.
func (w *writeLog) keep(start time.Time) func(string) bool {
	return func(p string) bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		for q, t := range w.at {
			if !t.Before(start) && pathpolicy.Within(q, p) {
				return true
			}
		}
		return false
	}
}
