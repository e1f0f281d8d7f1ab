package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
)

// A RecordSlot is a [Slot] holding a list of records: JSON objects, each
// named by a string field (a task by its "id", a file read by its
// "path"). Besides the whole list (Get, Set and Update, which decode or
// encode every record), it reads and changes one record at a time,
// decoding and encoding only that record: a state of 10,000 tasks read
// from its file, one task changed and the state saved
// ([State.MarshalFile]) costs the one task, not the 10,000. The records
// the run did not change are written as they were read.
//
// Two runs' changes to the list merge record by record, as
// [MergeRecords] merges them (byField: a record both changed, field by
// field).
//
//	var tasks = tool.NewRecordSlot[Task]("example.com/tasks", "id", true)
//
//	err := tasks.Edit(st, func(r *tool.Records[Task]) error {
//		t, ok, err := r.Get("17") // decodes task 17 only
//		if err != nil || !ok {
//			return err
//		}
//		t.Status = "done"
//		return r.Put(t) // encodes task 17 only
//	})
type RecordSlot[T any] struct {
	Slot[[]T]
	field string
}

// NewRecordSlot returns the record slot under key whose records are named
// by their string field field (the JSON name).
func NewRecordSlot[T any](key, field string, byField bool) RecordSlot[T] {
	sl := NewMergingSlot[[]T](key, func(base, ours, theirs json.RawMessage) (json.RawMessage, bool) {
		return MergeRecords(base, ours, theirs, field, byField)
	})
	return RecordSlot[T]{sl, field}
}

// Record returns the record named id in st, and false when there is none.
// Only that record is decoded. The value must not be changed in place
// (its slices and maps may be shared with the state): Edit the slot.
func (rs RecordSlot[T]) Record(st *State, id string) (T, bool, error) {
	var zero T
	if st == nil {
		return zero, false, nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.slots[rs.key] == nil {
		return zero, false, nil
	}
	r, err := rs.records(st)
	if err != nil {
		return zero, false, err
	}
	return r.Get(id)
}

// All returns a copy of the records of st in their order, decoding those
// not decoded yet (a state read from a file: all of them, at once).
func (rs RecordSlot[T]) All(st *State) ([]T, error) {
	if st == nil {
		return nil, nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	sv := st.slots[rs.key]
	if sv == nil {
		return nil, nil
	}
	if sv.live || sv.raw != nil || sv.list == nil {
		// The list as read, or as set whole: decoded in one go (and kept
		// decoded), as Get does.
		all, err := rs.getLocked(st)
		return slices.Clone(all), err
	}
	r, err := rs.records(st)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, r.Len())
	for k, raw := range r.l.recs {
		if raw == nil {
			continue
		}
		v, err := r.decode(k)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Edit calls fn with the records of st, atomically: no other change of st
// comes between. The changes fn makes through r stand whether or not it
// returns an error, which Edit returns; fn must not use st, nor r after it
// returns. A list that cannot be read is reported as an error, and fn is
// not called.
func (rs RecordSlot[T]) Edit(st *State, fn func(r *Records[T]) error) error {
	if st == nil {
		return fmt.Errorf("state slot %q: no state", rs.key)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.slots == nil {
		st.slots = map[string]*slotValue{}
	}
	created := st.slots[rs.key] == nil
	if created {
		st.slots[rs.key] = &slotValue{list: &recordList{}}
	}
	r, err := rs.records(st)
	if err != nil {
		return err
	}
	err = fn(r)
	if created && r.l.live == 0 {
		delete(st.slots, rs.key) // nothing put: the slot stays unset
	}
	return err
}

// records returns the slot's records in st (whose lock is held; the slot
// is set), made from its JSON as read, or from its value.
func (rs RecordSlot[T]) records(st *State) (*Records[T], error) {
	sv := st.slots[rs.key]
	if sv.list == nil {
		var l *recordList
		switch {
		case sv.raw != nil:
			l = newRecordList(sv.raw)
		case sv.live:
			v, ok := sv.value.([]T)
			if !ok {
				return nil, fmt.Errorf("state slot %q holds a %T, not the type asked for", rs.key, sv.value)
			}
			l = &recordList{recs: make([]json.RawMessage, 0, len(v)), vals: make([]any, 0, len(v))}
			for _, x := range v {
				raw, err := json.Marshal(x)
				if err != nil {
					return nil, fmt.Errorf("state slot %q: %w", rs.key, err)
				}
				l.recs, l.vals = append(l.recs, raw), append(l.vals, x)
			}
			l.live = len(v)
		default:
			l = &recordList{}
		}
		if l == nil {
			return nil, fmt.Errorf("state slot %q: not a list of records", rs.key)
		}
		sv.list = l
	}
	return &Records[T]{l: sv.list, sv: sv, key: rs.key, field: rs.field}, nil
}

// Records is a [RecordSlot]'s list in a state, as [RecordSlot.Edit] gives
// it: read and changed record by record, each decoded when first read.
type Records[T any] struct {
	l     *recordList
	sv    *slotValue
	key   string
	field string
}

// Len returns the number of records.
func (r *Records[T]) Len() int { return r.l.live }

// Has reports whether a record is named id, without decoding any.
func (r *Records[T]) Has(id string) bool { return r.l.find(r.field, id) >= 0 }

// Get returns the record named id, and false when there is none. Only
// that record is decoded. The value must not be changed in place (its
// slices and maps may be shared with the state): Put a changed copy.
func (r *Records[T]) Get(id string) (T, bool, error) {
	k := r.l.find(r.field, id)
	if k < 0 {
		var zero T
		return zero, false, nil
	}
	v, err := r.decode(k)
	return v, err == nil, err
}

// decode returns record k decoded, from the cache when it was decoded
// before.
func (r *Records[T]) decode(k int) (T, error) {
	if r.l.vals != nil {
		if v, ok := r.l.vals[k].(T); ok {
			return v, nil
		}
	}
	var v T
	recordDecodes.Add(1)
	if err := json.Unmarshal(r.l.recs[k], &v); err != nil {
		return v, fmt.Errorf("state slot %q, record %d: %w", r.key, k+1, err)
	}
	if r.l.vals == nil {
		r.l.vals = make([]any, len(r.l.recs))
	}
	r.l.vals[k] = v
	return v, nil
}

// Put stores v, replacing the record of the same name where it is, or
// appending it. Only v is encoded. The error says that v does not encode
// as an object with a string field naming it.
func (r *Records[T]) Put(v T) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("state slot %q: %w", r.key, err)
	}
	recordEncodes.Add(1)
	id, ok := stringField(raw, r.field)
	if !ok {
		return fmt.Errorf("state slot %q: a record without the string field %q", r.key, r.field)
	}
	l := r.l
	if l.vals == nil {
		l.vals = make([]any, len(l.recs))
	}
	if k := l.find(r.field, id); k >= 0 {
		l.recs[k], l.vals[k] = raw, v
	} else {
		l.recs, l.vals = append(l.recs, raw), append(l.vals, v)
		l.live++
	}
	r.changed()
	return nil
}

// Delete removes the record named id, and reports whether there was one.
func (r *Records[T]) Delete(id string) bool {
	k := r.l.find(r.field, id)
	if k < 0 {
		return false
	}
	r.l.recs[k] = nil
	if r.l.vals != nil {
		r.l.vals[k] = nil
	}
	r.l.live--
	r.changed()
	return true
}

// IDs returns the names of the records in their order, decoding none.
func (r *Records[T]) IDs() []string {
	ids := make([]string, 0, r.l.live)
	for _, raw := range r.l.recs {
		if raw == nil {
			continue
		}
		if id, ok := stringField(raw, r.field); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// Holding returns the names of the records that hold the string s
// somewhere (as a value or a key, at any depth), in their order. It
// decodes only the records whose JSON has s between quotes or has an
// escape (which may hide s); the others cannot hold it.
func (r *Records[T]) Holding(s string) []string {
	var ids []string
	needle := append(append([]byte{'"'}, s...), '"')
	for _, raw := range r.l.recs {
		if raw == nil || (!bytes.Contains(raw, needle) && bytes.IndexByte(raw, '\\') < 0) {
			continue
		}
		var v any
		if json.Unmarshal(raw, &v) != nil || !holds(v, s) {
			continue
		}
		if id, ok := stringField(raw, r.field); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// holds reports whether the decoded JSON value v holds the string s.
func holds(v any, s string) bool {
	switch x := v.(type) {
	case string:
		return x == s
	case []any:
		for _, e := range x {
			if holds(e, s) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if k == s || holds(e, s) {
				return true
			}
		}
	}
	return false
}

// changed marks the slot changed since it was read: it is written from
// its records, not as it was read.
func (r *Records[T]) changed() {
	r.sv.raw, r.sv.value, r.sv.live = nil, nil, false
}

// recordList is a RecordSlot's list as records: each record's JSON,
// compact (nil: deleted), and its decoded value once decoded. A list read
// as [State.MarshalFile] lays a list out, one record a line, keeps the
// bytes read (src) and where each record starts in them, to find a record
// by a search of the bytes instead of a reading of each record.
type recordList struct {
	recs   []json.RawMessage
	vals   []any // nil until a record is decoded or put; vals[k] is recs[k]'s value
	live   int   // records not deleted
	src    []byte
	starts []int // of the records read from src
}

// newRecordList returns the list raw (a JSON array of objects) as
// records, or nil when it is not one.
func newRecordList(raw []byte) *recordList {
	if recs, starts, ok := splitLines(raw); ok {
		return &recordList{recs: recs, live: len(recs), src: raw, starts: starts}
	}
	elems, ok := splitArray(raw)
	if !ok {
		return nil
	}
	l := &recordList{recs: make([]json.RawMessage, len(elems)), live: len(elems)}
	for k, e := range elems {
		l.recs[k] = compactElem(e)
	}
	return l
}

// find returns the index of the record whose field is id, or -1.
func (l *recordList) find(field, id string) int {
	if n := recordNeedle(field, id); n != nil && l.src != nil {
		// The record's field as json.Marshal writes it: found in the
		// bytes read, then checked (the text may be in a nested object).
		for off := 0; off < len(l.src); {
			p := bytes.Index(l.src[off:], n)
			if p < 0 {
				break
			}
			p += off
			k := sort.SearchInts(l.starts, p+1) - 1
			if k >= 0 && l.recs[k] != nil && fieldIs(l.recs[k], field, id) {
				return k
			}
			off = p + 1
		}
	}
	for k, raw := range l.recs {
		if raw != nil && fieldIs(raw, field, id) {
			return k
		}
	}
	return -1
}

// json returns the list as a JSON array.
func (l *recordList) json() json.RawMessage {
	size := 2
	for _, raw := range l.recs {
		size += len(raw) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, '[')
	n := 0
	for _, raw := range l.recs {
		if raw == nil {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, raw...)
		n++
	}
	return append(out, ']')
}

// recordNeedle is `"field":"id"`, as json.Marshal writes the member, when
// neither holds a byte json.Marshal escapes; nil otherwise.
func recordNeedle(field, id string) []byte {
	for _, s := range [...]string{field, id} {
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c < 0x20, c == '"', c == '\\', c == '<', c == '>', c == '&', c == 0xe2: // 0xe2: U+2028, U+2029
				return nil
			}
		}
	}
	n := make([]byte, 0, len(field)+len(id)+5)
	n = append(n, '"')
	n = append(n, field...)
	n = append(n, `":"`...)
	n = append(n, id...)
	return append(n, '"')
}
