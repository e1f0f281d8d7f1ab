package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpServerMain is a small MCP server over stdio, made with the go-sdk,
// for the scripts: echo (read-only) and note (writes notes.txt in its
// working directory, so asks); resources, and a prompt. With the argument
// "annotated", also drop_table and count (see there).
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
	// greet asks the user's name: elicitation/create under 2025-11-25, an
	// input_required result under 2026-07-28.
	form := &sdk.ElicitParams{Message: "What is your name?", RequestedSchema: map[string]any{"type": "object",
		"properties": map[string]any{"name": map[string]any{"type": "string", "title": "Your name"}, "age": map[string]any{"type": "integer"}}, "required": []string{"name"}}}
	s.AddTool(&sdk.Tool{Name: "greet", Description: "Greet the user by name.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, ok := req.Params.InputResponses["name"].(*sdk.ElicitResult)
			if !ok {
				var err error
				if res, err = req.Session.Elicit(ctx, form); err != nil {
					if strings.Contains(err.Error(), "2026-07-28") {
						return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"name": form}}, nil
					}
					return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "could not ask: " + err.Error()}}}, nil
				}
			}
			if res.Action != "accept" {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "The user did not answer (" + res.Action + ")."}}}, nil
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("Hello, %v (age %v)", res.Content["name"], res.Content["age"])}}}, nil
		})
	// Resources: a readme, a secret, and notes by a template.
	for uri, text := range map[string]string{"memo://readme": "the readme of the peer", "memo://secret/key": "SECRET-KEY"} {
		s.AddResource(&sdk.Resource{URI: uri, Name: strings.TrimPrefix(uri, "memo://"), MIMEType: "text/plain"},
			func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
			})
	}
	s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "memo://notes/{id}", Name: "note"},
		func(_ context.Context, r *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: r.Params.URI, Text: "note " + strings.TrimPrefix(r.Params.URI, "memo://notes/")}}}, nil
		})
	// A prompt with a required and an optional argument.
	s.AddPrompt(&sdk.Prompt{Name: "review", Description: "Review a file", Arguments: []*sdk.PromptArgument{{Name: "file", Required: true}, {Name: "focus"}}},
		func(_ context.Context, r *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Review " + r.Params.Arguments["file"] + " for " + r.Params.Arguments["focus"]}}}}, nil
		})
	if slices.Contains(os.Args[1:], "annotated") {
		// drop_table has a title (with markup and a control character)
		// and hints; count has neither.
		yes := true
		done := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil
		}
		s.AddTool(&sdk.Tool{Name: "drop_table", Description: "Drop a table.", InputSchema: map[string]any{"type": "object"},
			Annotations: &sdk.ToolAnnotations{Title: "Drop <i>a</i> table\x1b[2J", ReadOnlyHint: false, DestructiveHint: &yes, OpenWorldHint: &yes}}, done)
		s.AddTool(&sdk.Tool{Name: "count", Description: "Count rows.", InputSchema: map[string]any{"type": "object"}}, done)
	}
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		os.Exit(1)
	}
}
