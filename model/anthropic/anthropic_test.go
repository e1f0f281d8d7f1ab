package anthropic_test

import (
	"encoding/json"
	"testing"

	"github.com/toolscope/toolscope/model/anthropic"
	"github.com/toolscope/toolscope/tool"
)

func TestFormatTool(t *testing.T) {
	yes := true
	s := tool.Schema{Name: "read", Title: "Read a file", Description: "Reads.", InputSchema: json.RawMessage(`{"properties":{},"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object"}`), Annotations: tool.Annotations{ReadOnlyHint: &yes}}
	want := `{"name":"read","description":"Reads.","input_schema":{"properties":{},"type":"object"}}`
	if got := string(anthropic.FormatTool(s)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
