// Package mcp connects toolscope to the Model Context Protocol, both ways.
//
// # Using MCP servers' tools
//
// A [Client] reaches one server, by a command it starts (stdio) or by URL
// (streamable HTTP, or the legacy HTTP+SSE transport for a URL ending in
// /sse or /messages/), and is a [tool.Source] of the server's tools, named
// mcp__SERVER__TOOL:
//
//	c, err := mcp.NewClient("fs", mcp.ServerConfig{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", dir}}, nil)
//	if err := c.Connect(ctx); err != nil { ... }
//	defer c.Close()
//	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Sources: []tool.Source{c}})
//
// A tool the server marks readOnlyHint runs without asking; the others ask
// unless a rule allows them ("mcp__fs__write_file", or "mcp__fs" for every
// tool of the server). Every failure (the server's isError, a lost
// connection, a call that outlives ClientOptions.CallTimeout) is an error
// result the model reads, never an aborted run. A stateful client keeps one
// session, follows the server's tools/list_changed, and reconnects when the
// server lost the session (a restart); a stateless one (HTTP only) opens a
// session per listing and per call. Progress the server reports arrives as
// progress chunks; cancelling a call's context tells the server.
//
// # Serving a Toolkit
//
// A [Server] serves a Toolkit's tools to MCP hosts (Claude Desktop, IDEs)
// over stdio ([Server.Serve]) or streamable HTTP ([Server.Handler]); every
// call goes through the Toolkit's permission engine, and with
// [ElicitAsker] as the Toolkit's Asker a call that needs approval is put
// to the host's user.
//
// [FormatTool] puts a [tool.Schema] in the shape of an MCP Tool, as
// tools/list carries it.
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
