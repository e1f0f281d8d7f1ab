package tool

import (
	"bytes"
	"encoding/json"
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
func MergeStateJSON(base, ours, theirs []byte) ([]byte, bool) {
	// Each in this version's form (a state of format 1 has its files read
	// and tasks at the top; they are slots now).
	var forms [3][]byte
	for i, x := range [3][]byte{base, ours, theirs} {
		var probe map[string]json.RawMessage
		if json.Unmarshal(x, &probe) != nil {
			return nil, false
		}
		if _, ok := probe["toolscope_state"]; !ok && i == 2 {
			return nil, false
		}
		st := NewState(nil)
		if err := json.Unmarshal(x, st); err != nil {
			return nil, false
		}
		f, err := json.Marshal(st)
		if err != nil {
			return nil, false
		}
		forms[i] = f
	}
	var b, o, t map[string]json.RawMessage
	if json.Unmarshal(forms[0], &b) != nil || json.Unmarshal(forms[1], &o) != nil || json.Unmarshal(forms[2], &t) != nil {
		return nil, false
	}
	out := map[string]json.RawMessage{}
	for k, v := range t {
		out[k] = v
	}
	for _, k := range []string{"toolscope_state", "permissions", "active_groups"} {
		if !rawEqual(o[k], b[k]) {
			setOrDelete(out, k, o[k])
		}
	}
	// Slots (tool.Slot) slot by slot: ours where this run changed it.
	var bs, os_, ts map[string]json.RawMessage
	json.Unmarshal(b["slots"], &bs)
	json.Unmarshal(o["slots"], &os_)
	json.Unmarshal(t["slots"], &ts)
	if ts == nil {
		ts = map[string]json.RawMessage{}
	}
	for k := range os_ {
		if rawEqual(os_[k], bs[k]) {
			continue
		}
		if merge := slotMerge(k); merge != nil {
			if m, ok := merge(bs[k], os_[k], ts[k]); ok {
				if len(m) == 0 {
					delete(ts, k)
				} else {
					ts[k] = m
				}
				continue
			}
		}
		ts[k] = os_[k]
	}
	for k := range bs {
		if _, kept := os_[k]; !kept {
			delete(ts, k)
		}
	}
	if len(ts) > 0 {
		if raw, err := json.Marshal(ts); err == nil {
			out["slots"] = raw
		}
	} else {
		delete(out, "slots")
	}
	res, err := json.Marshal(out)
	return res, err == nil
}

// MergeRecords merges lists of JSON objects identified by the field key,
// for a [SlotMerge]: theirs,
// with every element this run added, changed or removed (from base to
// ours) changed the same way; the changed ones move to the end (the read
// records are least recently used first). With byField, an element both
// runs kept is merged field by field: the fields this run changed take its
// values, the others keep theirs (one run set a task's status, the other
// its owner: both stand).
func MergeRecords(base, ours, theirs json.RawMessage, key string, byField bool) (json.RawMessage, bool) {
	type elem struct {
		id  string
		raw json.RawMessage
	}
	parse := func(r json.RawMessage) ([]elem, bool) {
		if len(r) == 0 || string(r) == "null" {
			return nil, true
		}
		var list []json.RawMessage
		if json.Unmarshal(r, &list) != nil {
			return nil, false
		}
		out := make([]elem, 0, len(list))
		for _, e := range list {
			var m map[string]json.RawMessage
			var id string
			if json.Unmarshal(e, &m) != nil || json.Unmarshal(m[key], &id) != nil {
				return nil, false
			}
			out = append(out, elem{id, e})
		}
		return out, true
	}
	bl, ok1 := parse(base)
	ol, ok2 := parse(ours)
	tl, ok3 := parse(theirs)
	if !ok1 || !ok2 || !ok3 {
		return nil, false
	}
	bm := map[string]json.RawMessage{}
	for _, e := range bl {
		bm[e.id] = e.raw
	}
	om := map[string]json.RawMessage{}
	for _, e := range ol {
		om[e.id] = e.raw
	}
	changed := map[string]bool{}
	for _, e := range ol {
		if old, ok := bm[e.id]; !ok || !rawEqual(old, e.raw) {
			changed[e.id] = true
		}
	}
	for id := range bm {
		if _, ok := om[id]; !ok {
			changed[id] = true // removed by this run
		}
	}
	tm := map[string]json.RawMessage{}
	for _, e := range tl {
		tm[e.id] = e.raw
	}
	var out []json.RawMessage
	for _, e := range tl {
		if !changed[e.id] {
			out = append(out, e.raw)
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
		out = append(out, raw)
	}
	if len(out) == 0 {
		return nil, true
	}
	r, err := json.Marshal(out)
	return r, err == nil
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
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func setOrDelete(m map[string]json.RawMessage, k string, v json.RawMessage) {
	if len(v) == 0 || string(v) == "null" {
		delete(m, k)
		return
	}
	m[k] = v
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
