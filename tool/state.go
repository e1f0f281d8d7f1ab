package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolscope/toolscope/permission"
)

// State is what an agent carries from call to call: its permission context
// and the active tool groups, which the Toolkit reads, and the packages'
// own parts ([Slot]): package builtin keeps there which files were read
// (and what they looked like), the task list and the shell's working
// directory. It is safe for concurrent use, and serialises to JSON so that
// an agent can pause in one process and resume in another; the JSON form
// is marked as a state (see [StateVersion]).
type State struct {
	mu     sync.Mutex
	perms  permission.Context
	groups []string
	slots  map[string]*slotValue // see Slot
	read   *readFile             // the file UnmarshalStateFile read, in this version's layout

	// What lives with the state in this process only (see Runtime).
	runtime map[any]io.Closer
	order   []io.Closer
	closed  bool
}

// Runtime returns the value under key of the state's runtime part –
// what belongs to the agent in this process only and is never
// serialised, such as package builtin's background shells – making it
// with mk on first use. It is nil once the state is closed, and then mk
// is not called. key must be comparable (an unexported struct type).
func (s *State) Runtime(key any, mk func() io.Closer) io.Closer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	if v, ok := s.runtime[key]; ok {
		return v
	}
	v := mk()
	if s.runtime == nil {
		s.runtime = map[any]io.Closer{}
	}
	s.runtime[key] = v
	s.order = append(s.order, v)
	return v
}

// Close ends the state's runtime part: it closes every value Runtime
// made, the last made first (builtin's background shells are killed
// with their process groups), and returns their errors joined. Whoever
// owns an agent's state closes it when the agent ends: a serve session
// when it ends, a program when its agent is done. The state's slots stay
// readable and can still be saved. Calling Close again does nothing.
func (s *State) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	order := s.order
	s.runtime, s.order = nil, nil
	s.mu.Unlock()
	var errs []error
	for _, v := range slices.Backward(order) {
		errs = append(errs, v.Close())
	}
	return errors.Join(errs...)
}

// readFile is a state file as UnmarshalStateFile read it, for MarshalFile
// to give back as it is while nothing changed: its bytes, its permissions
// encoded again, its groups and its number of slots.
type readFile struct {
	file   []byte
	perms  []byte
	groups []string
	slots  int
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

// StateVersion is the format of a [State]'s JSON form. The form carries it as
// its first field, "toolscope_state", so that a program can tell a state from
// any other JSON file (a Claude Code settings.json, say) before overwriting
// it. A state of a newer format is refused; one without the field (written
// before the field existed) is read as version 1. Format 1 kept the files
// read, the tasks and the shell's directory at the top ("read_files",
// "tasks", "cwd"); format 2 keeps them in package builtin's slots, and a
// format 1 state is read into those.
const StateVersion = 2

// legacySlots are the fields of format 1 that are slots now.
var legacySlots = [...]struct{ field, slot string }{
	{"read_files", "builtin.read_files"}, {"tasks", "builtin.tasks"}, {"cwd", "builtin.cwd"},
}

type stateJSON struct {
	Version      int                `json:"toolscope_state"`
	Permissions  permission.Context `json:"permissions"`
	ActiveGroups []string           `json:"active_groups,omitempty"`
	// Slots are the packages' own parts of the state, by key (see Slot).
	Slots map[string]json.RawMessage `json:"slots,omitempty"`

	// Format 1's fields, read into slots.
	ReadFiles json.RawMessage `json:"read_files,omitempty"`
	Tasks     json.RawMessage `json:"tasks,omitempty"`
	Cwd       json.RawMessage `json:"cwd,omitempty"`
}

// MarshalJSON implements [json.Marshaler]. The object starts with
// "toolscope_state": [StateVersion].
func (s *State) MarshalJSON() ([]byte, error) {
	v, err := s.form()
	if err != nil {
		return nil, err
	}
	return json.Marshal(stateJSON{Version: StateVersion, Permissions: v.Permissions, ActiveGroups: v.ActiveGroups, Slots: v.Slots})
}

// form is the state's JSON form before its encoding: each slot as the
// JSON it was read as, unless it changed since (see slotValue).
func (s *State) form() (stateJSON, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := stateJSON{Version: StateVersion, Permissions: *s.perms.Clone(), ActiveGroups: slices.Clone(s.groups)}
	if len(s.slots) > 0 {
		v.Slots = make(map[string]json.RawMessage, len(s.slots))
		for k, sv := range s.slots {
			raw := sv.current()
			if raw == nil {
				b, err := json.Marshal(sv.value)
				if err != nil {
					return v, fmt.Errorf("state slot %q: %w", k, err)
				}
				raw = b
			}
			v.Slots[k] = raw
		}
	}
	return v, nil
}

// MarshalFile returns the state's JSON form as a state file keeps it
// (what [MergeStateFile] and [MergeStateJSON] return): indented, with a
// slot that is a list (the tasks, the files read) one element a line. A
// slot this process did not change since the state was read is written
// as it was read, without being encoded again, and so is each record of
// a [RecordSlot] that was changed record by record and not in that
// record: saving a state read from a file costs the records changed,
// and copies of the rest. A state that did not change at all since
// [UnmarshalStateFile] read it from a file of this version's format is
// that file, the same bytes (not to be changed).
func (s *State) MarshalFile() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	perms, err := json.Marshal(&s.perms)
	if err != nil {
		return nil, err
	}
	if s.unchangedLocked(perms) {
		return s.read.file, nil
	}
	f := stateForm{perms: perms}
	if len(s.groups) > 0 {
		if f.groups, err = json.Marshal(s.groups); err != nil {
			return nil, err
		}
	}
	if len(s.slots) > 0 {
		f.slots = make(map[string]json.RawMessage, len(s.slots))
	}
	for k, sv := range s.slots {
		switch {
		case sv.raw != nil:
			f.slots[k] = sv.raw
		case sv.list != nil: // valid while set: Set and Update drop it
			if f.lists == nil {
				f.lists = map[string][]json.RawMessage{}
			}
			f.lists[k] = sv.list.recs
			f.slots[k] = nil
		default:
			b, err := json.Marshal(sv.value)
			if err != nil {
				return nil, fmt.Errorf("state slot %q: %w", k, err)
			}
			f.slots[k] = b
		}
	}
	return f.layout(), nil
}

// unchangedLocked reports whether the state is still the file
// UnmarshalStateFile read, its permissions now encoded as perms: then the
// file is its form, as it is.
func (s *State) unchangedLocked(perms []byte) bool {
	r := s.read
	if r == nil || len(s.slots) != r.slots || !bytes.Equal(perms, r.perms) || !slices.Equal(s.groups, r.groups) {
		return false
	}
	for _, sv := range s.slots {
		if sv.raw == nil { // set, updated or edited since
			return false
		}
	}
	return true
}

// UnmarshalJSON implements [json.Unmarshaler]. A value of the wrong type is
// reported as an [*InputError] naming the field; a state of a format newer
// than [StateVersion] is refused.
func (s *State) UnmarshalJSON(b []byte) error { return s.unmarshal(b, true) }

// UnmarshalStateFile is json.Unmarshal(b, st) for a state file that this
// program wrote (one whose seal shows that no one else changed it): its
// slots are not decoded now, to check them, but at their first Get, so
// that loading a big state costs one reading of it and a slot that the
// run does not use (the tasks of a Bash call) is never decoded.
func UnmarshalStateFile(b []byte, st *State) error { return st.unmarshal(b, false) }

func (s *State) unmarshal(b []byte, check bool) error {
	if !check && s.unmarshalFile(b) {
		return nil
	}
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
	field := map[string]string{} // a slot's field in the JSON read
	for k := range v.Slots {
		field[k] = "slots." + k
	}
	for i, raw := range [...]json.RawMessage{v.ReadFiles, v.Tasks, v.Cwd} {
		if len(raw) == 0 || string(raw) == "null" || string(raw) == `""` {
			continue
		}
		if v.Slots == nil {
			v.Slots = map[string]json.RawMessage{}
		}
		if _, ok := v.Slots[legacySlots[i].slot]; !ok {
			v.Slots[legacySlots[i].slot] = raw
			field[legacySlots[i].slot] = legacySlots[i].field
		}
	}
	decoded := map[string]any{}
	for k, raw := range v.Slots {
		decode := slotKindOf(k).decode
		if decode == nil || !check {
			continue // no package here reads it: kept as it is
		}
		val, err := decode(raw)
		if err != nil {
			var ie *InputError
			if errors.As(err, &ie) {
				e := *ie
				e.Field = joinField(field[k], e.Field)
				return &e
			}
			return fmt.Errorf("state field %s: %w", field[k], err)
		}
		decoded[k] = val // decoded once: Get need not decode it again
	}
	s.mu.Lock()
	s.perms, s.groups = v.Permissions, v.ActiveGroups
	s.slots, s.read = nil, nil
	for k, raw := range v.Slots {
		if s.slots == nil {
			s.slots = make(map[string]*slotValue, len(v.Slots))
		}
		sv := &slotValue{raw: raw}
		if val, ok := decoded[k]; ok {
			sv.value, sv.live = val, true
		}
		s.slots[k] = sv
	}
	s.mu.Unlock()
	return nil
}

// unmarshalFile reads a state file this program wrote: split at its top,
// not checked, only the permissions and groups decoded (the slots are
// decoded at their first Get). false leaves s as it was.
func (s *State) unmarshalFile(b []byte) bool {
	f, ok := parseFile(b)
	if !ok {
		return false
	}
	var perms permission.Context
	var groups []string
	if !isNull(f.perms) && json.Unmarshal(f.perms, &perms) != nil {
		return false
	}
	if !isNull(f.groups) && json.Unmarshal(f.groups, &groups) != nil {
		return false
	}
	if perms.Mode == "" {
		perms.Mode = permission.Default
	}
	var read *readFile
	if !f.extra && bytes.HasPrefix(b, []byte(fileStart)) {
		if p, err := json.Marshal(&perms); err == nil {
			read = &readFile{file: b, perms: p, groups: groups, slots: len(f.slots)}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.perms, s.groups, s.slots, s.read = perms, groups, nil, read
	for k, raw := range f.slots {
		if s.slots == nil {
			s.slots = make(map[string]*slotValue, len(f.slots))
		}
		s.slots[k] = &slotValue{raw: raw}
	}
	return true
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
// module path) so that packages do not collide. A state read from JSON in
// a process that made the slot checks the slot's value as a T: one that
// does not decode is an [*InputError] naming it.
func NewSlot[T any](key string) Slot[T] {
	registerSlot(key, func(raw json.RawMessage) (any, error) {
		var v T
		err := decodeJSON(raw, &v)
		return v, err
	}, nil)
	return Slot[T]{key}
}

// A SlotMerge merges what one run changed in a slot into what another run
// saved meanwhile (see [MergeStateJSON]): base is the slot's JSON when
// this run started, ours its JSON now, theirs what the other run saved
// (each empty when the slot was not there). ok false keeps ours whole.
type SlotMerge func(base, ours, theirs json.RawMessage) (merged json.RawMessage, ok bool)

// slotKind is what the process knows of a slot key: how to decode a value
// read from JSON (checking it), and how to merge two runs' changes.
type slotKind struct {
	decode func(json.RawMessage) (any, error)
	merge  SlotMerge
}

var (
	slotKindsMu sync.RWMutex
	slotKinds   = map[string]slotKind{}
)

func registerSlot(key string, decode func(json.RawMessage) (any, error), merge SlotMerge) {
	slotKindsMu.Lock()
	defer slotKindsMu.Unlock()
	k := slotKinds[key]
	k.decode = decode
	if merge != nil {
		k.merge = merge
	}
	slotKinds[key] = k
}

func slotKindOf(key string) slotKind {
	slotKindsMu.RLock()
	defer slotKindsMu.RUnlock()
	return slotKinds[key]
}

// NewMergingSlot is NewSlot for a slot whose changes two runs may make at
// once and that is merged record by record, not as a whole: the owner of
// the data says how ([MergeRecords] merges lists of records by key).
func NewMergingSlot[T any](key string, merge SlotMerge) Slot[T] {
	sl := NewSlot[T](key)
	registerSlot(key, slotKindOf(key).decode, merge)
	return sl
}

func slotMerge(key string) SlotMerge { return slotKindOf(key).merge }

// Key returns the slot's key.
func (sl Slot[T]) Key() string { return sl.key }

// slotValue is a slot's value in a state. raw is the JSON it was read
// as, kept after it is decoded for as long as the value is not changed
// (Set and Update drop it), so that the state is written again without
// encoding what did not change. A value Get returns must not be changed
// in place: Set or Update it.
//
// A [RecordSlot] used record by record keeps its list in list too (the
// records as read, the changed ones encoded again): value then is the
// whole list only while live, as decoded by a Get since the last change.
type slotValue struct {
	raw   json.RawMessage // as read; nil once changed
	value any
	live  bool        // value holds the slot's value
	list  *recordList // a RecordSlot's records, once read one by one
}

// current returns the slot's JSON now: as read, or its records' (nil:
// value holds it).
func (sv *slotValue) current() json.RawMessage {
	if sv.raw != nil || sv.list == nil {
		return sv.raw
	}
	return sv.list.json()
}

// Counts of the records a RecordSlot decoded and encoded, for tests that
// check that a save costs what changed.
var recordDecodes, recordEncodes atomic.Int64

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
	return sl.getLocked(st)
}

// getLocked is Get under st's lock.
func (sl Slot[T]) getLocked(st *State) (T, error) {
	var zero T
	sv := st.slots[sl.key]
	if sv == nil {
		return zero, nil
	}
	if !sv.live {
		var v T
		if err := json.Unmarshal(sv.current(), &v); err != nil {
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

// Update replaces the slot's value in st with what fn returns, atomically:
// no other change of st comes between the value fn is given and the one
// it returns. fn must not use st. A value that does not decode as T is
// reported as an error, and fn is not called.
func (sl Slot[T]) Update(st *State, fn func(T) T) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	var cur T
	if sv := st.slots[sl.key]; sv != nil {
		if !sv.live {
			var v T
			if err := json.Unmarshal(sv.current(), &v); err != nil {
				return fmt.Errorf("state slot %q: %w", sl.key, err)
			}
			sv.value, sv.live = v, true
		}
		v, ok := sv.value.(T)
		if !ok {
			return fmt.Errorf("state slot %q holds a %T, not the type asked for", sl.key, sv.value)
		}
		cur = v
	}
	if sv := st.slots[sl.key]; sv != nil {
		sv.value, sv.raw, sv.list = fn(cur), nil, nil
		return nil
	}
	if st.slots == nil {
		st.slots = map[string]*slotValue{}
	}
	st.slots[sl.key] = &slotValue{value: fn(cur), live: true}
	return nil
}

// Delete removes the slot from st.
func (sl Slot[T]) Delete(st *State) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.slots, sl.key)
}

// joinField is the path of field inside the value at path.
func joinField(path, field string) string {
	switch {
	case field == "":
		return path
	case strings.HasPrefix(field, "["):
		return path + field
	}
	return path + "." + field
}
