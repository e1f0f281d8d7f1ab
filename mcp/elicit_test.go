package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// askingServer is a go-sdk server whose tool "greet" asks the user's name:
// by elicitation/create under 2025-11-25, by an input_required result
// under 2026-07-28 (where the server may not send requests of its own).
func askingServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "asking", Version: "1"}, nil)
	form := &sdk.ElicitParams{Message: "What is your name?\x1b[2J", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}}
	s.AddTool(&sdk.Tool{Name: "greet", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var res *sdk.ElicitResult
		if r, ok := req.Params.InputResponses["name"].(*sdk.ElicitResult); ok {
			res = r
		} else {
			var err error
			res, err = req.Session.Elicit(ctx, form)
			if err != nil && strings.Contains(err.Error(), "2026-07-28") {
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"name": form}, RequestState: "x"}, nil
			}
			if err != nil {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "could not ask: " + err.Error()}}}, nil
			}
		}
		if res.Action != "accept" {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "no answer: " + res.Action}}}, nil
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Hello, " + res.Content["name"].(string)}}}, nil
	})
	return s
}

// The question of a server reaches the client's Elicitor on both
// revisions, with the call's context (a value the call carries is seen
// by the Elicitor under 2025-11-25 too, where the server's request names
// no call).
func TestClientElicitBothRevisions(t *testing.T) {
	for _, protocol := range []string{mcp.ProtocolVersion, ""} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			a, b := net.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go askingServer().Run(ctx, &sdk.IOTransport{Reader: b, Writer: b})
			type key struct{}
			var got []string
			c, err := mcp.NewClient("inner", mcp.ServerConfig{Conn: a}, &mcp.ClientOptions{Protocol: protocol, TrustHints: true,
				Elicit: func(ctx context.Context, r mcp.ElicitRequest) (mcp.ElicitResponse, error) {
					v, _ := ctx.Value(key{}).(string)
					got = append(got, r.Server+"|"+r.Message+"|"+v)
					return mcp.ElicitResponse{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if want := map[string]string{mcp.ProtocolVersion: mcp.ProtocolVersion, "": mcp.LatestProtocolVersion}[protocol]; c.NegotiatedProtocol() != want {
				t.Fatalf("negotiated %q, want %q", c.NegotiatedProtocol(), want)
			}
			tk := kitOf(t, c)
			st := tool.NewState(&permission.Context{Mode: permission.Bypass})
			r, err := tk.Call(context.WithValue(ctx, key{}, "the call's"), &tool.Call{ID: "1", Name: "mcp__inner__greet", Input: json.RawMessage(`{}`), State: st})
			if err != nil || r.Text() != "Hello, Ada" {
				t.Fatalf("greet: %v %s %q", err, r.Status, r.Text())
			}
			if len(got) != 1 || got[0] != "inner|What is your name?\x1b[2J|the call's" {
				t.Errorf("asked %q", got)
			}
		})
	}
}

// A toolscope server forwards the question of a configured server's tool
// to its own client (mcp.ElicitAsker as the Elicitor), named and
// escaped; a client that does not support elicitation is not asked and
// the inner server hears so.
func TestServerForwardsElicitation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := net.Pipe()
	go askingServer().Run(ctx, &sdk.IOTransport{Reader: b, Writer: b})
	inner, err := mcp.NewClient("inner", mcp.ServerConfig{Conn: a}, &mcp.ClientOptions{Protocol: mcp.ProtocolVersion, Elicit: mcp.ElicitAsker{}.Elicit})
	if err != nil {
		t.Fatal(err)
	}
	if err := inner.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	served, err := tool.NewToolkit(&tool.ToolkitOptions{Sources: []tool.Source{inner}, Asker: mcp.ElicitAsker{}})
	if err != nil {
		t.Fatal(err)
	}
	pc := &permission.Context{Mode: permission.Default, Allow: []permission.Rule{{Tool: "mcp__inner"}}}
	srv := mcp.NewServer(served, &mcp.ServerOptions{NewState: func() *tool.State { return tool.NewState(pc) }})
	for _, withElicitation := range []bool{true, false} {
		reqR, reqW := io.Pipe()
		respR, respW := io.Pipe()
		sctx, scancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); srv.Serve(sctx, reqR, respW) }()
		var asked []string
		opts := &sdk.ClientOptions{}
		if withElicitation {
			opts.ElicitationHandler = func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				asked = append(asked, r.Params.Message)
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Grace"}}, nil
			}
		}
		host := sdk.NewClient(&sdk.Implementation{Name: "host", Version: "1"}, opts)
		s, err := host.Connect(ctx, &sdk.IOTransport{Reader: respR, Writer: reqW}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
		res, err := s.CallTool(cctx, &sdk.CallToolParams{Name: "mcp__inner__greet", Arguments: map[string]any{}})
		ccancel()
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*sdk.TextContent).Text
		if withElicitation {
			if text != "Hello, Grace" || len(asked) != 1 || asked[0] != `MCP server "inner" asks: What is your name?\u001b[2J` {
				t.Errorf("forwarded: %q, asked %q", text, asked)
			}
		} else if !strings.Contains(text, "could not ask") || !strings.Contains(text, "does not support elicitation") {
			t.Errorf("a client without elicitation: %q", text)
		}
		s.Close()
		scancel()
		reqW.Close()
		wg.Wait()
	}
}
