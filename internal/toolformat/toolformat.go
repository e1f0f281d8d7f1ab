// Package toolformat puts a toolkit's tool in the shapes the model
// providers' protocols want, without their SDKs: model/openai and
// model/anthropic expose these as FormatTool, and the CLI's `tools
// --format` uses them in every build, the lean one (-tags lean, without
// the providers' SDKs) too.
package toolformat

import (
	"encoding/json"

	"github.com/toolscope/toolscope/tool"
)

type function struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type chatTool struct {
	Type     string   `json:"type"`
	Function function `json:"function"`
}

// OpenAI returns s as a Chat Completions tool:
// {"type":"function","function":{"name","description","parameters"}}.
func OpenAI(s tool.Schema) json.RawMessage {
	b, err := json.Marshal(chatTool{Type: "function", Function: function{Name: s.Name, Description: s.Description, Parameters: s.InputSchema}})
	if err != nil {
		panic("openai: a normalised schema did not marshal: " + err.Error()) // InputSchema is valid JSON by construction
	}
	return b
}

type messagesTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Anthropic returns s as a Messages API tool:
// {"name","description","input_schema"}.
func Anthropic(s tool.Schema) json.RawMessage {
	b, err := json.Marshal(messagesTool{Name: s.Name, Description: s.Description, InputSchema: s.InputSchema})
	if err != nil {
		panic("anthropic: a normalised schema did not marshal: " + err.Error()) // InputSchema is valid JSON by construction
	}
	return b
}
