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
	slots  map[string]*slotValue // see Slot
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
	// Slots are the packages' own parts of the state, by key (see Slot).
	Slots map[string]json.RawMessage `json:"slots,omitempty"`
}

// MarshalJSON implements [json.Marshaler]. The object starts with
// "toolscope_state": [StateVersion].
func (s *State) MarshalJSON() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := stateJSON{StateVersion, s.perms, s.files, s.tasks, s.groups, s.cwd, nil}
	if len(s.slots) > 0 {
		v.Slots = make(map[string]json.RawMessage, len(s.slots))
		for k, sv := range s.slots {
			raw := sv.raw
			if sv.live {
				b, err := json.Marshal(sv.value)
				if err != nil {
					return nil, fmt.Errorf("state slot %q: %w", k, err)
				}
				raw = b
			}
			v.Slots[k] = raw
		}
	}
	return json.Marshal(v)
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
	s.slots = nil
	for k, raw := range v.Slots {
		if s.slots == nil {
			s.slots = make(map[string]*slotValue, len(v.Slots))
		}
		s.slots[k] = &slotValue{raw: raw}
	}
	s.mu.Unlock()
	return nil
}

// A Slot is a typed part of a [State] that a package owns (an MCP client's
// sessions, a skill's data, an agent's memory), under a key of its own. It
// travels with the state's JSON form; a slot no package reads in this
// process (its key unknown here) is kept as it was, never dropped.
//
//	var notes = tool.NewSlot[[]string]("example.com/notes")
//	notes.Set(st, append(notes.Get(st), "remember this"))
type Slot[T any] struct{ key string }

// NewSlot returns the slot under key. Use a key that names its owner (a
// module path) so that packages do not collide.
func NewSlot[T any](key string) Slot[T] { return Slot[T]{key} }

// Key returns the slot's key.
func (sl Slot[T]) Key() string { return sl.key }

type slotValue struct {
	raw   json.RawMessage // as read, until decoded
	value any
	live  bool // value holds the slot's value
}

// Get returns the slot's value in st (the zero T when unset). A value read
// from JSON is decoded at the first Get; one that does not decode as T is
// reported as an error and left as it was.
func (sl Slot[T]) Get(st *State) (T, error) {
	var zero T
	if st == nil {
		return zero, nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	sv := st.slots[sl.key]
	if sv == nil {
		return zero, nil
	}
	if !sv.live {
		var v T
		if err := json.Unmarshal(sv.raw, &v); err != nil {
			return zero, fmt.Errorf("state slot %q: %w", sl.key, err)
		}
		sv.value, sv.live = v, true
	}
	v, ok := sv.value.(T)
	if !ok {
		return zero, fmt.Errorf("state slot %q holds a %T, not the type asked for", sl.key, sv.value)
	}
	return v, nil
}

// Set stores v as the slot's value in st.
func (sl Slot[T]) Set(st *State, v T) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.slots == nil {
		st.slots = map[string]*slotValue{}
	}
	st.slots[sl.key] = &slotValue{value: v, live: true}
}

// Delete removes the slot from st.
func (sl Slot[T]) Delete(st *State) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.slots, sl.key)
}
