package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"testing"

	"github.com/toolscope/toolscope/permission"
)

type schemaTool struct{ n int }

func (s schemaTool) Info() Info {
	return Info{Name: "t", Description: "d", InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","description":"v%d"}`, s.n))}
}
func (schemaTool) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Allow}, nil
}
func (schemaTool) Call(context.Context, *Call) iter.Seq2[*Chunk, error] {
	return func(func(*Chunk, error) bool) {}
}

// countingSource returns a tool with a new schema every time it is listed,
// as a server whose tools keep changing would.
type countingSource struct{ n int }

func (c *countingSource) Name() string { return "s" }
func (c *countingSource) Tools(context.Context) ([]Tool, error) {
	c.n++
	return []Tool{schemaTool{c.n}}, nil
}

// The compiled schemas of dynamic tools stay bounded however many distinct
// schemas a source has shown.
func TestSchemaCacheBounded(t *testing.T) {
	tk, err := NewToolkit(&ToolkitOptions{Sources: []Source{&countingSource{}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3*maxCachedSchemas; i++ {
		if got := tk.Tools(context.Background(), nil); len(got) == 0 {
			t.Fatal("no tools")
		}
	}
	n := 0
	tk.schemas.Range(func(any, any) bool { n++; return true })
	if n > maxCachedSchemas {
		t.Errorf("%d schemas cached, more than %d", n, maxCachedSchemas)
	}
}
