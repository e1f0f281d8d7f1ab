// Package mcp connects toolscope to the Model Context Protocol. FormatTool
// puts a toolkit's tool in the shape of an MCP Tool, as a tools/list
// result carries it:
//
//	var tools []json.RawMessage
//	for _, s := range tk.Schemas(ctx, st.ActiveGroups()) {
//		tools = append(tools, mcp.FormatTool(s))
//	}
package mcp

import (
	"encoding/json"

	"github.com/toolscope/toolscope/tool"
)

type mcpTool struct {
	Name         string            `json:"name"`
	Title        string            `json:"title,omitempty"`
	Description  string            `json:"description"`
	InputSchema  json.RawMessage   `json:"inputSchema"`
	OutputSchema json.RawMessage   `json:"outputSchema,omitempty"`
	Annotations  *tool.Annotations `json:"annotations,omitempty"`
}

// FormatTool returns s as an MCP Tool: {"name","title","description",
// "inputSchema","outputSchema","annotations"}, leaving out the title, the
// output schema and the annotations when there are none.
func FormatTool(s tool.Schema) json.RawMessage {
	t := mcpTool{Name: s.Name, Title: s.Title, Description: s.Description, InputSchema: s.InputSchema, OutputSchema: s.OutputSchema}
	if s.Annotations != (tool.Annotations{}) {
		t.Annotations = &s.Annotations
	}
	b, err := json.Marshal(t)
	if err != nil {
		panic("mcp: a normalised schema did not marshal: " + err.Error()) // the schemas are valid JSON by construction
	}
	return b
}
