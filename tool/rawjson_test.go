package tool_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/toolscope/toolscope/tool"
)

// MarshalFile's layout is JSON that reads back as the state, whatever the
// strings of its records hold (quotes, backslashes, brackets, line
// breaks), and a merge of it with itself changes nothing.
func TestMarshalFileLayout(t *testing.T) {
	type rec struct {
		ID   string `json:"id"`
		Text string `json:"text"`
		Tags []any  `json:"tags,omitempty"`
	}
	list := tool.NewMergingSlot[[]rec]("example.com/records", func(b, o, th json.RawMessage) (json.RawMessage, bool) {
		return tool.MergeRecords(b, o, th, "id", true)
	})
	odd := tool.NewSlot[map[string]any]("example.com/odd\"key")
	st := tool.NewState(nil)
	want := []rec{
		{ID: `a"1`, Text: `ends with a backslash \`, Tags: []any{"]", "}", map[string]any{"x": `\"`}}},
		{ID: "b\n2", Text: "line\nbreak, <html> & \u2028"},
		{ID: "3", Text: `[{"nested":"json"}]`, Tags: []any{1.5, true, nil, []any{}}},
	}
	list.Set(st, want)
	odd.Set(st, map[string]any{"k": []any{"v", 2.0}})
	b, err := st.MarshalFile()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatalf("not JSON:\n%s", b)
	}
	for _, read := range []func([]byte, *tool.State) error{tool.UnmarshalStateFile, func(b []byte, st *tool.State) error { return json.Unmarshal(b, st) }} {
		back := tool.NewState(nil)
		if err := read(b, back); err != nil {
			t.Fatal(err)
		}
		if got, err := list.Get(back); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("read back: %+v %v", got, err)
		}
		if got, err := odd.Get(back); err != nil || got["k"].([]any)[0] != "v" {
			t.Errorf("read back: %+v %v", got, err)
		}
		again, err := back.MarshalFile()
		if err != nil || string(again) != string(b) {
			t.Errorf("written again differently (%v):\n%s\nwas\n%s", err, again, b)
		}
	}
	m, ok := tool.MergeStateFile(b, b, b)
	if !ok || string(m) != string(b) {
		t.Errorf("merged with itself (%v):\n%s", ok, m)
	}
}
