package cli

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/toolscope/toolscope/internal/live"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

type echoIn struct {
	Text string `json:"text"`
}

// liveKit is a Toolkit of one read-only echo tool, with serve --console's
// middleware when hub is not nil.
func liveKit(b testing.TB, hub *live.Hub) *tool.Toolkit {
	fn, err := tool.NewFunction("Echo the text.", func(_ context.Context, in echoIn) (string, error) { return in.Text, nil },
		&tool.FunctionOptions{Name: "echo", ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	o := &tool.ToolkitOptions{Tools: []tool.Tool{fn}}
	if hub != nil {
		sl := newServeLive(hub, io.Discard)
		o.Middleware = []tool.Middleware{sl.middleware}
		o.Asker = sl
	}
	tk, err := tool.NewToolkit(o)
	if err != nil {
		b.Fatal(err)
	}
	return tk
}

// BenchmarkServeLiveCall is a served call with and without serve
// --console's record of it: the record is a message pair and a version
// bump, the session encoded only when the console reads it.
func BenchmarkServeLiveCall(b *testing.B) {
	key := make([]byte, 32)
	for _, withConsole := range []bool{false, true} {
		name := "plain"
		var hub *live.Hub
		if withConsole {
			name = "console"
			var err error
			if hub, err = live.Start(b.TempDir(), "serve", key); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(name, func(b *testing.B) {
			tk := liveKit(b, hub)
			st := tool.NewState(&permission.Context{Mode: permission.Default})
			in := json.RawMessage(`{"text":"hi"}`)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if r, err := tk.Call(ctx, &tool.Call{ID: "1", Name: "echo", Input: in, State: st}); err != nil || r.Text() != "hi" {
					b.Fatal(err, r.Text())
				}
			}
		})
		if hub != nil {
			hub.Close()
		}
	}
}

// The console's record of a served call costs a bounded number of
// allocations (a message pair, the result kept, the context value), the
// same for the 1st call as for the 2,000th (the session is not encoded
// per call).
func TestServeLiveAllocs(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("allocation counts are measured without the race detector and -short")
	}
	hub, err := live.Start(t.TempDir(), "serve", make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	defer hub.Close()
	in := json.RawMessage(`{"text":"hi"}`)
	count := func(tk *tool.Toolkit) float64 {
		st := tool.NewState(&permission.Context{Mode: permission.Default})
		for range 2000 { // a long session first
			tk.Call(context.Background(), &tool.Call{ID: "1", Name: "echo", Input: in, State: st})
		}
		return testing.AllocsPerRun(200, func() {
			tk.Call(context.Background(), &tool.Call{ID: "1", Name: "echo", Input: in, State: st})
		})
	}
	plain, withConsole := count(liveKit(t, nil)), count(liveKit(t, hub))
	if withConsole > plain+16 {
		t.Errorf("a served call with the console's record: %.0f allocations, without: %.0f; want at most 16 more", withConsole, plain)
	}
}
