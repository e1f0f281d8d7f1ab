// Command quickstart shows toolscope from Go: a typed function becomes a tool,
// and a toolkit validates, permission-checks and runs calls to it.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/toolscope/toolscope/model/openai"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// ShoutInput is the tool's input; the schema the model sees is inferred from it.
type ShoutInput struct {
	Text  string `json:"text" jsonschema:"what to shout"`
	Times int    `json:"times,omitempty" jsonschema:"how many times (default 1)"`
}

func shout(_ context.Context, in ShoutInput) (string, error) {
	if in.Times == 0 {
		in.Times = 1
	}
	return strings.TrimSpace(strings.Repeat(strings.ToUpper(in.Text)+"! ", in.Times)), nil
}

func main() {
	shouter, err := tool.NewFunction("Shout a text.", shout, nil)
	if err != nil {
		log.Fatal(err)
	}
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{shouter}})
	if err != nil {
		log.Fatal(err)
	}
	schemas := tk.Schemas(context.Background(), nil)
	fmt.Printf("schema sent to the model:\n%s\n\n", openai.FormatTool(schemas[0]))

	state := tool.NewState(&permission.Context{Mode: permission.Default})
	call := &tool.Call{ID: "1", Name: "shout", Input: json.RawMessage(`{"text":"hello","times":2}`), State: state}
	r, _ := tk.Call(context.Background(), call)
	fmt.Printf("first call: %s (%s)\n", r.Status, r.Decision.Message)

	// The user answers "always allow": the suggested rule goes into the state.
	state.AddRule(r.Decision.Suggestions[0])
	r, _ = tk.Call(context.Background(), call)
	fmt.Printf("second call: %s: %s\n", r.Status, r.Text())

	bad := &tool.Call{ID: "2", Name: "shout", Input: json.RawMessage(`{"text":1}`), State: state}
	r, _ = tk.Call(context.Background(), bad)
	fmt.Printf("bad input: %s: %s\n", r.Status, r.Text())
}
