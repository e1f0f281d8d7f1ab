package tool_test

import (
	"context"
	"encoding/json"
	"iter"
	"testing"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// A tool may report progress (for the host, never in the result), give
// structured content, and describe itself with a title, MCP annotations and
// an output schema; a result keeps its input when serialised.
func TestRicherTypes(t *testing.T) {
	yes, no := true, false
	tl := &fnTool{
		info: tool.Info{Name: "rich", Title: "A rich tool", Description: "d",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
			Annotations:  &tool.Annotations{DestructiveHint: &no, IdempotentHint: &yes}},
		call: func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
			return func(yield func(*tool.Chunk, error) bool) {
				if !yield(&tool.Chunk{Progress: &tool.Progress{Message: "half", Done: 1, Total: 2}}, nil) {
					return
				}
				yield(&tool.Chunk{Content: []tool.Block{tool.TextBlock("n=3")}, Structured: json.RawMessage(`{"n":3}`)}, nil)
			}
		},
	}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{tl}})
	st := tool.NewState(&permission.Context{Mode: permission.Bypass})
	var progress []string
	for c, err := range tk.Stream(context.Background(), &tool.Call{Name: "rich", Input: json.RawMessage(`{"q":"x"}`), State: st}) {
		if err != nil {
			t.Fatal(err)
		}
		if c.Progress != nil {
			progress = append(progress, c.Progress.Message)
		}
	}
	if len(progress) != 1 || progress[0] != "half" {
		t.Errorf("progress seen by the host: %v", progress)
	}
	r := call(t, tk, &tool.Call{Name: "rich", Input: json.RawMessage(`{"q":"x"}`), State: st})
	if r.Text() != "n=3" || string(r.StructuredContent) != `{"n":3}` {
		t.Errorf("result %q structured %s", r.Text(), r.StructuredContent)
	}
	b, _ := json.Marshal(r)
	var back tool.Result
	if err := json.Unmarshal(b, &back); err != nil || string(back.Input) != `{"q":"x"}` || string(back.StructuredContent) != `{"n":3}` {
		t.Errorf("round trip: %s -> %+v %v", b, back, err)
	}
	schemas := tk.Schemas(context.Background(), nil)
	s := schemas[len(schemas)-1]
	if s.Title != "A rich tool" || s.Annotations.DestructiveHint == nil || *s.Annotations.DestructiveHint ||
		s.Annotations.IdempotentHint == nil || !*s.Annotations.IdempotentHint || len(s.OutputSchema) == 0 {
		t.Errorf("schema %+v", s)
	}
}
