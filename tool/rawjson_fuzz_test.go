package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// canon is the JSON value raw as encoding/json reads it, encoded again,
// for comparing values written in different layouts.
func canon(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("not a JSON value: %q: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// FuzzSplitJSON: on valid JSON, the splitters agree with encoding/json
// (splitArray and splitObject give its elements and members, stringField
// and fieldIs its string member); on JSON in json.Indent's layout, so do
// splitIndented; on any bytes, none panics.
func FuzzSplitJSON(f *testing.F) {
	for _, s := range []string{
		`[]`, `null`, `[1, "a", {"b": [2]}]`, `{"id":"1","x":{"id":"2"}}`, `{"a":"\"}","id":"q\\"}`,
		"{\n  \"toolscope_state\": 2,\n  \"slots\": {\n    \"k\": [\n      {\"id\":\"1\"}\n    ]\n  }\n}",
		`{"id":"\u0031","id2":1}`, `[{"id":"1"},{"id":"2"}]`, `{"a":{"b":{"c":[[],{}]}},"id":""}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		elems, okA := splitArray(b)
		members, okO := splitObject(b)
		id, okS := stringField(b, "id")
		is := fieldIs(b, "id", id)
		splitIndented(b, 1)
		splitIndented(b, 2)
		splitLines(b)
		isLined(b)
		if !json.Valid(b) {
			return
		}
		var v any
		json.Unmarshal(b, &v)
		switch x := v.(type) {
		case []any:
			if !okA || len(elems) != len(x) {
				t.Fatalf("splitArray: %v, %d elements, want %d", okA, len(elems), len(x))
			}
			for i, e := range elems {
				if canon(t, e) != mustMarshal(x[i]) {
					t.Fatalf("element %d: %s", i, e)
				}
			}
		case map[string]any:
			if !okO {
				t.Fatal("splitObject refused an object")
			}
			got := map[string]string{}
			for _, m := range members {
				got[m.key] = canon(t, m.val) // the last of a key wins, as in encoding/json
			}
			if len(got) != len(x) {
				t.Fatalf("splitObject: %d keys, want %d", len(got), len(x))
			}
			for k, want := range x {
				if got[k] != mustMarshal(want) {
					t.Fatalf("member %q: %s, want %s", k, got[k], mustMarshal(want))
				}
			}
			// The first "id" member, as stringField reads it.
			var first any
			for _, m := range members {
				if m.key == "id" {
					json.Unmarshal(m.val, &first)
					break
				}
			}
			s, isString := first.(string)
			if okS != isString || (okS && (id != s || !is)) {
				t.Fatalf("stringField: %q %v, fieldIs %v; want %q %v", id, okS, is, s, isString)
			}
			if isString && fieldIs(b, "id", s+"x") {
				t.Fatal("fieldIs of another value")
			}
		default:
			if okO && len(members) > 0 {
				t.Fatal("splitObject split a value that is not an object")
			}
		}
		// In json.Indent's layout (as json.MarshalIndent writes a state),
		// splitIndented reads the members as splitObject does.
		var ind bytes.Buffer
		json.Indent(&ind, compact(b), "", "  ")
		if m, ok := splitIndented(ind.Bytes(), 1); ok {
			want, _ := splitObject(ind.Bytes())
			if !sameMembers(t, m, want) {
				t.Fatalf("splitIndented:\n%s", ind.Bytes())
			}
		} else if _, isObj := v.(map[string]any); isObj && len(v.(map[string]any)) > 0 && !bytes.ContainsAny(ind.Bytes(), "\t\r") {
			t.Fatalf("splitIndented refused json.Indent's layout:\n%s", ind.Bytes())
		}
	})
}

// FuzzStateFileRecords: a state of records whose strings hold anything is
// written by MarshalFile (and by json.MarshalIndent, as earlier versions
// wrote it) as JSON that encoding/json reads back as the state, that
// parseFile splits as parseForm does, whose list splitLines cuts into the
// records, in which find finds each record by its id, and that a
// RecordSlot reads, changes and writes again with only the changed
// record changed.
func FuzzStateFileRecords(f *testing.F) {
	f.Add("1", "one", "2", `{"id":"1"}`, 1.5)
	f.Add(`a"b`, "line\nbreak", `\`, "<&>\u2028", -0.0)
	f.Add("", "", "x", "]\n      {", 1e300)
	f.Fuzz(func(t *testing.T, id1, s1, id2, s2 string, n float64) {
		type rec struct {
			ID   string         `json:"id"`
			Text string         `json:"text"`
			N    float64        `json:"n"`
			Sub  map[string]any `json:"sub,omitempty"`
		}
		// The strings as JSON keeps them (bytes that are not UTF-8 are
		// U+FFFD in it).
		for _, p := range []*string{&id1, &s1, &id2, &s2} {
			json.Unmarshal([]byte(mustMarshal(*p)), p)
		}
		if id1 == id2 {
			id2 += "'"
		}
		slot := NewRecordSlot[rec]("fuzz.records", "id", true)
		other := NewSlot[string]("fuzz.other")
		recs := []rec{{ID: id1, Text: s1, N: n}, {ID: id2, Text: s2, Sub: map[string]any{"id": id1, s1: []any{s2}}}, {ID: s1 + id2, Text: id1}}
		seen := map[string]bool{}
		var uniq []rec
		for _, r := range recs {
			if !seen[r.ID] {
				seen[r.ID] = true
				uniq = append(uniq, r)
			}
		}
		st := NewState(nil)
		slot.Set(st, uniq)
		other.Set(st, s2)
		file, err := st.MarshalFile()
		if err != nil {
			t.Skip(err) // a float json cannot encode
		}
		indented, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range [][]byte{file, indented} {
			if !json.Valid(b) {
				t.Fatalf("not JSON:\n%s", b)
			}
			pf, ok1 := parseFile(b)
			pg, ok2 := parseForm(b, false)
			if !ok1 || !ok2 || !reflect.DeepEqual(canonForm(t, pf), canonForm(t, pg)) {
				t.Fatalf("parseFile %v and parseForm %v differ:\n%s", ok1, ok2, b)
			}
			back := NewState(nil)
			if err := UnmarshalStateFile(b, back); err != nil {
				t.Fatal(err)
			}
			for _, r := range uniq {
				got, ok, err := slot.Record(back, r.ID)
				if err != nil || !ok || !reflect.DeepEqual(canonRec(t, got), canonRec(t, r)) {
					t.Fatalf("Record(%q) = %+v %v %v, want %+v", r.ID, got, ok, err, r)
				}
			}
			if s, _ := other.Get(back); s != s2 {
				t.Fatalf("other slot: %q", s)
			}
			// Change the first record: only its line changes.
			err = slot.Edit(back, func(r *Records[rec]) error {
				x, _, _ := r.Get(id1)
				x.Text += "!"
				return r.Put(x)
			})
			if err != nil {
				t.Fatal(err)
			}
			again, err := back.MarshalFile()
			if err != nil || !json.Valid(again) {
				t.Fatalf("written again (%v):\n%s", err, again)
			}
			all, err := slot.Get(back)
			if err != nil || len(all) != len(uniq) || all[0].Text != uniq[0].Text+"!" {
				t.Fatalf("after the change: %+v %v", all, err)
			}
			if bytes.Equal(b, file) {
				if d := lineDiff(file, again); d != 1 {
					t.Fatalf("%d lines changed, want 1:\n%s\n%s", d, file, again)
				}
			}
		}
		// The list as laid out: one record a line.
		pf, _ := parseFile(file)
		elems, _, ok := splitLines(pf.slots["fuzz.records"])
		if !ok || len(elems) != len(uniq) || !isLined(pf.slots["fuzz.records"]) {
			t.Fatalf("splitLines: %v %d:\n%s", ok, len(elems), file)
		}
		for i, e := range elems {
			var r rec
			if err := json.Unmarshal(e, &r); err != nil || r.ID != uniq[i].ID {
				t.Fatalf("line %d: %s %v", i, e, err)
			}
		}
	})
}

func mustMarshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func compact(b []byte) []byte {
	var c bytes.Buffer
	json.Compact(&c, b)
	return c.Bytes()
}

func sameMembers(t *testing.T, a, b []member) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].key != b[i].key || canon(t, a[i].val) != canon(t, b[i].val) {
			return false
		}
	}
	return true
}

func canonForm(t *testing.T, f stateForm) map[string]string {
	m := map[string]string{}
	if f.perms != nil {
		m["perms"] = canon(t, f.perms)
	}
	if f.groups != nil {
		m["groups"] = canon(t, f.groups)
	}
	for k, v := range f.slots {
		m["slot "+k] = canon(t, v)
	}
	return m
}

func canonRec(t *testing.T, v any) string { return fmt.Sprint(mustMarshal(v)) }

// lineDiff counts the lines that differ between a and b (of as many
// lines).
func lineDiff(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	if len(la) != len(lb) {
		return -1
	}
	n := 0
	for i := range la {
		if !bytes.Equal(la[i], lb[i]) {
			n++
		}
	}
	return n
}
