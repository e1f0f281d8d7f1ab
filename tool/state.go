package tool

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/toolscope/toolscope/permission"
)

// MaxReadFiles bounds the read cache of a [State]: past it, the least recently
// used record is dropped (a later Edit of that file then needs a new Read).
const MaxReadFiles = 100

// State is what an agent carries from call to call: its permission context,
// which files it has read (and what they looked like), its tasks, the active
// tool groups and the shell's working directory. It is safe for concurrent
// use, and serialises to JSON so that an agent can pause in one process and
// resume in another; the JSON form is marked as a state (see [StateVersion]).
type State struct {
	mu     sync.Mutex
	perms  permission.Context
	files  []FileRecord // least recently used first
	tasks  []Task
	groups []string
	cwd    string
}

// FileRecord is what a tool saw of a file when it last read or wrote it. Write
// and Edit compare it with the disk to refuse changing a file that changed
// behind the agent's back.
type FileRecord struct {
	// Path is canonical: absolute, symbolic links resolved.
	Path    string    `json:"path"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	// SHA256 is the hex digest of the whole content, "" if it was not hashed
	// (a file too large to hash cheaply).
	SHA256 string `json:"sha256,omitempty"`
	// Whole reports that the agent saw the entire file, not a slice of it.
	Whole bool `json:"whole,omitempty"`
}

// Task is one item of an agent's task list.
type Task struct {
	ID          string         `json:"id"`
	Subject     string         `json:"subject"`
	Description string         `json:"description"`
	Status      string         `json:"status"`
	Owner       string         `json:"owner,omitempty"`
	Blocks      []string       `json:"blocks,omitempty"`
	BlockedBy   []string       `json:"blocked_by,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	CreatedAt   time.Time      `json:"created_at"`
}

// NewState returns a state with the given permission context (nil: Default
// mode, no rules).
func NewState(pc *permission.Context) *State {
	s := &State{}
	if pc != nil {
		s.perms = *pc.Clone()
	}
	if s.perms.Mode == "" {
		s.perms.Mode = permission.Default
	}
	return s
}

// Permissions returns a copy of the permission context.
func (s *State) Permissions() *permission.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.perms.Clone()
}

// SetPermissions replaces the permission context with a copy of pc.
func (s *State) SetPermissions(pc *permission.Context) {
	c := pc.Clone()
	s.mu.Lock()
	s.perms = *c
	s.mu.Unlock()
}

// AddRule adds a rule to the permission context, as when the user answers
// "always allow". A rule the context already has (same tool, content and
// behavior) is not added again; see [permission.Context.AddRule].
func (s *State) AddRule(r permission.Rule) {
	s.mu.Lock()
	s.perms.AddRule(r)
	s.mu.Unlock()
}

// ActiveGroups returns the names of the active tool groups (besides "basic").
func (s *State) ActiveGroups() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.groups)
}

// SetActiveGroups replaces the set of active tool groups.
func (s *State) SetActiveGroups(names []string) {
	s.mu.Lock()
	s.groups = slices.Clone(names)
	s.mu.Unlock()
}

// Cwd returns the shell's working directory ("" until a tool sets it).
func (s *State) Cwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// SetCwd records the shell's working directory.
func (s *State) SetCwd(dir string) {
	s.mu.Lock()
	s.cwd = dir
	s.mu.Unlock()
}

// LastRead returns the record of the file at canonical path, and marks it
// recently used.
func (s *State) LastRead(path string) (FileRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.files, func(r FileRecord) bool { return r.Path == path })
	if i < 0 {
		return FileRecord{}, false
	}
	r := s.files[i]
	s.files = append(slices.Delete(s.files, i, i+1), r)
	return r, true
}

// RecordRead stores rec, replacing an older record of the same path, and
// drops the least recently used records beyond [MaxReadFiles].
func (s *State) RecordRead(rec FileRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files = slices.DeleteFunc(s.files, func(r FileRecord) bool { return r.Path == rec.Path })
	if n := len(s.files) + 1 - MaxReadFiles; n > 0 {
		s.files = slices.Delete(s.files, 0, n)
	}
	s.files = append(s.files, rec)
}

// ForgetRead drops the record of path.
func (s *State) ForgetRead(path string) {
	s.mu.Lock()
	s.files = slices.DeleteFunc(s.files, func(r FileRecord) bool { return r.Path == path })
	s.mu.Unlock()
}

// Tasks returns a copy of the task list.
func (s *State) Tasks() []Task {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tasks)
}

// UpdateTasks replaces the task list with what fn returns, atomically.
func (s *State) UpdateTasks(fn func(tasks []Task) []Task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tasks = fn(slices.Clone(s.tasks))
}

// StateVersion is the format of a [State]'s JSON form. The form carries it as
// its first field, "toolscope_state", so that a program can tell a state from
// any other JSON file (a Claude Code settings.json, say) before overwriting
// it. A state of a newer format is refused; one without the field (written
// before the field existed) is read as version 1.
const StateVersion = 1

type stateJSON struct {
	Version      int                `json:"toolscope_state"`
	Permissions  permission.Context `json:"permissions"`
	ReadFiles    []FileRecord       `json:"read_files,omitempty"`
	Tasks        []Task             `json:"tasks,omitempty"`
	ActiveGroups []string           `json:"active_groups,omitempty"`
	Cwd          string             `json:"cwd,omitempty"`
}

// MarshalJSON implements [json.Marshaler]. The object starts with
// "toolscope_state": [StateVersion].
func (s *State) MarshalJSON() ([]byte, error) {
	s.mu.Lock()
	v := stateJSON{StateVersion, s.perms, s.files, s.tasks, s.groups, s.cwd}
	b, err := json.Marshal(v)
	s.mu.Unlock()
	return b, err
}

// UnmarshalJSON implements [json.Unmarshaler]. A value of the wrong type is
// reported as an [*InputError] naming the field; a state of a format newer
// than [StateVersion] is refused.
func (s *State) UnmarshalJSON(b []byte) error {
	var v stateJSON
	if err := decodeJSON(b, &v); err != nil {
		return err
	}
	if v.Version > StateVersion {
		return &InputError{Field: "toolscope_state", Err: fmt.Errorf("the state has format %d, which is newer than this version of toolscope reads (%d)", v.Version, StateVersion)}
	}
	if v.Version < 0 {
		return &InputError{Field: "toolscope_state", Want: fmt.Sprintf("a format version from 1 to %d", StateVersion), Got: fmt.Sprint(v.Version)}
	}
	if v.Permissions.Mode == "" {
		v.Permissions.Mode = permission.Default
	}
	if len(v.ReadFiles) > MaxReadFiles {
		v.ReadFiles = v.ReadFiles[len(v.ReadFiles)-MaxReadFiles:]
	}
	s.mu.Lock()
	s.perms, s.files, s.tasks, s.groups, s.cwd = v.Permissions, v.ReadFiles, v.Tasks, v.ActiveGroups, v.Cwd
	s.mu.Unlock()
	return nil
}
