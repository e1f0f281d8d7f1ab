package host

import (
	"bytes"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/toolscope/toolscope/internal/textfile"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// The --state file.
//
// toolscope overwrites the file after a call, so it refuses, before the
// call, a file it did not write: a state starts with "toolscope_state" (2,
// see tool.StateVersion). A file that does not exist, or is empty (as
// mktemp makes it), is a new state. A file without the marker is accepted
// only if it reads as a state of the earlier, unmarked format: an object with
// only a state's keys, whose "permissions" has a mode and rules in the object
// form. A Claude Code settings.json never does (its rules are strings and its
// mode is "defaultMode"). The file is rewritten with the marker at the next
// save. Anything else is a usage error, and the file is left as it was.

// unmarkedKeys are the keys of the state format before the marker.
var (
	unmarkedKeys      = []string{"permissions", "read_files", "tasks", "active_groups", "cwd", "slots"}
	unmarkedPermsKeys = []string{"mode", "working_dirs", "allow", "deny", "ask"}
)

// readState reads the state file at path into a state. It returns also
// the file as read and its content (without the seal), nil for a new
// state.
func readState(path string, prev *lastLoad) (st *tool.State, file fileImage, body []byte, err error) {
	st, file, body, err = readStateFile(path, prev)
	if err != nil || body == nil {
		return st, fileImage{}, nil, err
	}
	return st, file, body, nil
}

// lastLoad is a state file as a load read it (its bytes are never
// changed), for the next load of the same file to compare the file with
// instead of reading it anew: when it is the same, byte for byte, its
// content (body) and whether its seal verified (under key) are known.
type lastLoad struct {
	file      fileImage
	body, key []byte
}

// readStateFile is readState; prev is the file as an earlier load read
// it (nil: none), compared with the file instead of a new copy read.
func readStateFile(path string, prev *lastLoad) (*tool.State, fileImage, []byte, error) {
	st := tool.NewState(nil)
	none := fileImage{}
	if path == "" {
		return st, none, nil, nil
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return st, none, nil, nil
	case err != nil:
		return nil, none, nil, errorf("--state %s: cannot read it: %v", path, pathErr(err))
	case fi.IsDir():
		return nil, none, nil, errorf("--state %s is a directory; give the path of a file", path)
	case !fi.Mode().IsRegular():
		return nil, none, nil, errorf("--state %s is not a regular file; give the path of a file", path)
	}
	var prevFile fileImage
	if prev != nil {
		prevFile = prev.file
	}
	file, same, err := readIfChanged(path, prevFile)
	if err != nil {
		return nil, none, nil, errorf("--state %s: cannot read it: %v", path, pathErr(err))
	}
	if file.empty() {
		return st, none, nil, nil
	}
	what, fresh := "--state "+path, "give --state a new path"
	var b []byte
	var sealed bool
	if key, kerr := sealKey(); same && prev.key != nil && kerr == nil && hmac.Equal(key, prev.key) {
		// The file the last load read and verified, byte for byte, under
		// the same key: its seal can only verify again.
		b, sealed = prev.body, true
	} else if b, sealed, err = openImage(file, what, fresh); err != nil {
		return nil, none, nil, err
	}
	// A state this program wrote and sealed is read once, its slots
	// decoded when used; anything else is checked through and through,
	// to say what is wrong with it.
	if sealed && (bytes.HasPrefix(b, []byte("{\n  \"toolscope_state\":")) || bytes.HasPrefix(b, []byte(`{"toolscope_state":`))) {
		if tool.UnmarshalStateFile(b, st) == nil {
			return st, file, b, nil
		}
		st = tool.NewState(nil)
	}
	if bytes.Contains(b, []byte(`"toolscope_state"`)) && !json.Valid(b) {
		// A state file, damaged (an earlier version's racing saves could
		// leave trailing bytes): not a usage error, and not overwritten.
		err := tool.DecodeInput(b, tool.NewState(nil))
		return nil, none, nil, fmt.Errorf("--state %s is a toolscope state file that cannot be read: %s. It was left as it was; to start fresh, move it away (or delete it) or give --state a new path: the files read and the tasks it recorded are then forgotten", path, describe(err))
	}
	if why, settings := notAState(b); why != "" {
		msg := fmt.Sprintf("--state %s is not a toolscope state file: %s. It was left untouched; give --state a file of its own (a new path, or an empty file)", path, why)
		if settings {
			msg += "; to apply the permissions of a Claude Code settings file, pass it with --config"
		}
		return nil, none, nil, errorf("%s.", msg)
	}
	if !sealed {
		if err := unsealedGrants(b, what, fresh); err != nil {
			return nil, none, nil, err
		}
	}
	if err := tool.DecodeInput(b, st); err != nil {
		return nil, none, nil, errorf("--state %s: %s", path, describe(err))
	}
	return st, file, b, nil
}

// StateFile is an agent's [tool.State] kept in a file between runs, as
// toolscope call --state keeps it: the files read (so that
// read-before-write holds across calls), the tasks, the tool groups, the
// shell's directory and the permission rules the user added with
// "always". Several processes may share one file: each [Snapshot] saves
// only what changed since it was loaded, merged record by record with what
// the others saved meanwhile (see [tool.MergeStateJSON]).
//
// The file is sealed (an HMAC under a key in the user's configuration
// directory), so a file an agent wrote to grant itself permissions is
// refused, and toolscope never overwrites a file that is not a state.
type StateFile struct {
	path string // as given, for messages
	// target is where the state is read and saved once Writable checked
	// it: path, or the file a symbolic link at path points to.
	target string
	// last is the file as the last load read it, for the next load.
	mu   sync.Mutex
	last *lastLoad
}

// NewStateFile returns the state file at path. Nothing is read or checked
// until Load or Writable.
func NewStateFile(path string) *StateFile { return &StateFile{path: path, target: path} }

// Path is where the state is saved: the path given, or the file a
// symbolic link there points to once Writable checked it.
func (f *StateFile) Path() string { return f.target }

// Writable checks, before anything runs, that the state can be saved: the
// path is not a directory or a special file, its directory exists and
// takes a new file with room for the state (the probe is removed at
// once). A symbolic link is followed: saves replace the file it points
// to, not the link. The error is an [*Error].
func (f *StateFile) Writable() error {
	if f.path == "" {
		return errorf("--state: no file named; give the path of a file")
	}
	target, err := writableState(f.path)
	if err != nil {
		return err
	}
	f.target = target
	return nil
}

// Snapshot is a state as one load read it, to be changed and saved.
type Snapshot struct {
	// State is the state read (a new one when the file is missing or
	// empty).
	State *tool.State
	file  *StateFile
	// base is the state as loaded (the file's content), for the merge at
	// Save; loaded is the file as read, to tell at Save whether another
	// run saved meanwhile (nil: the file was missing or empty).
	base   []byte
	loaded fileImage
	lock   *textfile.DirLock
}

// Load reads the state. A missing or empty file is a new state; a file
// that is not a state, or that grants permissions without toolscope's
// seal, is refused with an [*Error] and left as it was.
func (f *StateFile) Load() (*Snapshot, error) {
	return f.load(nil)
}

// LoadLocked is Load under the lock of the file's directory, held until
// the snapshot is saved or released: a load, change and save that no
// other process interleaves (two TaskCreates then get distinct ids).
func (f *StateFile) LoadLocked() (*Snapshot, error) {
	l, err := textfile.Lock(filepath.Dir(f.target))
	if err != nil {
		return nil, fmt.Errorf("locking the state %s: %w", f.target, err)
	}
	s, err := f.load(l)
	if err != nil {
		l.Unlock()
		return nil, err
	}
	return s, nil
}

func (f *StateFile) load(l *textfile.DirLock) (*Snapshot, error) {
	if f.target == "" {
		return nil, errorf("--state: no file named; give the path of a file")
	}
	f.mu.Lock()
	prev := f.last
	f.mu.Unlock()
	st, loaded, base, err := readState(f.target, prev)
	if err != nil {
		return nil, err
	}
	last := &lastLoad{file: loaded, body: base}
	if loaded.body != nil || bytes.HasPrefix(loaded.rest, []byte(sealField)) {
		last.key, _ = sealKey() // the load verified its seal under this key
	}
	f.mu.Lock()
	f.last = last
	f.mu.Unlock()
	if base == nil { // a new state
		if base, err = st.MarshalFile(); err != nil {
			return nil, err
		}
	}
	return &Snapshot{State: st, file: f, base: base, loaded: loaded, lock: l}, nil
}

// Save writes the snapshot's state to its file atomically (a temporary
// file of its own, synced, renamed over the file; nothing is left on
// failure), merged with what other processes saved since the load: what
// this snapshot changed replaces what is there, record by record, and
// everything else is kept. A file that is not a sealed state is replaced.
// The lock of LoadLocked is released.
func (s *Snapshot) Save() error {
	defer s.Release()
	return saveState(s.file.target, s.base, s.loaded, s.State, s.lock)
}

// Release releases the lock of LoadLocked, if held, without saving.
func (s *Snapshot) Release() {
	if s.lock != nil {
		s.lock.Unlock()
		s.lock = nil
	}
}

// notAState says why b is not a state file, or "" when it is one, and
// whether it looks like a Claude Code settings file.
func notAState(b []byte) (why string, settings bool) {
	var top map[string]json.RawMessage
	if err := tool.DecodeInput(b, &top); err != nil {
		return describe(err), false
	}
	if _, ok := top["toolscope_state"]; ok {
		return "", false
	}
	_, settings = top["permissions"]
	why = notUnmarked(top)
	return why, settings && why != ""
}

// notUnmarked says why top is not a state of the format before the marker.
func notUnmarked(top map[string]json.RawMessage) string {
	const unmarked = `it has no "toolscope_state" marker`
	if extra := extraKeys(top, unmarkedKeys); len(extra) > 0 {
		return fmt.Sprintf("%s, and it has keys a state does not have (%s)", unmarked, strings.Join(extra, ", "))
	}
	var perms map[string]json.RawMessage
	if json.Unmarshal(top["permissions"], &perms) != nil || perms == nil {
		return unmarked + `, and no "permissions" object`
	}
	if extra := extraKeys(perms, unmarkedPermsKeys); len(extra) > 0 {
		return fmt.Sprintf("%s, and its permissions have keys a state's do not (%s)", unmarked, strings.Join(extra, ", "))
	}
	var mode string
	if json.Unmarshal(perms["mode"], &mode) != nil || mode == "" {
		return unmarked + `, and its permissions have no "mode"`
	}
	if _, err := permission.ParseMode(mode); err != nil {
		return fmt.Sprintf("%s, and its permission mode %q is not one of toolscope's", unmarked, mode)
	}
	for _, list := range []string{"allow", "deny", "ask"} {
		var rules []json.RawMessage
		if raw, ok := perms[list]; ok && json.Unmarshal(raw, &rules) != nil {
			return fmt.Sprintf("%s, and its permissions.%s is not a list", unmarked, list)
		}
		for _, r := range rules {
			if len(r) > 0 && r[0] != '{' {
				return fmt.Sprintf("%s, and its permissions.%s holds rules as strings, as a Claude Code settings file does", unmarked, list)
			}
		}
	}
	return ""
}

func extraKeys(m map[string]json.RawMessage, allowed []string) []string {
	var extra []string
	for k := range m {
		if !slices.Contains(allowed, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	return extra
}

// writableState checks, before a call runs, that the state can be saved at
// path: its directory exists and takes a new file (the probe is removed at
// once), and path is not a directory or a special file. It returns the path
// to save to: path itself, or the file a symbolic link at path points to, so
// that saving replaces the file and not the link.
func writableState(path string) (string, error) {
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	} else if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return "", errorf("--state %s is a symbolic link to a missing file; give the path of a file", path)
	}
	var size int64 // of the state as it is
	if fi, err := os.Stat(target); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	} else if err == nil {
		if fi.IsDir() {
			return "", errorf("--state %s is a directory; give the path of a file", path)
		}
		return "", errorf("--state %s is not a regular file; give the path of a file", path)
	}
	dir := filepath.Dir(target)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return "", errorf("--state %s: its directory %s does not exist (%v)", path, dir, pathErr(err))
	case !fi.IsDir():
		return "", errorf("--state %s: %s is not a directory", path, dir)
	}
	probe, err := textfile.CreateTemp(dir, "probe")
	if err != nil {
		return "", errorf("--state %s: cannot write in %s: %v", path, dir, pathErr(err))
	}
	defer os.Remove(probe.Name())
	defer probe.Close()
	// Saving writes the new state beside the old one: reserve room for a
	// copy of it and a margin, so that a call does not run (and change a
	// file) when its state could then not be saved.
	need := size + stateMargin
	if err := reserve(probe, need); err != nil {
		return "", errorf("--state %s: %s has no room to save the state (%d bytes needed): %v; free space there or give --state a path elsewhere", path, dir, need, pathErr(err))
	}
	return target, nil
}

// stateMargin is the room a save needs beyond the state's present size.
const stateMargin = 256 << 10

// saveStateLocked writes st to path atomically (textfile.WriteAtomic: a
// temporary file of its own, synced, renamed over path; nothing is left on
// failure); a new file is private to the user (0600), an existing one
// keeps its mode.
//
// Under the directory's lock (lock, or one it takes when lock is nil), it
// reads the file as it is now and merges: what this run changed since it
// loaded the state (base) replaces what is there, record by record (read
// files by path, tasks by id; the permissions, groups and working
// directory as wholes), and everything else another run saved meanwhile
// is kept.
func saveStateLocked(path string, base []byte, st *tool.State, lock *textfile.DirLock) error {
	return saveState(path, base, fileImage{}, st, lock)
}

// saveState is saveStateLocked for a state loaded from the file bytes
// loaded (nil: unknown). The file is read again under the lock and
// compared with them (readIfChanged):
//
//   - it still holds them: no other run saved since the load, and the
//     state to write is ours as it is (a merge with base itself changes
//     nothing), not checked again. A save then costs the records this
//     run changed ([tool.State.MarshalFile] copies the others as read),
//     the seal and the write. A sealed state that did not change is
//     written again as it is, without sealing it anew;
//   - it changed: what another run saved is merged with ours, as above,
//     if its seal verifies; anything else is replaced.
//
// A state that did not change is written all the same: the write is what
// tells the caller that the state could be saved.
func saveState(path string, base []byte, loaded fileImage, st *tool.State, lock *textfile.DirLock) (err error) {
	ours, err := st.MarshalFile()
	if err != nil {
		return err
	}
	if lock == nil {
		if lock, err = textfile.Lock(filepath.Dir(path)); err != nil {
			return fmt.Errorf("saving the state to %s: %w", path, err)
		}
		defer lock.Unlock()
	}
	out := ours
	opts := &textfile.WriteOptions{Perm: 0o600, Locked: lock}
	if file, same, rerr := readIfChanged(path, loaded); rerr == nil && !file.empty() && base != nil {
		switch {
		case same && file.body != nil && bytes.Equal(ours, base):
			// Nothing changed, here or by another run: the file is
			// written again as it is, its seal as the load verified it.
			if err := textfile.WriteAtomicParts(path, file.parts(), opts); err != nil {
				return fmt.Errorf("saving the state to %s: %w", path, pathErr(err))
			}
			return nil
		case same:
			// No other run saved since the load: ours is the state,
			// without a merge (a merge with base itself changes nothing).
		default:
			// Only what another toolscope run sealed is merged; anything
			// else (a file an agent wrote over the state) is replaced.
			theirs, sealed, rerr := openImage(file, "", "")
			if rerr == nil && sealed {
				if merged, ok := tool.MergeStateFile(base, ours, theirs); ok && json.Valid(merged) {
					out = merged
				}
			}
		}
	}
	if err := writeSealed(path, out, opts); err != nil {
		return fmt.Errorf("saving the state to %s: %w", path, pathErr(err))
	}
	return nil
}
