// Package openai speaks OpenAI's Chat Completions protocol for toolscope,
// which OpenAI-compatible servers (Ollama, vLLM, the llama.cpp server) speak
// too. FormatTool puts a toolkit's tool in the shape the protocol's tools
// array wants:
//
//	var tools []json.RawMessage
//	for _, s := range tk.Schemas(ctx, st.ActiveGroups()) {
//		tools = append(tools, openai.FormatTool(s))
//	}
package openai

import (
	"encoding/json"

	"github.com/toolscope/toolscope/internal/toolformat"
	"github.com/toolscope/toolscope/tool"
)

// FormatTool returns s as a Chat Completions tool:
// {"type":"function","function":{"name","description","parameters"}}.
// The protocol has no place for the title, the annotations or the output
// schema; they are left out.
func FormatTool(s tool.Schema) json.RawMessage { return toolformat.OpenAI(s) }
