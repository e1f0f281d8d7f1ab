//go:build linux

package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/toolscope/toolscope/internal/textfile"
)

// A placeholder is an empty file or directory the sandbox makes where a
// protected name does not exist, so that a read-only bind covers it and
// the command cannot create it. Each run records its placeholders in a
// journal in the sandbox's cache before making them; Close removes them
// and the journal, and a later run removes those of a run whose process is
// gone (killed before it could clean up).
type placeholder struct {
	Path     string `json:"path"`
	Dir      bool   `json:"dir"`
	Dev, Ino uint64
}

// placeholderFiles are the protected file names that get a placeholder
// when missing, besides every protected directory: the files that make a
// coding agent start processes (.mcp.json) or a shell run code on entering
// the directory (.envrc).
var placeholderFiles = []string{".mcp.json", ".envrc"}

// vcsDirs get no placeholder: an empty .git or .hg would make tools take
// the directory for a repository (go build's VCS stamping fails on one).
// A repository a command creates is reported by Created.
var vcsDirs = []string{".git", ".hg"}

// placeholderMode marks a placeholder: no access for anyone, so a tool
// outside that meets one while a command runs reads nothing from it.
const placeholderMode = 0

// makePlaceholders makes an empty placeholder for each of want (a
// directory or a file) and records the ones it made in r.places; one it
// cannot make (a missing parent, a read-only directory, a name taken
// meanwhile, no journal) stays unprotected. adopt are placeholders of
// other runs that exist now: they are recorded too, so that whichever run
// ends last removes them. All of it happens under the journals' lock,
// which Close and the sweep take too: a placeholder named in the journal
// of a live run is never removed.
func (r *Run) makePlaceholders(want, adopt []placeholder) {
	if len(want)+len(adopt) == 0 {
		return
	}
	dir := r.journalDir()
	if dir == "" || os.MkdirAll(dir, 0o700) != nil {
		return
	}
	unlock, ok := sweepLocked(dir)
	if !ok {
		return
	}
	defer unlock()
	r.journal = filepath.Join(dir, strconv.Itoa(os.Getpid())+"-"+filepath.Base(r.tmp)+".json")
	// The journal names every path before any is made: a crash between
	// leaves entries the sweep skips (no inode).
	r.places = append(slices.Clone(want), adopt...)
	if !r.writeJournal() {
		r.places, r.journal = nil, ""
		return
	}
	var keep []placeholder
	for _, x := range want {
		var err error
		if x.Dir {
			err = os.Mkdir(x.Path, placeholderMode)
		} else {
			var f *os.File
			f, err = os.OpenFile(x.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, placeholderMode)
			if err == nil {
				f.Close()
			}
		}
		if err != nil {
			continue
		}
		var st syscall.Stat_t
		if syscall.Lstat(x.Path, &st) != nil {
			continue
		}
		x.Dev, x.Ino = uint64(st.Dev), st.Ino
		keep = append(keep, x)
	}
	for _, x := range adopt {
		if ph, ok := placeholderAt(x.Path); ok && ph.Ino == x.Ino && ph.Dev == x.Dev {
			keep = append(keep, x)
			r.adopted = append(r.adopted, x.Path)
		}
	}
	r.places = keep
	r.writeJournal()
}

// placeholderAt returns the placeholder at p, if what is there looks like
// one (an empty directory or file, mode 0).
func placeholderAt(p string) (placeholder, bool) {
	var st syscall.Stat_t
	if syscall.Lstat(p, &st) != nil || st.Mode&0o7777 != placeholderMode {
		return placeholder{}, false
	}
	ph := placeholder{Path: p, Dev: uint64(st.Dev), Ino: st.Ino}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		if st.Size != 0 {
			return placeholder{}, false
		}
	case syscall.S_IFDIR:
		f, err := os.Open(p)
		if err != nil {
			// Mode 0: only root can list it; root (or the owner, with
			// CAP_DAC_READ_SEARCH) may not be us. Taken as one.
			ph.Dir = true
			return ph, true
		}
		names, _ := f.Readdirnames(1)
		f.Close()
		if len(names) > 0 {
			return placeholder{}, false
		}
		ph.Dir = true
	default:
		return placeholder{}, false
	}
	return ph, true
}

// isPlaceholder reports a placeholder this run made.
func (r *Run) isPlaceholder(p string) bool {
	for _, x := range r.places {
		if x.Path == p {
			return true
		}
	}
	return false
}

// journaledPlaceholder reports whether p is a placeholder that this run or
// another live one made: one its journal names (with its inode, once
// made). A mode-0 directory a command made, with files in it, is none.
func (r *Run) journaledPlaceholder(p string, journals *[]journal) bool {
	ph, ok := placeholderAt(p)
	dir := r.journalDir()
	if !ok || dir == "" {
		return false
	}
	for _, x := range r.places {
		if x.Path == p && x.Ino == ph.Ino && x.Dev == ph.Dev {
			return true // this run's own
		}
	}
	if *journals == nil {
		*journals = readJournals(dir)
	}
	for _, j := range *journals {
		for _, x := range j.places {
			if x.Path == p && j.alive && (x.Ino == 0 || x.Ino == ph.Ino && x.Dev == ph.Dev) {
				return true
			}
		}
	}
	return false
}

// journalDir is where the placeholders' journals are: beside the
// sandbox's cache, not in it, since sandboxed commands may write the cache
// (a command that removed the journals of live runs would have another
// run's end remove the placeholders that protect it).
func (r *Run) journalDir() string {
	if r.s.cfg.CacheDir == "" {
		return ""
	}
	return filepath.Clean(r.s.cfg.CacheDir) + ".placeholders"
}

func (r *Run) writeJournal() bool {
	b, err := json.Marshal(r.places)
	if err != nil {
		return false
	}
	// The temporary name is a journal's too: the sweep reads one that a
	// kill left behind.
	tmp := strings.TrimSuffix(r.journal, ".json") + ".tmp.json"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return false
	}
	return os.Rename(tmp, r.journal) == nil
}

// removePlaceholders removes the placeholders that are still as they were
// made (placeholderAt, the same inode): one that someone filled meanwhile
// is theirs now and stays.
func removePlaceholders(places []placeholder) {
	for i := len(places) - 1; i >= 0; i-- {
		x := places[i]
		if ph, ok := placeholderAt(x.Path); ok && x.Ino != 0 && ph.Dev == x.Dev && ph.Ino == x.Ino {
			os.Remove(x.Path) // a directory that is not empty stays
		}
	}
}

// closePlaceholders removes the run's placeholders that no other live
// run's journal names, and its journal, under the journals' lock.
func (r *Run) closePlaceholders() {
	if r.journal == "" {
		return
	}
	dir := filepath.Dir(r.journal)
	if lock, err := textfile.Lock(dir); err == nil {
		live := map[string]bool{}
		for _, j := range readJournals(dir) {
			if j.alive && j.path != r.journal {
				j.mark(live)
			}
		}
		removePlaceholders(slices.DeleteFunc(r.places, func(x placeholder) bool { return live[x.Path] }))
		os.Remove(r.journal)
		lock.Unlock()
	}
	r.journal, r.places = "", nil
}

// journal is one run's journal as read back.
type journal struct {
	path   string
	alive  bool // its process is running (or may be: a PID that is not gone)
	places []placeholder
}

func (j journal) mark(m map[string]bool) {
	for _, x := range j.places {
		m[x.Path] = true
	}
}

// readJournals reads the journals in dir, named PID-....json.
func readJournals(dir string) []journal {
	ents, _ := os.ReadDir(dir)
	var out []journal
	for _, e := range ents {
		pidStr, _, ok := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid <= 0 || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		j := journal{path: filepath.Join(dir, e.Name()), alive: pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH}
		if b, err := os.ReadFile(j.path); err == nil {
			json.Unmarshal(b, &j.places)
		}
		out = append(out, j)
	}
	return out
}

// sweepPlaceholders removes the placeholders of journals whose process is
// gone, but those a live run's journal names too, and those journals. The
// caller holds the journals' lock.
func sweepPlaceholders(dir string) {
	js := readJournals(dir)
	live := map[string]bool{}
	for _, j := range js {
		if j.alive {
			j.mark(live)
		}
	}
	for _, j := range js {
		if !j.alive {
			removePlaceholders(slices.DeleteFunc(j.places, func(x placeholder) bool { return live[x.Path] }))
			os.Remove(j.path)
		}
	}
}

// Sweep removes the placeholders that runs of processes now gone left
// behind: a toolscope killed with SIGKILL while a sandboxed command or
// server ran leaves its empty, mode-0 .claude, .vscode, .envrc, ... in
// the working directories until a run sweeps them. A program calls Sweep
// before it reads what a placeholder would hide (a user's settings under
// .claude, which a placeholder makes unreadable) without starting a run.
// It costs a directory read when there is nothing to sweep.
func (s *Sandbox) Sweep() {
	if s.cfg.CacheDir == "" {
		return
	}
	dir := filepath.Clean(s.cfg.CacheDir) + ".placeholders"
	if es, err := os.ReadDir(dir); err != nil || len(es) == 0 {
		return
	}
	if unlock, ok := sweepLocked(dir); ok {
		unlock()
	}
}

// sweepLocked takes the journals' lock in dir and sweeps the placeholders
// of runs that are gone; the caller releases the lock with unlock.
func sweepLocked(dir string) (unlock func(), ok bool) {
	lock, err := textfile.Lock(dir)
	if err != nil {
		return nil, false
	}
	sweepPlaceholders(dir)
	return lock.Unlock, true
}
