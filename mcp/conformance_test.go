package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolscope/toolscope/internal/peers"
	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// TestMain makes the test binary the conformance suite's client when
// TOOLSCOPE_CONFCLIENT is set: the suite runs it with the server's URL as
// its last argument and the scenario's name in MCP_CONFORMANCE_SCENARIO.
func TestMain(m *testing.M) {
	if os.Getenv("TOOLSCOPE_CONFCLIENT") == "1" {
		if err := confClient(os.Args[len(os.Args)-1], os.Getenv("MCP_CONFORMANCE_SCENARIO")); err != nil {
			fmt.Fprintln(os.Stderr, "confclient:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The MCP conformance suite (@modelcontextprotocol/conformance, client
// mode) drives this test binary as a client built on mcp.Client (see
// TestMain), through every client scenario that needs no authorization.
func TestConformanceClient(t *testing.T) {
	suite, node := peers.Need(t, "node_modules/@modelcontextprotocol/conformance/dist/index.js", true)
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []string{"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"} {
		t.Run(sc, func(t *testing.T) {
			cmd := exec.Command(node, suite, "client", "--command", bin, "--scenario", sc, "-o", t.TempDir())
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "TOOLSCOPE_CONFCLIENT=1", "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("scenario %s: %v\n%s", sc, err, out)
			}
		})
	}
}

// confClient runs one scenario against the server at url.
func confClient(url, scenario string) error {
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
