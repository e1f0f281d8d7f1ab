package tool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

type AddInput struct {
	A int `json:"a" jsonschema:"the first number"`
	B int `json:"b" jsonschema:"the second number"`
}

func add(_ context.Context, in AddInput) (int, error) { return in.A + in.B, nil }

// A typed Go function becomes a tool; the toolkit validates the model's input,
// asks the permission engine, and runs it.
func ExampleNewFunction() {
	adder, err := tool.NewFunction("Add two integers.", add, &tool.FunctionOptions{ReadOnly: true})
	if err != nil {
		panic(err)
	}
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{adder}})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for _, input := range []string{`{"a": 2, "b": 40}`, `{"a": 2}`, `{"a": 2, "b": "forty"}`} {
		r, _ := tk.Call(ctx, &tool.Call{Name: "add", Input: json.RawMessage(input)})
		fmt.Printf("%s: %s\n", r.Status, r.Text())
	}
	// Output:
	// success: 42
	// error: Input validation failed for tool 'add': missing required field "b". Fix the arguments to match the tool's input schema.
	// error: Input validation failed for tool 'add': field "b" must be an integer, not a string ("forty"). Fix the arguments to match the tool's input schema.
}

// A call the permission engine cannot decide alone comes back asking, with
// rules the user may add to allow it from then on.
func ExampleToolkit_Call_approval() {
	adder, _ := tool.NewFunction("Add two integers.", add, nil)
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{adder}})
	state := tool.NewState(&permission.Context{Mode: permission.Default})
	call := &tool.Call{ID: "call_1", Name: "add", Input: json.RawMessage(`{"a":1,"b":2}`), State: state}

	r, _ := tk.Call(context.Background(), call)
	fmt.Println(r.Status, "-", r.Decision.Message, "- suggested:", r.Decision.Suggestions[0])

	state.AddRule(r.Decision.Suggestions[0]) // the user chose "always allow"
	r, _ = tk.Call(context.Background(), call)
	fmt.Println(r.Status, "-", r.Text(), "-", r.Decision.Reason)
	// Output:
	// asking - Permission required for add - suggested: add
	// success - 3 - Rule: add
}
