package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

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

// loadState reads the --state file into a state.
func loadState(path string) (*tool.State, error) {
	st := tool.NewState(nil)
	if path == "" {
		return st, nil
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return st, nil
	case err != nil:
		return nil, usageErr("--state %s: cannot read it: %v", path, pathErr(err))
	case fi.IsDir():
		return nil, usageErr("--state %s is a directory; give the path of a file", path)
	case !fi.Mode().IsRegular():
		return nil, usageErr("--state %s is not a regular file; give the path of a file", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErr("--state %s: cannot read it: %v", path, pathErr(err))
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return st, nil
	}
	what, fresh := "--state "+path, "give --state a new path"
	b, sealed, err := openSealed(b, what, fresh)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(b, []byte(`"toolscope_state"`)) && !json.Valid(b) {
		// A state file, damaged (an earlier version's racing saves could
		// leave trailing bytes): not a usage error, and not overwritten.
		err := tool.DecodeInput(b, tool.NewState(nil))
		return nil, fmt.Errorf("--state %s is a toolscope state file that cannot be read: %s. It was left as it was; to start fresh, move it away (or delete it) or give --state a new path: the files read and the tasks it recorded are then forgotten", path, describe(err))
	}
	if why, settings := notAState(b); why != "" {
		msg := fmt.Sprintf("--state %s is not a toolscope state file: %s. It was left untouched; give --state a file of its own (a new path, or an empty file)", path, why)
		if settings {
			msg += "; to apply the permissions of a Claude Code settings file, pass it with --config"
		}
		return nil, usageErr("%s.", msg)
	}
	if !sealed {
		if err := unsealedGrants(b, what, fresh); err != nil {
			return nil, err
		}
	}
	if err := tool.DecodeInput(b, st); err != nil {
		return nil, usageErr("--state %s: %s", path, describe(err))
	}
	return st, nil
}

// loaded is the --state file as one call sees it.
type loaded struct {
	st        *tool.State
	base      []byte              // the state as loaded, for the merge at save
	persisted *permission.Context // the state's own permissions
	effective *permission.Context // persisted, with the config's and the flags'
}

// loadLocked loads the state file again for one call (see setup.statePath),
// with the permissions of the config and the flags over its own. With lock
// set it first takes the lock on the file's directory, and returns it held
// for the caller to save under and release; on error nothing stays locked.
func (s *setup) loadLocked(c *common, lock bool) (*loaded, *textfile.DirLock, error) {
	var l *textfile.DirLock
	if lock {
		var err error
		if l, err = textfile.Lock(filepath.Dir(s.statePath)); err != nil {
			return nil, nil, fmt.Errorf("locking the state %s: %w", s.statePath, err)
		}
	}
	st, err := loadState(s.statePath)
	var base []byte
	if err == nil {
		base, err = json.Marshal(st)
	}
	var pc *permission.Context
	if err == nil {
		pc, err = s.cfg.context(st.Permissions(), c, nil, io.Discard)
	}
	if err != nil {
		l.Unlock()
		return nil, nil, err
	}
	ld := &loaded{st: st, base: base, persisted: st.Permissions(), effective: pc}
	st.SetPermissions(pc)
	return ld, l, nil
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
		return "", usageErr("--state %s is a symbolic link to a missing file; give the path of a file", path)
	}
	var size int64 // of the state as it is
	if fi, err := os.Stat(target); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	} else if err == nil {
		if fi.IsDir() {
			return "", usageErr("--state %s is a directory; give the path of a file", path)
		}
		return "", usageErr("--state %s is not a regular file; give the path of a file", path)
	}
	dir := filepath.Dir(target)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return "", usageErr("--state %s: its directory %s does not exist (%v)", path, dir, pathErr(err))
	case !fi.IsDir():
		return "", usageErr("--state %s: %s is not a directory", path, dir)
	}
	probe, err := textfile.CreateTemp(dir, "probe")
	if err != nil {
		return "", usageErr("--state %s: cannot write in %s: %v", path, dir, pathErr(err))
	}
	defer os.Remove(probe.Name())
	defer probe.Close()
	// Saving writes the new state beside the old one: reserve room for a
	// copy of it and a margin, so that a call does not run (and change a
	// file) when its state could then not be saved.
	need := size + stateMargin
	if err := reserve(probe, need); err != nil {
		return "", usageErr("--state %s: %s has no room to save the state (%d bytes needed): %v; free space there or give --state a path elsewhere", path, dir, need, pathErr(err))
	}
	return target, nil
}

// stateMargin is the room a save needs beyond the state's present size.
const stateMargin = 256 << 10

// saveState writes st to path atomically (textfile.WriteAtomic: a
// temporary file of its own, synced, renamed over path; nothing is left on
// failure). An existing file keeps its permission bits; a new one is
// private (0600).
//
// Several toolscope processes may share one state file. Under the
// directory's lock, saveState reads the file as it is now and merges: what
// this run changed since it loaded the state (base) replaces what is
// there, record by record (read files by path, tasks by id; the
// permissions, groups and working directory as wholes), and everything
// else another run saved meanwhile is kept.
func saveState(path string, base []byte, st *tool.State) (err error) {
	return saveStateLocked(path, base, st, nil)
}

// saveStateLocked is saveState under a lock on the state file's directory
// that the caller already holds (nil: saveState takes it).
func saveStateLocked(path string, base []byte, st *tool.State, lock *textfile.DirLock) (err error) {
	ours, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if lock == nil {
		if lock, err = textfile.Lock(filepath.Dir(path)); err != nil {
			return fmt.Errorf("saving the state to %s: %w", path, err)
		}
		defer lock.Unlock()
	}
	out := st
	if theirs, rerr := os.ReadFile(path); rerr == nil && len(bytes.TrimSpace(theirs)) > 0 && base != nil {
		// Only what another toolscope run sealed is merged; anything else
		// (a file an agent wrote over the state) is replaced.
		theirs, sealed, rerr := openSealed(theirs, "", "")
		if merged, ok := tool.MergeStateJSON(base, ours, theirs); rerr == nil && sealed && ok {
			m := tool.NewState(nil)
			if tool.DecodeInput(merged, m) == nil {
				out = m
			}
		}
	}
	pretty, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	if err := writeSealed(path, pretty, &textfile.WriteOptions{Perm: 0o600, Locked: lock}); err != nil {
		return fmt.Errorf("saving the state to %s: %w", path, pathErr(err))
	}
	return nil
}
