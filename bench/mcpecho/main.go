// Command mcpecho times echo calls over stdio to an MCP server with
// toolscope's mcp.Client, each call through a Toolkit as an agent makes it.
//
//	mcpecho -n 2000 node server-everything/dist/index.js stdio
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"time"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

func main() {
	n := flag.Int("n", 2000, "calls")
	cpu := flag.String("cpuprofile", "", "write a CPU profile of the timed calls to this file")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		log.Fatal("usage: mcpecho [-n CALLS] SERVER-COMMAND [ARGS...]")
	}
	ctx := context.Background()
	// The benchmark's own server: its readOnlyHint on echo is believed, so
	// that calls run without an asker.
	c, err := mcp.NewClient("ev", mcp.ServerConfig{Command: args[0], Args: args[1:]}, &mcp.ClientOptions{TrustHints: true})
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Sources: []tool.Source{c}})
	if err != nil {
		log.Fatal(err)
	}
	st := tool.NewState(&permission.Context{Mode: permission.Default})
	call := &tool.Call{Name: "mcp__ev__echo", Input: json.RawMessage(`{"message":"hello"}`), State: st}
	for i := 0; i < 50; i++ { // warm up
		tk.Call(ctx, call)
	}
	if *cpu != "" {
		f, err := os.Create(*cpu)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	for i := 0; i < *n; i++ {
		r, err := tk.Call(ctx, call)
		if err != nil || r.Text() != "Echo: hello" {
			log.Fatalf("call %d: %v %s %q", i, err, r.Status, r.Text())
		}
	}
	d := time.Since(start)
	fmt.Printf("%.0f calls/s (%.1f µs/call)\n", float64(*n)/d.Seconds(), float64(d.Microseconds())/float64(*n))
}
