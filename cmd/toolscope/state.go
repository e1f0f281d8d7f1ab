package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// The --state file.
//
// toolscope overwrites the file after a call, so it refuses, before the
// call, a file it did not write: a state starts with "toolscope_state": 1
// (see tool.StateVersion). A file that does not exist, or is empty (as
// mktemp makes it), is a new state. A file without the marker is accepted
// only if it reads as a state of the earlier, unmarked format: an object with
// only a state's keys, whose "permissions" has a mode and rules in the object
// form. A Claude Code settings.json never does (its rules are strings and its
// mode is "defaultMode"). The file is rewritten with the marker at the next
// save. Anything else is a usage error, and the file is left as it was.

// unmarkedKeys are the keys of the state format before the marker.
var (
	unmarkedKeys      = []string{"permissions", "read_files", "tasks", "active_groups", "cwd"}
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
	if why, settings := notAState(b); why != "" {
		msg := fmt.Sprintf("--state %s is not a toolscope state file: %s. It was left untouched; give --state a file of its own (a new path, or an empty file)", path, why)
		if settings {
			msg += "; to apply the permissions of a Claude Code settings file, pass it with --config"
		}
		return nil, usageErr("%s.", msg)
	}
	if err := tool.DecodeInput(b, st); err != nil {
		return nil, usageErr("--state %s: %s", path, describe(err))
	}
	return st, nil
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
	if fi, err := os.Stat(target); err == nil && !fi.Mode().IsRegular() {
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
	probe, err := os.CreateTemp(dir, ".toolscope-probe-*")
	if err != nil {
		return "", usageErr("--state %s: cannot write in %s: %v", path, dir, pathErr(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return target, nil
}

// saveState writes st to path atomically: a temporary file in the same
// directory, synced, then renamed over path. On failure the temporary file is
// removed and path is unchanged. An existing file keeps its permission bits;
// a new one is private (0600).
func saveState(path string, st *tool.State) (err error) {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	perm := fs.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("saving the state to %s: %w", path, pathErr(err))
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("saving the state to %s: %w", path, pathErr(err))
		}
	}()
	if _, err = f.Write(append(b, '\n')); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
