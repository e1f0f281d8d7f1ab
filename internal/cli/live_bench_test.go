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
