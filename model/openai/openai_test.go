package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolscope/toolscope/model/openai"
	"github.com/toolscope/toolscope/tool"
)

func TestFormatTool(t *testing.T) {
	yes := true
	s := tool.Schema{Name: "read", Title: "Read a file", Description: "Reads.", InputSchema: json.RawMessage(`{"properties":{},"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object"}`), Annotations: tool.Annotations{ReadOnlyHint: &yes}}
	want := `{"type":"function","function":{"name":"read","description":"Reads.","parameters":{"properties":{},"type":"object"}}}`
	if got := string(openai.FormatTool(s)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

type in struct {
	Path string `json:"path" jsonschema:"the file to read"`
}

func Example() {
	read, _ := tool.NewFunction("Read a file.", func(ctx context.Context, in in) (string, error) { return "", nil }, &tool.FunctionOptions{Name: "read", ReadOnly: true})
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{read}})
	for _, s := range tk.Schemas(context.Background(), nil) {
		fmt.Println(string(openai.FormatTool(s)))
	}
	// Output:
	// {"type":"function","function":{"name":"read","description":"Read a file.","parameters":{"additionalProperties":false,"properties":{"path":{"description":"the file to read","type":"string"}},"required":["path"],"type":"object"}}}
}
