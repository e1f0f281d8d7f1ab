package tool

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
)

// MergeStateJSON merges what one run changed into a state another run
// saved meanwhile: base is the state (as JSON) this run started from, ours
// what it has now, theirs what is there now. The result is theirs with
// every change from base to ours made to it:
//
//   - each slot ([Slot]) where this run changed it: by the merge its
//     owner gave ([NewMergingSlot]; package builtin merges the files read
//     by path and the tasks by id and field by field), else as a whole;
//   - the permissions and the active groups, each as a whole, where this
//     run changed it.
//
// What this run did not change is theirs. ok is false when one of the
// three cannot be read as a state (a caller then keeps ours as it is).
// The result is laid out as [State.MarshalFile] lays a state out.
func MergeStateJSON(base, ours, theirs []byte) ([]byte, bool) {
	if !json.Valid(base) || !json.Valid(ours) || !json.Valid(theirs) {
		return nil, false
	}
	return mergeForms(base, ours, theirs)
}

// MergeStateFile is [MergeStateJSON] for a state file shared by several
// runs, at the cost of what changed: base is the file's content as this
// run loaded it (and decoded it, which checked it), ours what
// [State.MarshalFile] gives now, theirs the file's content now. Neither
// base nor ours is checked again, and theirs only when it is not base
// byte for byte (no other run saved meanwhile); the records the runs did
// not change are compared and copied as the bytes they were read as.
func MergeStateFile(base, ours, theirs []byte) ([]byte, bool) {
	if !bytes.Equal(theirs, base) && !json.Valid(theirs) {
		return nil, false
	}
	return mergeForms(base, ours, theirs)
}

// stateForm is a state's JSON split at its top, each part as written, in
// this version's form (format 1's fields moved into their slots).
type stateForm struct {
	perms, groups json.RawMessage // nil when absent
	slots         map[string]json.RawMessage
	// lists are slots given as their elements (nil ones left out), for
	// layout: a RecordSlot's records (their slots' JSON is nil).
	lists map[string][]json.RawMessage
	// extra: the state read had members besides this version's (format
	// 1's fields, moved into slots; or others, dropped).
	extra bool
}

// fileStart is how a state file in this version's format starts, as
// layout (and json.MarshalIndent) writes it.
var fileStart = "{\n  \"toolscope_state\": " + strconv.Itoa(StateVersion) + ",\n  \"permissions\": "

// parseForm splits the JSON state b (valid JSON); marked asks for the
// "toolscope_state" marker.
func parseForm(b []byte, marked bool) (stateForm, bool) {
	return parseFormWith(b, marked, func(raw []byte, _ int) ([]member, bool) { return splitObject(raw) })
}

// parseFile is parseForm for a state file that toolscope wrote: laid
// out by State.MarshalFile or an earlier version's json.MarshalIndent,
// its members and slots are found by their lines (splitIndented at depth
// 1 and 2) instead of by reading every value through. Another layout is
// read as parseForm reads it.
func parseFile(b []byte) (stateForm, bool) {
	return parseFormWith(b, false, func(raw []byte, depth int) ([]member, bool) {
		if m, ok := splitIndented(raw, depth); ok {
			return m, true
		}
		return splitObject(raw)
	})
}

// parseFormWith is parseForm splitting objects with split (depth 1: the
// state, 2: its slots).
func parseFormWith(b []byte, marked bool, split func(raw []byte, depth int) ([]member, bool)) (stateForm, bool) {
	var f stateForm
	top, ok := split(b, 1)
	if !ok {
		return f, false
	}
	version := 0
	var legacy [len(legacySlots)]json.RawMessage
	for _, m := range top {
		switch m.key {
		case "toolscope_state":
			if json.Unmarshal(m.val, &version) != nil || version > StateVersion || version < 0 {
				return f, false
			}
			marked = false
		case "permissions":
			f.perms = m.val
		case "active_groups":
			f.groups = m.val
		case "slots":
			slots, ok := split(m.val, 2)
			if !ok {
				return f, false
			}
			f.slots = make(map[string]json.RawMessage, len(slots))
			for _, s := range slots {
				f.slots[s.key] = s.val
			}
		default:
			f.extra = true
			for i, l := range legacySlots {
				if m.key == l.field {
					legacy[i] = m.val
				}
			}
		}
	}
	if marked {
		return f, false
	}
	for i, raw := range legacy {
		if s := string(bytes.TrimSpace(raw)); s == "" || s == "null" || s == `""` {
			continue
		}
		if f.slots == nil {
			f.slots = map[string]json.RawMessage{}
		}
		if _, ok := f.slots[legacySlots[i].slot]; !ok {
			f.slots[legacySlots[i].slot] = raw
		}
	}
	return f, true
}

// mergeForms is MergeStateJSON on valid JSON.
func mergeForms(base, ours, theirs []byte) ([]byte, bool) {
	b, ok1 := parseForm(base, false)
	o, ok2 := parseForm(ours, false)
	if !ok1 || !ok2 {
		return nil, false
	}
	var t stateForm
	if bytes.Equal(theirs, base) && bytes.Contains(base, []byte(`"toolscope_state"`)) {
		// No other run saved: theirs is base (its slots copied: the merge
		// changes them).
		t = stateForm{perms: b.perms, groups: b.groups, slots: maps.Clone(b.slots)}
	} else if t, ok1 = parseForm(theirs, true); !ok1 {
		return nil, false
	}
	if !rawEqual(o.perms, b.perms) {
		t.perms = o.perms
	}
	if !rawEqual(o.groups, b.groups) {
		t.groups = o.groups
	}
	// Slots (tool.Slot) slot by slot: ours where this run changed it.
	if t.slots == nil {
		t.slots = map[string]json.RawMessage{}
	}
	for k, ov := range o.slots {
		bv := b.slots[k]
		if bytes.Equal(ov, bv) {
			continue // the slot as loaded: not changed by this run
		}
		if merge := slotMerge(k); merge != nil {
			if m, ok := merge(bv, ov, t.slots[k]); ok {
				if len(m) == 0 {
					delete(t.slots, k)
				} else {
					t.slots[k] = m
				}
				continue
			}
		} else if rawEqual(ov, bv) {
			continue
		}
		t.slots[k] = ov
	}
	for k := range b.slots {
		if _, kept := o.slots[k]; !kept {
			delete(t.slots, k)
		}
	}
	return t.layout(), true
}

// layout writes the state f as a state file keeps it: indented as
// json.MarshalIndent would, except that a slot that is a list has one
// element a line, compact, so that a record the runs did not change is
// copied as it was read.
func (f stateForm) layout() []byte {
	size := len(f.perms) + len(f.groups) + 64
	for k, v := range f.slots {
		size += len(k) + len(v) + 16
	}
	for _, elems := range f.lists {
		for _, e := range elems {
			size += len(e) + len(lineIndent) + 2
		}
	}
	out := make([]byte, 0, size+size/8)
	out = append(out, "{\n  \"toolscope_state\": "...)
	out = strconv.AppendInt(out, StateVersion, 10)
	// member writes a member at depth 1 (prefix "  ") or 2 ("    ").
	member := func(key string, raw json.RawMessage, prefix string, first bool) {
		if !first {
			out = append(out, ',')
		}
		out = append(out, "\n"+prefix...)
		k, _ := json.Marshal(key)
		out = append(out, k...)
		out = append(out, ": "...)
		var buf bytes.Buffer
		if json.Indent(&buf, raw, prefix, "  ") == nil {
			out = append(out, buf.Bytes()...)
		} else {
			out = append(out, raw...)
		}
	}
	perms := f.perms
	if isNull(perms) {
		perms = json.RawMessage(`{"mode":"default"}`)
	}
	member("permissions", perms, "  ", false)
	if !isNull(f.groups) && string(bytes.TrimSpace(f.groups)) != "[]" {
		member("active_groups", f.groups, "  ", false)
	}
	if len(f.slots) == 0 {
		return append(out, "\n}"...)
	}
	out = append(out, ",\n  \"slots\": {"...)
	for i, k := range slices.Sorted(maps.Keys(f.slots)) {
		v := f.slots[k]
		elems, listed := f.lists[k]
		if listed && !slices.ContainsFunc(elems, func(e json.RawMessage) bool { return e != nil }) {
			elems, v = nil, json.RawMessage("[]")
		}
		if !listed && isLined(v) {
			// Laid out as it is (a list read from a state file and not
			// changed): copied.
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, "\n    "...)
			kq, _ := json.Marshal(k)
			out = append(out, kq...)
			out = append(out, ": "...)
			out = append(out, v...)
			continue
		}
		ok := true
		if !listed {
			elems, ok = splitArray(v)
		}
		if !ok || len(elems) == 0 {
			member(k, v, "    ", i == 0)
		} else {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, "\n    "...)
			kq, _ := json.Marshal(k)
			out = append(out, kq...)
			out = append(out, ": ["...)
			j := 0
			for _, e := range elems {
				if e == nil {
					continue // a record deleted
				}
				if j > 0 {
					out = append(out, ',')
				}
				j++
				out = append(out, "\n"+lineIndent...)
				out = appendCompact(out, e)
			}
			out = append(out, "\n    ]"...)
		}
	}
	return append(out, "\n  }\n}"...)
}

// appendCompact appends the JSON value v without its insignificant
// whitespace (copied as it is when it has none: no line break, as this
// package writes values).
func appendCompact(out []byte, v []byte) []byte {
	if bytes.IndexByte(v, '\n') < 0 {
		return append(out, v...)
	}
	buf := bytes.NewBuffer(out)
	if json.Compact(buf, v) != nil {
		return append(out, v...)
	}
	return buf.Bytes()
}

// compactElem is e without line breaks and indentation, for comparing
// records written compact with ones an earlier version indented.
func compactElem(e json.RawMessage) json.RawMessage {
	if bytes.IndexByte(e, '\n') < 0 {
		return e
	}
	return appendCompact(nil, e)
}

func isNull(raw json.RawMessage) bool {
	s := bytes.TrimSpace(raw)
	return len(s) == 0 || string(s) == "null"
}

// MergeRecords merges lists of JSON objects identified by the field key,
// for a [SlotMerge]: theirs,
// with every element this run added, changed or removed (from base to
// ours) changed the same way; the changed ones move to the end (the read
// records are least recently used first). With byField, an element both
// runs kept is merged field by field: the fields this run changed take its
// values, the others keep theirs (one run set a task's status, the other
// its owner: both stand).
//
// The lists are valid JSON, as a SlotMerge is given them. An element is
// compared as the bytes it was written as first, and decoded only when
// those differ, so a merge costs the reading of the lists and the
// decoding of what changed.
func MergeRecords(base, ours, theirs json.RawMessage, key string, byField bool) (json.RawMessage, bool) {
	type elem struct {
		id  string
		raw json.RawMessage
	}
	parse := func(r json.RawMessage) ([]elem, bool) {
		list, ok := splitArray(r)
		if !ok {
			return nil, false
		}
		out := make([]elem, 0, len(list))
		for _, e := range list {
			id, ok := stringField(e, key)
			if !ok {
				return nil, false
			}
			out = append(out, elem{id, compactElem(e)})
		}
		return out, true
	}
	bl, ok1 := parse(base)
	ol, ok2 := parse(ours)
	tl, ok3 := parse(theirs)
	if !ok1 || !ok2 || !ok3 {
		return nil, false
	}
	bm := make(map[string]json.RawMessage, len(bl))
	for _, e := range bl {
		bm[e.id] = e.raw
	}
	om := make(map[string]bool, len(ol))
	for _, e := range ol {
		om[e.id] = true
	}
	changed := map[string]bool{}
	for _, e := range ol {
		if old, ok := bm[e.id]; !ok || !rawEqual(old, e.raw) {
			changed[e.id] = true
		}
	}
	for id := range bm {
		if !om[id] {
			changed[id] = true // removed by this run
		}
	}
	tm := make(map[string]json.RawMessage, len(tl))
	for _, e := range tl {
		tm[e.id] = e.raw
	}
	size := 2
	for _, e := range tl {
		size += len(e.raw) + 1
	}
	out := make([]byte, 0, size+size/16)
	n := 0
	add := func(raw json.RawMessage) {
		if n == 0 {
			out = append(out, '[')
		} else {
			out = append(out, ',')
		}
		out = append(out, raw...)
		n++
	}
	for _, e := range tl {
		if !changed[e.id] {
			add(e.raw)
		}
	}
	for _, e := range ol {
		if !changed[e.id] {
			continue
		}
		raw := e.raw
		if old, inBase := bm[e.id]; byField && inBase {
			if cur, kept := tm[e.id]; kept {
				raw = mergeFields(old, raw, cur)
			}
		}
		add(raw)
	}
	if n == 0 {
		return nil, true
	}
	return append(out, ']'), true
}

// mergeFields merges one object field by field: theirs, with the fields
// that changed from base to ours set (or removed) as in ours. Objects that
// do not read as such give ours.
func mergeFields(base, ours, theirs json.RawMessage) json.RawMessage {
	var b, o, t map[string]json.RawMessage
	if json.Unmarshal(base, &b) != nil || json.Unmarshal(ours, &o) != nil || json.Unmarshal(theirs, &t) != nil || t == nil {
		return ours
	}
	for k, v := range o {
		if !rawEqual(v, b[k]) {
			t[k] = v
		}
	}
	for k := range b {
		if _, kept := o[k]; !kept {
			delete(t, k)
		}
	}
	if raw, err := json.Marshal(t); err == nil {
		return raw
	}
	return ours
}

func rawEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// MergeStates is [MergeStateJSON] on states: theirs with the changes from
// base to ours. When theirs cannot be merged, it is ours.
func MergeStates(base, ours, theirs *State) (*State, error) {
	b, err := json.Marshal(base)
	if err != nil {
		return nil, err
	}
	o, err := json.Marshal(ours)
	if err != nil {
		return nil, err
	}
	t, err := json.Marshal(theirs)
	if err != nil {
		return nil, err
	}
	merged, ok := MergeStateJSON(b, o, t)
	if !ok {
		return ours, nil
	}
	st := NewState(nil)
	if err := json.Unmarshal(merged, st); err != nil {
		return nil, err
	}
	return st, nil
}
