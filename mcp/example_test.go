package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/tool"
)

type greetIn struct {
	Name string `json:"name"`
}

// pipeConn is one end of a connection made of two pipes.
type pipeConn struct {
	io.Reader
	io.WriteCloser
}

// A Toolkit served over MCP, and a Client that uses it as a source of
// tools: the client's tools are the server's, named mcp__SERVER__TOOL, and
// every call goes through both Toolkits' permission engines.
func Example() {
	greet, _ := tool.NewFunction("Greet someone.", func(_ context.Context, in greetIn) (string, error) {
		return "Hello, " + in.Name + "!", nil
	}, &tool.FunctionOptions{Name: "greet", ReadOnly: true})
	served, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{greet}})

	// The server reads requests from one pipe and answers on another, as
	// it would on the standard input and output of a process.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reqR, reqW := io.Pipe()
	respR, respW := io.Pipe()
	go mcp.NewServer(served, nil).Serve(ctx, reqR, respW)

	// The client: ServerConfig{Command: ...} would start a server process;
	// here it speaks over the pipes. The server is our own, so its
	// readOnlyHint on greet can be believed (TrustHints) and the call runs
	// without asking; a server's hints are otherwise only shown.
	c, _ := mcp.NewClient("hello", mcp.ServerConfig{Conn: pipeConn{respR, reqW}}, &mcp.ClientOptions{TrustHints: true})
	if err := c.Connect(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Sources: []tool.Source{c}})
	for _, s := range tk.Schemas(ctx, nil) {
		fmt.Println("tool:", s.Name)
	}
	r, _ := tk.Call(ctx, &tool.Call{Name: "mcp__hello__greet", Input: json.RawMessage(`{"name":"Ada"}`)})
	fmt.Println(r.Status, r.Text())
	// Output:
	// tool: mcp__hello__greet
	// success Hello, Ada!
}
