package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// StreamBatch shows each call's chunks and result as they come, with
// CallBatch's scheduling: after a call that asks, later calls are pending.
func TestStreamBatch(t *testing.T) {
	asking := echoTool("ask")
	asking.perm = permission.Decision{Behavior: permission.Passthrough}
	asking.info.ConcurrencySafe = false
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{echoTool("echo"), asking}})
	st := tool.NewState(&permission.Context{Mode: permission.Default, Allow: []permission.Rule{{Tool: "echo", Behavior: permission.Allow}}})
	calls := []*tool.Call{
		{ID: "a", Name: "echo", Input: json.RawMessage(`{"text":"one"}`), State: st},
		{ID: "b", Name: "echo", Input: json.RawMessage(`{"text":"two"}`), State: st},
		{ID: "c", Name: "ask", Input: json.RawMessage(`{"text":"?"}`), State: st},
		{ID: "d", Name: "echo", Input: json.RawMessage(`{"text":"later"}`), State: st},
	}
	results := make([]*tool.Result, len(calls))
	chunks := make([]int, len(calls))
	for ev := range tk.StreamBatch(context.Background(), calls) {
		switch {
		case ev.Result != nil:
			if results[ev.Index] != nil {
				t.Errorf("call %d ended twice", ev.Index)
			}
			results[ev.Index] = ev.Result
		case ev.Chunk != nil:
			if results[ev.Index] != nil {
				t.Errorf("a chunk of call %d after its result", ev.Index)
			}
			chunks[ev.Index]++
		}
	}
	want := []tool.Status{tool.StatusSuccess, tool.StatusSuccess, tool.StatusAsking, tool.StatusPending}
	for i, r := range results {
		if r == nil || r.Status != want[i] {
			t.Errorf("call %d: %+v, want %s", i, r, want[i])
		}
	}
	if chunks[0] == 0 || chunks[1] == 0 || results[0].Text() != "one" {
		t.Errorf("chunks %v, first result %q", chunks, results[0].Text())
	}
	// Stopping early ends the iteration without leaking.
	n := 0
	for range tk.StreamBatch(context.Background(), calls) {
		if n++; n == 1 {
			break
		}
	}
}
