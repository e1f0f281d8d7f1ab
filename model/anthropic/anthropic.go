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

	"github.com/toolscope/toolscope/internal/toolformat"
	"github.com/toolscope/toolscope/tool"
)

// FormatTool returns s as a Messages API tool:
// {"name","description","input_schema"}. The protocol has no place for the
// title, the annotations or the output schema; they are left out.
func FormatTool(s tool.Schema) json.RawMessage { return toolformat.Anthropic(s) }
