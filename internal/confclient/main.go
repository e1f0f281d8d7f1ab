// Command confclient is the client that the MCP conformance suite
// (@modelcontextprotocol/conformance, client mode) drives: it runs each
// scenario with toolscope's mcp.Client, the server's URL as its last
// argument and the scenario's name in MCP_CONFORMANCE_SCENARIO.
//
//	conformance client --command ./confclient --scenario tools_call
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

func main() {
	if err := run(os.Args[len(os.Args)-1], os.Getenv("MCP_CONFORMANCE_SCENARIO")); err != nil {
		fmt.Fprintln(os.Stderr, "confclient:", err)
		os.Exit(1)
	}
}

func run(url, scenario string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := mcp.NewClient("conf", mcp.ServerConfig{URL: url}, &mcp.ClientOptions{
		// Accept with no fields: the schema's defaults apply.
		Elicit: func(context.Context, mcp.ElicitRequest) (mcp.ElicitResponse, error) {
			return mcp.ElicitResponse{Action: "accept", Content: map[string]any{}}, nil
		},
	})
	if err != nil {
		return err
	}
	if err := c.Connect(ctx); err != nil {
		return err
	}
	defer c.Close()
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Sources: []tool.Source{c}})
	if err != nil {
		return err
	}
	if _, err := c.Tools(ctx); err != nil {
		return err
	}
	call := map[string]struct{ name, input string }{
		"tools_call":                          {"add_numbers", `{"a":5,"b":3}`},
		"elicitation-sep1034-client-defaults": {"test_client_elicitation_defaults", `{}`},
		"sse-retry":                           {"test_reconnection", `{}`},
	}[scenario]
	if call.name == "" {
		return nil // initialize: connecting and listing is the scenario
	}
	st := tool.NewState(&permission.Context{Mode: permission.Bypass})
	r, err := tk.Call(ctx, &tool.Call{ID: "1", Name: mcp.ToolName("conf", call.name), Input: json.RawMessage(call.input), State: st})
	if err != nil {
		return err
	}
	fmt.Println(r.Status, r.Text())
	if r.Status != tool.StatusSuccess {
		return fmt.Errorf("%s: %s %s", call.name, r.Status, r.Text())
	}
	return nil
}
