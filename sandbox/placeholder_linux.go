//go:build linux

package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
// meanwhile, no journal) stays unprotected. The journal names every
// wanted path before any exists, and is written again with the inodes of
// those made: a crash between leaves entries the sweep skips.
func (r *Run) makePlaceholders(want []placeholder) int {
	if len(want) == 0 || !r.openJournal() {
		return 0
	}
	r.places = want
	if !r.writeJournal() {
		r.places = nil
		return 0
	}
	var made []placeholder
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
		made = append(made, x)
	}
	r.places = made
	r.writeJournal()
	return len(made)
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

func (r *Run) journalDir() string {
	if r.s.cfg.CacheDir == "" {
		return ""
	}
	return filepath.Join(r.s.cfg.CacheDir, "placeholders")
}

// openJournal names this run's journal and, once per run, sweeps the
// journals of runs whose process is gone.
func (r *Run) openJournal() bool {
	dir := r.journalDir()
	if dir == "" || os.MkdirAll(dir, 0o700) != nil {
		return false
	}
	sweepPlaceholders(dir)
	r.journal = filepath.Join(dir, strconv.Itoa(os.Getpid())+"-"+filepath.Base(r.tmp)+".json")
	return true
}

func (r *Run) writeJournal() bool {
	b, err := json.Marshal(r.places)
	if err != nil {
		return false
	}
	tmp := r.journal + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return false
	}
	return os.Rename(tmp, r.journal) == nil
}

// removePlaceholders removes the run's placeholders that are still as it
// made them (an empty directory, an empty file with the same inode): one
// that someone filled meanwhile is theirs now and stays.
func removePlaceholders(places []placeholder) {
	for i := len(places) - 1; i >= 0; i-- {
		x := places[i]
		var st syscall.Stat_t
		if x.Ino == 0 || syscall.Lstat(x.Path, &st) != nil || uint64(st.Dev) != x.Dev || st.Ino != x.Ino {
			continue
		}
		if x.Dir {
			syscall.Rmdir(x.Path) // fails when not empty
		} else if st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Size == 0 && st.Mode&0o7777 == placeholderMode {
			os.Remove(x.Path)
		}
	}
}

// closePlaceholders removes the run's placeholders and its journal.
func (r *Run) closePlaceholders() {
	if r.journal == "" {
		return
	}
	removePlaceholders(r.places)
	os.Remove(r.journal)
	r.journal, r.places = "", nil
}

// sweepPlaceholders removes the placeholders of journals whose process is
// gone.
func sweepPlaceholders(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		pidStr, _, ok := strings.Cut(e.Name(), "-")
		pid, err := strconv.Atoi(pidStr)
		if !ok || err != nil || pid <= 0 || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var places []placeholder
		if json.Unmarshal(b, &places) == nil {
			removePlaceholders(places)
		}
		os.Remove(p)
	}
}

func devOf(fi os.FileInfo) uint64 { return uint64(fi.Sys().(*syscall.Stat_t).Dev) }
func inoOf(fi os.FileInfo) uint64 { return fi.Sys().(*syscall.Stat_t).Ino }
