package tool_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/tool"
)

type sessions struct {
	IDs []string `json:"ids"`
}

// Slots are typed parts of the State that round-trip through JSON; a slot
// this process does not read is kept as it was.
func TestStateSlots(t *testing.T) {
	mine := tool.NewSlot[sessions]("example.com/mcp")
	st := tool.NewState(nil)
	if v, err := mine.Get(st); err != nil || v.IDs != nil {
		t.Fatalf("unset slot: %+v %v", v, err)
	}
	mine.Set(st, sessions{IDs: []string{"a", "b"}})
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	// Another process with an unknown slot of its own in the file.
	var m map[string]any
	json.Unmarshal(b, &m)
	m["slots"].(map[string]any)["other.org/agent"] = map[string]any{"turn": 7}
	b, _ = json.Marshal(m)

	back := tool.NewState(nil)
	if err := tool.DecodeInput(b, back); err != nil {
		t.Fatal(err)
	}
	if v, err := mine.Get(back); err != nil || strings.Join(v.IDs, ",") != "a,b" {
		t.Errorf("after the round trip: %+v %v", v, err)
	}
	again, _ := json.Marshal(back)
	if !strings.Contains(string(again), `"other.org/agent":{"turn":7}`) {
		t.Errorf("an unknown slot was dropped: %s", again)
	}
	wrong := tool.NewSlot[int]("other.org/agent")
	if _, err := wrong.Get(back); err == nil {
		t.Error("a slot read as the wrong type gave no error")
	}
	if !strings.Contains(string(again), `"turn":7`) {
		t.Error("a failed Get changed the slot")
	}
}
