package mcp_test

import (
	"encoding/json"
	"testing"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/tool"
)

func TestFormatTool(t *testing.T) {
	yes, no := true, false
	in := json.RawMessage(`{"properties":{},"type":"object"}`)
	for _, c := range []struct {
		s    tool.Schema
		want string
	}{
		{tool.Schema{Name: "read", Title: "Read a file", Description: "Reads.", InputSchema: in,
			OutputSchema: json.RawMessage(`{"type":"object"}`), Annotations: tool.Annotations{ReadOnlyHint: &yes, DestructiveHint: &no}},
			`{"name":"read","title":"Read a file","description":"Reads.","inputSchema":{"properties":{},"type":"object"},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"destructiveHint":false}}`},
		{tool.Schema{Name: "x", InputSchema: in},
			`{"name":"x","description":"","inputSchema":{"properties":{},"type":"object"}}`},
	} {
		if got := string(mcp.FormatTool(c.s)); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
