package tracing_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/tracing"
)

func readCall(root string, st *tool.State) *tool.Call {
	return &tool.Call{ID: "c", Name: "Read", Input: json.RawMessage(`{"file_path":` + mustJSON(filepath.Join(root, "a.txt")) + `}`), State: st}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Tracing off costs a tool call nothing: the nil tracer's middleware is
// nil, and a Toolkit built with it allocates exactly what one built
// without it does. On, a call costs a bounded number of allocations more.
func TestToolCallAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	if raceEnabled {
		t.Skip("the race detector's allocations blur the counts; make test runs this without it")
	}
	measure := func(tr *tracing.Tracer) float64 {
		root, tk, st := world(t, tr)
		c := readCall(root, st)
		ctx := context.Background()
		tk.Call(ctx, c) // warm the read cache and the schema
		return testing.AllocsPerRun(50, func() {
			if r, _ := tk.Call(ctx, c); r.Status != tool.StatusSuccess {
				t.Fatalf("the call: %+v", r)
			}
		})
	}
	plain := measure(nil)
	var off *tracing.Tracer
	if got := measure(off); got != plain {
		t.Errorf("tracing off: %v allocations a call, want %v as without tracing", got, plain)
	}
	tr := tracing.New(&tracing.Memory{}, &tracing.Options{QueueSize: 1 << 16})
	defer tr.Shutdown(context.Background())
	on := measure(tr)
	// A span, its context, its attributes and the middleware's closures.
	const bound = 30
	if on-plain > bound {
		t.Errorf("tracing on: %v allocations a call more than off (%v), want at most %d", on-plain, plain, bound)
	}
	t.Logf("allocations a call: %v off, %v on", plain, on)
}

// The cost of tracing on one tool call (a Read through the Toolkit).
func BenchmarkToolCall(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		var tr *tracing.Tracer
		if on {
			name = "on"
			tr = tracing.New(&tracing.Memory{}, &tracing.Options{QueueSize: 1 << 20})
		}
		b.Run(name, func(b *testing.B) {
			root, tk, st := world(b, tr)
			c := readCall(root, st)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				tk.Call(ctx, c)
			}
		})
		tr.Shutdown(context.Background())
	}
}
