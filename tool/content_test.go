package tool

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolscope/toolscope/permission"
)

func TestResultAppend(t *testing.T) {
	r := &Result{Name: "t"}
	chunks := []*Chunk{
		{Content: []Block{{Kind: KindText, ID: "a", Text: "hel"}}},
		{Content: []Block{{Kind: KindData, ID: "img", MediaType: "image/png", Data: []byte{1, 2}}}},
		{Content: []Block{{Kind: KindText, ID: "a", Text: "lo"}}, Metadata: map[string]any{"k": 1}},
		{Content: []Block{{Kind: KindData, ID: "img", Data: []byte{3}}}, Metadata: map[string]any{"k": 2, "j": true}},
		{Content: []Block{{Kind: KindText, ID: "img", Text: "same id, other kind"}}},
		{Content: []Block{TextBlock(" tail")}},
	}
	for _, c := range chunks {
		if err := r.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	chunks[1].Content[0].Data[0] = 9 // the result holds copies
	r.Finish()
	want := &Result{Name: "t", Status: StatusSuccess, Metadata: map[string]any{"k": 2, "j": true}, Content: []Block{
		{Kind: KindText, ID: "a", Text: "hello"},
		{Kind: KindData, ID: "img", MediaType: "image/png", Data: []byte{1, 2, 3}},
		{Kind: KindText, Text: "same id, other kind tail"},
	}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Fatalf("(-want +got)\n%s", diff)
	}
	if err := (&Result{Content: []Block{{Kind: KindData, ID: "u", URL: "http://x"}}}).Append(&Chunk{Content: []Block{{Kind: KindData, ID: "u", URL: "http://y"}}}); err == nil {
		t.Fatal("two URL blocks with one id merged")
	}
	b, _ := json.Marshal(want.Content[1])
	if string(b) != `{"type":"data","id":"img","media_type":"image/png","data":"AQID"}` {
		t.Fatalf("data block JSON: %s", b)
	}
}

func TestResultStatus(t *testing.T) {
	for _, tt := range []struct {
		in   []Status
		want Status
	}{
		{nil, StatusSuccess},
		{[]Status{StatusRunning, ""}, StatusSuccess},
		{[]Status{StatusError, StatusInterrupted}, StatusError},
		{[]Status{StatusInterrupted, StatusRunning}, StatusInterrupted},
		{[]Status{StatusDenied}, StatusDenied},
		{[]Status{StatusInterrupted, StatusError}, StatusError},
	} {
		r := &Result{}
		for _, s := range tt.in {
			r.Append(&Chunk{Status: s})
		}
		r.Finish()
		if r.Status != tt.want {
			t.Errorf("%v -> %s, want %s", tt.in, r.Status, tt.want)
		}
	}
}

func TestStateJSONRoundTrip(t *testing.T) {
	s := NewState(&permission.Context{Mode: permission.AcceptEdits, WorkingDirs: []string{"/p"}})
	notes := NewSlot[[]string]("test.notes")
	notes.Set(s, []string{"a", "b"})
	s.SetActiveGroups([]string{"web"})
	s.AddRule(permission.Rule{Tool: "Bash", Content: "ls:*", Behavior: permission.Allow})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(&back)
	if string(b) != string(b2) {
		t.Fatalf("round trip:\n%s\n%s", b, b2)
	}
	if n, _ := notes.Get(&back); back.Permissions().Mode != permission.AcceptEdits || len(n) != 2 || back.ActiveGroups()[0] != "web" {
		t.Fatalf("restored: %s", b2)
	}
}
