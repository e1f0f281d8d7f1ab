package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

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

// A middleware sees every call before the Toolkit does and every chunk
// after: here it logs the call and cuts long text output.
func ExampleMiddleware() {
	truncate := func(next tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
			fmt.Println("calling", c.Name, string(c.Input))
			return func(yield func(*tool.Chunk, error) bool) {
				for ch, err := range next.Handle(ctx, c) {
					if ch != nil {
						for i, b := range ch.Content {
							if b.Kind == tool.KindText && len(b.Text) > 5 {
								ch.Content[i].Text = b.Text[:5] + "…"
							}
						}
					}
					if !yield(ch, err) {
						return
					}
				}
			}
		})
	}
	repeat, _ := tool.NewFunction("Repeat a word.", func(_ context.Context, in struct {
		Word string `json:"word"`
	}) (string, error) {
		return strings.Repeat(in.Word, 3), nil
	}, &tool.FunctionOptions{Name: "repeat", ReadOnly: true})
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{repeat}, Middleware: []tool.Middleware{truncate}})
	r, _ := tk.Call(context.Background(), &tool.Call{Name: "repeat", Input: json.RawMessage(`{"word":"abc"}`)})
	fmt.Println(r.Status, r.Text())
	// Output:
	// calling repeat {"word":"abc"}
	// success abcab…
}

// clock is a Source whose tools are known only at run time, as an MCP
// server's are. Reporting a version (ChangeReporter) spares a listing per
// turn: the Toolkit lists it again only when the version moves.
type clock struct{ version uint64 }

func (c *clock) Name() string        { return "clock" }
func (c *clock) ListVersion() uint64 { return c.version }
func (c *clock) Tools(context.Context) ([]tool.Tool, error) {
	now, err := tool.NewFunction("Tell the time in a fixed zone.", func(context.Context, struct{}) (string, error) {
		return "12:00 UTC", nil
	}, &tool.FunctionOptions{Name: "now", ReadOnly: true})
	if err != nil {
		return nil, err
	}
	return []tool.Tool{now}, nil
}

// A Source supplies tools at run time; a group keeps them out of the
// model's sight until it activates the group with reset_tools.
func ExampleSource() {
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{
		Groups: []tool.Group{{Name: "time", Description: "Tools that tell the time.", Sources: []tool.Source{&clock{}}}},
	})
	state := tool.NewState(nil)
	r, _ := tk.Call(context.Background(), &tool.Call{Name: "now", Input: json.RawMessage(`{}`), State: state})
	fmt.Println(r.Status, "-", r.Text())

	state.SetActiveGroups([]string{"time"})
	r, _ = tk.Call(context.Background(), &tool.Call{Name: "now", Input: json.RawMessage(`{}`), State: state})
	fmt.Println(r.Status, "-", r.Text())
	// Output:
	// error - ToolNotFoundError: The tool named 'now' doesn't exist.
	// success - 12:00 UTC
}

// countLines is a Tool written by hand: it describes itself, gives its
// opinion of a call, and streams its output.
type countLines struct{}

func (countLines) Info() tool.Info {
	return tool.Info{
		Name:        "count_lines",
		Description: "Count the lines of a text.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		ReadOnly:    true, // it changes nothing: the engine lets it through unless a rule says otherwise
		// ConcurrencySafe: true would let a batch run it beside other such calls.
	}
}

// CheckPermissions has no opinion: the permission engine decides.
func (countLines) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Passthrough}, nil
}

func (countLines) Call(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		var in struct {
			Text string `json:"text"`
		}
		if err := tool.DecodeInput(c.Input, &in); err != nil {
			yield(tool.Errorf("%v", err), nil) // the model reads it and fixes its call
			return
		}
		if !yield(&tool.Chunk{Progress: &tool.Progress{Message: "counting"}}, nil) { // for the host only
			return
		}
		yield(tool.Text(fmt.Sprint(strings.Count(in.Text, "\n")+1, " lines")), nil)
	}
}

// A Tool written by hand: the Toolkit validates the input against its
// schema before Call runs, and keeps progress chunks out of the result.
func ExampleTool() {
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{countLines{}}})
	for _, input := range []string{`{"text":"a\nb\nc"}`, `{"text":3}`} {
		r, _ := tk.Call(context.Background(), &tool.Call{Name: "count_lines", Input: json.RawMessage(input)})
		fmt.Printf("%s: %s\n", r.Status, r.Text())
	}
	// Output:
	// success: 3 lines
	// error: Input validation failed for tool 'count_lines': field "text" must be a string, not an integer (3). Fix the arguments to match the tool's input schema.
}

// One model turn: the schemas sent to the model and the calls of its answer
// share a turn, so each source is listed once and the calls find the tools
// the model was shown.
func ExampleToolkit_BeginTurn() {
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{countLines{}}, Sources: []tool.Source{&clock{}}})
	state := tool.NewState(nil)
	ctx := tk.BeginTurn(context.Background())
	for _, s := range tk.Schemas(ctx, state.ActiveGroups()) {
		fmt.Println("tool:", s.Name)
	}
	// ... the model answers with two calls ...
	results, _ := tk.CallBatch(ctx, []*tool.Call{
		{ID: "1", Name: "now", Input: json.RawMessage(`{}`), State: state},
		{ID: "2", Name: "count_lines", Input: json.RawMessage(`{"text":"x\ny"}`), State: state},
	})
	for _, r := range results {
		fmt.Println(r.ID, r.Status, r.Text())
	}
	// Output:
	// tool: count_lines
	// tool: now
	// 1 success 12:00 UTC
	// 2 success 2 lines
}

// A RecordSlot reads and changes a long list one record at a time: a
// state read from its file decodes only the records asked for, and writes
// the others back as they were read.
func ExampleRecordSlot() {
	type task struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	tasks := tool.NewRecordSlot[task]("example.com/tasks", "id", true)
	st := tool.NewState(nil)
	tasks.Set(st, []task{{"1", "pending"}, {"2", "pending"}, {"3", "pending"}})
	file, _ := st.MarshalFile()

	// Another run: read the file, finish task 2, save.
	run := tool.NewState(nil)
	tool.UnmarshalStateFile(file, run)
	err := tasks.Edit(run, func(r *tool.Records[task]) error {
		t, ok, err := r.Get("2")
		if err != nil || !ok {
			return err
		}
		t.Status = "completed"
		return r.Put(t)
	})
	if err != nil {
		panic(err)
	}
	saved, _ := run.MarshalFile()
	fmt.Println(string(saved[bytes.Index(saved, []byte(`"example.com/tasks"`)):]))
	// Output:
	// "example.com/tasks": [
	//       {"id":"1","status":"pending"},
	//       {"id":"2","status":"completed"},
	//       {"id":"3","status":"pending"}
	//     ]
	//   }
	// }
}
