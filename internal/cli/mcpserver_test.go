package cli

import (
	"context"
	"os"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpServerMain is a small MCP server over stdio, made with the go-sdk,
// for the scripts: echo (read-only) and note (writes notes.txt in its
// working directory, so asks).
func mcpServerMain() {
	s := sdk.NewServer(&sdk.Implementation{Name: "scripted", Version: "1"}, nil)
	type echoIn struct {
		Message string `json:"message"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo a message.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Echo: " + in.Message}}}, nil, nil
		})
	type noteIn struct {
		Text string `json:"text"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "note", Description: "Write a note."},
		func(_ context.Context, _ *sdk.CallToolRequest, in noteIn) (*sdk.CallToolResult, any, error) {
			if err := os.WriteFile(filepath.Join(".", "notes.txt"), []byte(in.Text+"\n"), 0o644); err != nil {
				return nil, nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "noted"}}}, nil, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		os.Exit(1)
	}
}
