package agent_test

import (
	"context"
	"encoding/json"
	"iter"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/tool"
)

// turnModel answers every request with one call to the no-op tool, then,
// every other turn, with text: each reply is two model turns.
type turnModel struct{ n int }

func (m *turnModel) Stream(_ context.Context, req *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		m.n++
		if m.n%2 == 1 {
			yield(agent.ModelEvent{ToolCall: &agent.ToolCall{ID: "c", Name: "noop", Input: json.RawMessage(`{"x":1}`)}}, nil)
			return
		}
		yield(agent.ModelEvent{Text: "done"}, nil)
	}
}

type noopIn struct {
	X int `json:"x"`
}

// BenchmarkLoopTurn measures the agent's own cost per model turn: the
// request (schemas, skills prompt), the batch through the Toolkit, the
// events. The model and the tool do nothing.
func BenchmarkLoopTurn(b *testing.B) {
	noop, _ := tool.NewFunction("Do nothing.", func(context.Context, noopIn) (string, error) { return "ok", nil },
		&tool.FunctionOptions{Name: "noop", ReadOnly: true})
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{noop}})
	a := &agent.Agent{Model: &turnModel{}, Toolkit: tk}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		run := agent.NewRun(nil)
		for _, err := range a.Run(ctx, run, "go") {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/turn")
}
