package tracing_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/tracing"
)

// A Toolkit whose calls are spans. A program would build its tracer with
// tracing.FromEnv (nil, and no tracing, unless an OTLP endpoint is set);
// this one keeps the spans in memory to print them.
func Example() {
	mem := &tracing.Memory{}
	tr := tracing.New(mem, nil)
	greet, _ := tool.NewFunction("Greet someone.", func(_ context.Context, in struct {
		Name string `json:"name"`
	}) (string, error) {
		return "hello " + in.Name, nil
	}, &tool.FunctionOptions{Name: "Greet", ReadOnly: true})
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{greet}, Middleware: []tool.Middleware{tr.Middleware()}})

	ctx, run := tr.Start(context.Background(), "invoke_agent example", tracing.KindInternal)
	st := tool.NewState(&permission.Context{Deny: []permission.Rule{{Tool: "Greet", Content: "", Behavior: permission.Deny}}})
	tk.Call(ctx, &tool.Call{ID: "call_1", Name: "Greet", Input: []byte(`{"name":"Ada"}`)})
	tk.Call(ctx, &tool.Call{ID: "call_2", Name: "Greet", Input: []byte(`{"name":"Bob"}`), State: st})
	run.End()
	tr.Shutdown(context.Background())

	spans := mem.Spans()
	slices.SortFunc(spans, func(a, b tracing.SpanData) int { return a.Start.Compare(b.Start) })
	for _, s := range spans {
		id, _ := s.Attr(tracing.AttrToolCallID)
		decision, _ := s.Attr(tracing.AttrDecision)
		status, _ := s.Attr(tracing.AttrToolStatus)
		fmt.Printf("%s %s %s %s root=%v\n", s.Name, id, decision, status, s.Parent.IsZero())
	}
	// Output:
	// invoke_agent example    root=true
	// execute_tool Greet call_1 allow success root=false
	// execute_tool Greet call_2 deny denied root=false
}
