// Command readme runs the Go examples of the README, so that they keep
// compiling and working (readme_test.go checks that every line of the
// README's Go blocks is here, in order).
//
//	go run ./examples/readme
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log"
	"os"
	"strings"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/model/openai"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

type AddInput struct {
	A int `json:"a" jsonschema:"the first number"`
	B int `json:"b" jsonschema:"the second number"`
}

func add(_ context.Context, in AddInput) (int, error) { return in.A + in.B, nil }

// basics is the README's first block.
func basics(ctx context.Context) (*tool.Toolkit, *tool.State) {
	adder, _ := tool.NewFunction("Add two integers.", add, nil)
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{adder}})

	state := tool.NewState(&permission.Context{Mode: permission.Default})
	r, _ := tk.Call(ctx, &tool.Call{ID: "1", Name: "add", Input: json.RawMessage(`{"a":1,"b":2}`), State: state})
	// r.Status == tool.StatusAsking: function tools need the user's approval.
	state.AddRule(r.Decision.Suggestions[0]) // the user chose "always allow"
	r, _ = tk.Call(ctx, &tool.Call{ID: "2", Name: "add", Input: json.RawMessage(`{"a":1,"b":2}`), State: state})
	fmt.Println(r.Text()) // 3
	return tk, state
}

// turn is the README's model turn.
func turn(ctx context.Context, tk *tool.Toolkit, state *tool.State, calls []*tool.Call) {
	ctx = tk.BeginTurn(ctx)
	var tools []json.RawMessage
	for _, s := range tk.Schemas(ctx, state.ActiveGroups()) {
		tools = append(tools, openai.FormatTool(s))
	}
	// ... send tools to the model; its answer asks for calls ...
	results, _ := tk.CallBatch(ctx, calls)
	fmt.Printf("%d tool(s) shown: %s\n", len(tools), tools[0])
	for _, r := range results {
		fmt.Println(r.ID, r.Status, r.Text())
	}
}

// terminalAsker answers approvals at the terminal: y allows the call once.
type terminalAsker struct{}

func (terminalAsker) Ask(ctx context.Context, c *tool.Call, d permission.Decision) (bool, []permission.Rule, error) {
	fmt.Fprintf(os.Stderr, "%s %s? [y/N] ", c.Name, c.Input)
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	return strings.TrimSpace(line) == "y", nil, nil
}

// middleware is the README's middleware block.
func middleware(ctx context.Context, dir string) {
	logCalls := func(next tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
			log.Printf("call %s %s", c.Name, c.Input)
			return next.Handle(ctx, c) // or rewrite c, transform the chunks, answer by itself
		})
	}
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{
		Tools:      builtin.All(&builtin.Options{Root: dir}),
		Middleware: []tool.Middleware{logCalls}, // first is outermost
		Asker:      terminalAsker{},             // answer approvals at once
		PermissionHook: func(ctx context.Context, c *tool.Call, engine func() (permission.Decision, error)) (permission.Decision, error) {
			return engine() // or decide before, after or instead of the engine; deny rules still win
		},
	})
	r, _ := tk.Call(ctx, &tool.Call{ID: "g", Name: "Glob", Input: json.RawMessage(`{"pattern":"*.txt"}`), State: tool.NewState(nil)})
	fmt.Println("Glob:", r.Status, r.Text())
}

func main() {
	ctx := context.Background()
	tk, state := basics(ctx)
	turn(ctx, tk, state, []*tool.Call{
		{ID: "a", Name: "add", Input: json.RawMessage(`{"a":20,"b":22}`), State: state},
		{ID: "b", Name: "add", Input: json.RawMessage(`{"a":1}`), State: state},
	})
	dir, err := os.MkdirTemp("", "readme")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(dir+"/notes.txt", []byte("hello\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	middleware(ctx, dir)
}
