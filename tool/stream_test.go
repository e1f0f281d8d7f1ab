package tool_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// A result gathered from Toolkit.Stream with Append ends like Call's once
// Finish is called: success, text blocks joined.
func TestStreamThenFinish(t *testing.T) {
	type in struct {
		S string `json:"s"`
	}
	f, err := tool.NewFunction("echoes twice", func(ctx context.Context, x in) (string, error) { return x.S + x.S, nil }, &tool.FunctionOptions{Name: "echo2"})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{f}})
	if err != nil {
		t.Fatal(err)
	}
	call := &tool.Call{ID: "1", Name: "echo2", Input: json.RawMessage(`{"s":"ab"}`), State: tool.NewState(&permission.Context{Mode: permission.Bypass})}
	r := &tool.Result{ID: "1", Name: "echo2"}
	for c, err := range tk.Stream(context.Background(), call) {
		if err != nil {
			t.Fatal(err)
		}
		r.Append(c)
	}
	r.Finish()
	want, _ := tk.Call(context.Background(), call)
	if r.Status != tool.StatusSuccess || r.Status != want.Status || r.Text() != want.Text() || r.Text() != "abab" {
		t.Errorf("streamed %s %q, called %s %q", r.Status, r.Text(), want.Status, want.Text())
	}
}
