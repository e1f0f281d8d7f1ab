package tool_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// testedTool is an inputTool that says its schema is tested.
type testedTool struct{ inputTool }

func (*testedTool) SchemaTested() {}

// A TestedSchema tool's schema is compiled at its first use: calls are
// validated against it as any tool's, and one that does not compile (a
// broken promise) fails the tool's calls with Add's error and leaves the
// tool out of the listings, never letting an input through unchecked.
func TestTestedSchemaCompiledAtFirstUse(t *testing.T) {
	good := &testedTool{inputTool{name: "good", schema: `{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"required":["n"]}`}}
	bad := &testedTool{inputTool{name: "bad", schema: `{"type":"array"}`}}
	if _, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{&bad.inputTool}}); err == nil {
		t.Fatal("a schema of type array was accepted from a tool that does not say it is tested")
	}
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{good, bad}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("Add compiled a tested schema: %v", err)
	}
	st := tool.NewState(&permission.Context{Mode: permission.Bypass})
	ctx := context.Background()
	for _, in := range []string{`{}`, `{"n":4}`, `{"n":"x"}`} {
		if _, err := tk.Check(ctx, &tool.Call{Name: "good", Input: json.RawMessage(in), State: st}); err == nil {
			t.Errorf("good %s: no validation error", in)
		}
	}
	if v, err := tk.Check(ctx, &tool.Call{Name: "good", Input: json.RawMessage(`{"n":2}`), State: st}); err != nil || v.Decision.Behavior != permission.Allow {
		t.Errorf("good {\"n\":2}: %+v, %v", v, err)
	}
	want := `toolkit: tool "bad": input schema must have type "object"`
	if _, err := tk.Check(ctx, &tool.Call{Name: "bad", Input: json.RawMessage(`{}`), State: st}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("bad: %v, want %s", err, want)
	}
	r, err := tk.Call(ctx, &tool.Call{ID: "1", Name: "bad", Input: json.RawMessage(`{}`), State: st})
	if err != nil || r.Status != tool.StatusError || !strings.Contains(r.Text(), want) || bad.got != nil {
		t.Errorf("bad ran or failed otherwise: %s %q", r.Status, r.Text())
	}
	var names []string
	for _, s := range tk.Schemas(ctx, nil) {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != "good" {
		t.Errorf("listed %v, want good only", names)
	}
}
