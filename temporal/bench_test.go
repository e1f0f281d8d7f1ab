package temporal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/temporal"
	"github.com/toolscope/toolscope/tool"
)

// benchCalls is the number of tool calls of the benchmark's run: one per
// model turn, then the answer.
const benchCalls = 10

func benchScript(dir string) *scripted {
	m := &scripted{}
	for i := range benchCalls {
		m.steps = append(m.steps, step{calls: [][3]string{{fmt.Sprint("c", i), "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(dir, "f.txt"))}}})
	}
	m.steps = append(m.steps, step{text: "done"})
	return m
}

// BenchmarkToolCall times one tool call of an agent run (a model turn that
// asks for a Read, and the Read) in this process with package agent, and
// on Temporal: a dev server on loopback, a worker in this process, the
// same scripted model and toolkit. ns/call is the figure to compare.
func BenchmarkToolCall(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("hello\n"), 0o644)
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: dir})})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("inprocess", func(b *testing.B) {
		a := &agent.Agent{Model: benchScript(dir), Toolkit: tk}
		for b.Loop() {
			r := agent.NewRun(nil)
			var last agent.Event
			for ev, err := range a.Run(context.Background(), r, "go") {
				if err != nil {
					b.Fatal(err)
				}
				last = ev
			}
			if last.Kind != agent.EventReplyEnd || last.Text != "done" {
				b.Fatalf("the run ended with %+v", last)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchCalls), "ns/call")
	})
	b.Run("temporal", func(b *testing.B) {
		c := dial(b)
		q := fmt.Sprint("bench-", time.Now().UnixNano())
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- temporal.Serve(ctx, c, &temporal.WorkerOptions{TaskQueue: q, ModelQueue: q + "-model",
				Tools:  &temporal.Tools{Toolkit: tk},
				Models: &temporal.Models{New: func(string) (agent.Model, error) { return benchScript(dir), nil }}})
		}()
		defer func() { cancel(); <-done }()
		in := temporal.RunInput{Prompt: "go", Permissions: &permission.Context{Mode: permission.Default}, ModelQueue: q + "-model"}
		for b.Loop() {
			run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{TaskQueue: q}, temporal.WorkflowName, in)
			if err != nil {
				b.Fatal(err)
			}
			var out temporal.RunOutput
			if err := run.Get(context.Background(), &out); err != nil || out.Answer != "done" {
				b.Fatalf("the run: %v, %q", err, out.Answer)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchCalls), "ns/call")
	})
}
