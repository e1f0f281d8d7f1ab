// Package anthropic speaks Anthropic's Messages protocol for toolscope.
// FormatTool puts a toolkit's tool in the shape the protocol's tools array
// wants:
//
//	var tools []json.RawMessage
//	for _, s := range tk.Schemas(ctx, st.ActiveGroups()) {
//		tools = append(tools, anthropic.FormatTool(s))
//	}
package anthropic

import (
	"encoding/json"

	"github.com/toolscope/toolscope/tool"
)

type messagesTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// FormatTool returns s as a Messages API tool:
// {"name","description","input_schema"}. The protocol has no place for the
// title, the annotations or the output schema; they are left out.
func FormatTool(s tool.Schema) json.RawMessage {
	b, err := json.Marshal(messagesTool{Name: s.Name, Description: s.Description, InputSchema: s.InputSchema})
	if err != nil {
		panic("anthropic: a normalised schema did not marshal: " + err.Error()) // InputSchema is valid JSON by construction
	}
	return b
}
