package builtin_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/tool"
)

// TestBuiltinSchemasCompile: every built-in tool says its schema is
// tested ([tool.TestedSchema], compiled at first use): here it is. Listing
// a Toolkit's schemas compiles them all, and one that did not compile
// would be left out of the list.
func TestBuiltinSchemasCompile(t *testing.T) {
	tools := builtin.All(&builtin.Options{Root: t.TempDir()})
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]json.RawMessage{}
	for _, s := range tk.Schemas(context.Background(), nil) {
		listed[s.Name] = s.InputSchema
	}
	for _, bt := range tools {
		name := bt.Info().Name
		if _, ok := bt.(tool.TestedSchema); !ok {
			t.Errorf("%s is not a tool.TestedSchema", name)
		}
		var m map[string]any
		if err := json.Unmarshal(listed[name], &m); err != nil || m["type"] != "object" {
			t.Errorf("%s: listed schema %s (%v)", name, listed[name], err)
		}
	}
	if len(listed) != len(tools) {
		t.Errorf("%d schemas listed for %d tools", len(listed), len(tools))
	}
}
