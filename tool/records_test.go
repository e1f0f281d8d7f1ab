package tool_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/tool"
)

type note struct {
	ID   string   `json:"id"`
	Text string   `json:"text"`
	Refs []string `json:"refs,omitempty"`
}

var notes = tool.NewRecordSlot[note]("example.com/notes", "id", true)

// A RecordSlot reads, changes, adds and deletes records one at a time,
// and agrees with the slot's whole value (Get, Set, Update) before and
// after a round trip through a state file, in this version's layout and
// in the indented one earlier versions wrote.
func TestRecordSlot(t *testing.T) {
	empty := tool.NewState(nil)
	if err := notes.Edit(empty, func(r *tool.Records[note]) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if b, _ := empty.MarshalFile(); strings.Contains(string(b), "example.com/notes") {
		t.Errorf("an Edit that put nothing set the slot:\n%s", b)
	}
	want := []note{{ID: "1", Text: "one"}, {ID: `q"2`, Text: "two <b>", Refs: []string{"1"}}, {ID: "3", Text: `{"id":"1"}`}}
	st := tool.NewState(nil)
	notes.Set(st, want)
	file, err := st.MarshalFile()
	if err != nil {
		t.Fatal(err)
	}
	indented, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"layout": file, "indented": indented, "compact": must(json.Marshal(st))} {
		t.Run(name, func(t *testing.T) {
			st := tool.NewState(nil)
			if err := tool.UnmarshalStateFile(b, st); err != nil {
				t.Fatal(err)
			}
			for _, n := range want {
				if got, ok, err := notes.Record(st, n.ID); err != nil || !ok || !reflect.DeepEqual(got, n) {
					t.Errorf("Record(%q) = %+v %v %v", n.ID, got, ok, err)
				}
			}
			if _, ok, err := notes.Record(st, "9"); ok || err != nil {
				t.Errorf("Record of a missing id: %v %v", ok, err)
			}
			err := notes.Edit(st, func(r *tool.Records[note]) error {
				if r.Len() != 3 || !r.Has("3") || r.Has("4") {
					t.Errorf("Len %d, Has 3 %v, Has 4 %v", r.Len(), r.Has("3"), r.Has("4"))
				}
				if ids := r.IDs(); !slices.Equal(ids, []string{"1", `q"2`, "3"}) {
					t.Errorf("IDs: %q", ids)
				}
				// "1" is held by q"2's refs (and by 3's text, as text only).
				if h := r.Holding("1"); !slices.Equal(h, []string{"1", `q"2`}) {
					t.Errorf("Holding(1): %q", h)
				}
				n, _, _ := r.Get("1")
				n.Text = "ONE"
				if err := r.Put(n); err != nil {
					return err
				}
				if !r.Delete(`q"2`) || r.Delete("nope") {
					t.Error("Delete")
				}
				return r.Put(note{ID: "4", Text: "four"})
			})
			if err != nil {
				t.Fatal(err)
			}
			after := []note{{ID: "1", Text: "ONE"}, want[2], {ID: "4", Text: "four"}}
			if got, err := notes.Get(st); err != nil || !reflect.DeepEqual(got, after) {
				t.Errorf("Get after Edit: %+v %v", got, err)
			}
			if got, err := notes.All(st); err != nil || !reflect.DeepEqual(got, after) {
				t.Errorf("All after Edit: %+v %v", got, err)
			}
			saved, err := st.MarshalFile()
			if err != nil || !json.Valid(saved) {
				t.Fatalf("MarshalFile: %v\n%s", err, saved)
			}
			back := tool.NewState(nil)
			if err := json.Unmarshal(saved, back); err != nil {
				t.Fatal(err)
			}
			if got, _ := notes.Get(back); !reflect.DeepEqual(got, after) {
				t.Errorf("saved: %+v", got)
			}
			// The whole value changed, then record by record again.
			notes.Update(back, func(ns []note) []note { return append(slices.Clone(ns), note{ID: "5"}) })
			if n, ok, _ := notes.Record(back, "5"); !ok || n.ID != "5" {
				t.Error("a record set through Update is not found")
			}
		})
	}
}

// Reading one record of a state file decodes that record only, and a
// save after changing one encodes that one only: the others are copied
// as read, line for line.
func TestBigStateRecordDecodes(t *testing.T) {
	const n = 2000
	list := make([]note, n)
	for i := range list {
		list[i] = note{ID: fmt.Sprint(i + 1), Text: fmt.Sprintf("note %d", i+1)}
	}
	st := tool.NewState(nil)
	notes.Set(st, list)
	file, err := st.MarshalFile()
	if err != nil {
		t.Fatal(err)
	}
	loaded := tool.NewState(nil)
	if err := tool.UnmarshalStateFile(file, loaded); err != nil {
		t.Fatal(err)
	}
	dec, enc := tool.RecordCounts()
	if got, ok, err := notes.Record(loaded, "1500"); err != nil || !ok || got.Text != "note 1500" {
		t.Fatalf("Record: %+v %v %v", got, ok, err)
	}
	err = notes.Edit(loaded, func(r *tool.Records[note]) error {
		x, _, err := r.Get("700")
		if err != nil {
			return err
		}
		x.Text = "changed"
		return r.Put(x)
	})
	if err != nil {
		t.Fatal(err)
	}
	saved, err := loaded.MarshalFile()
	if err != nil {
		t.Fatal(err)
	}
	dec2, enc2 := tool.RecordCounts()
	if dec2-dec != 2 || enc2-enc != 1 {
		t.Errorf("reading one record, changing another and saving decoded %d records and encoded %d, want 2 and 1", dec2-dec, enc2-enc)
	}
	was, now := strings.Split(string(file), "\n"), strings.Split(string(saved), "\n")
	if len(was) != len(now) {
		t.Fatalf("%d lines, then %d", len(was), len(now))
	}
	for i := range was {
		if was[i] != now[i] && !strings.Contains(now[i], `"changed"`) {
			t.Errorf("line %d changed:\n%s\n%s", i+1, was[i], now[i])
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
