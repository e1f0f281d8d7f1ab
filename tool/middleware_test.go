package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// trace records the order middlewares see a call and its chunks.
type trace struct {
	mu  sync.Mutex
	log []string
}

func (tr *trace) add(s string) { tr.mu.Lock(); tr.log = append(tr.log, s); tr.mu.Unlock() }

func (tr *trace) mw(name string) tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
			return func(yield func(*tool.Chunk, error) bool) {
				tr.add(name + ">")
				for ch, err := range next.Handle(ctx, c) {
					if !yield(ch, err) {
						return
					}
				}
				tr.add("<" + name)
			}
		})
	}
}

func allowAll() *tool.State { return tool.NewState(&permission.Context{Mode: permission.Bypass}) }

func TestMiddlewareOrder(t *testing.T) {
	tr := &trace{}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{echoTool("echo"), echoTool("other")},
		Middleware:     []tool.Middleware{tr.mw("A"), tr.mw("B")},
		ToolMiddleware: map[string][]tool.Middleware{"echo": {tr.mw("T")}}})
	r := call(t, tk, &tool.Call{Name: "echo", Input: json.RawMessage(`{"text":"hi"}`), State: allowAll()})
	if r.Text() != "hi" || strings.Join(tr.log, " ") != "A> B> T> <T <B <A" {
		t.Errorf("result %q, order %v", r.Text(), tr.log)
	}
	tr.log = nil
	call(t, tk, &tool.Call{Name: "other", Input: json.RawMessage(`{"text":"x"}`), State: allowAll()})
	if strings.Join(tr.log, " ") != "A> B> <B <A" {
		t.Errorf("other tool: order %v", tr.log)
	}
}

// A middleware may rewrite the input; the new input is validated and
// judged again.
func TestMiddlewareRewritesInput(t *testing.T) {
	rewrite := func(in string) tool.Middleware {
		return func(next tool.Handler) tool.Handler {
			return tool.HandlerFunc(func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
				c2 := *c
				c2.Input = json.RawMessage(in)
				return next.Handle(ctx, &c2)
			})
		}
	}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{echoTool("echo")}, Middleware: []tool.Middleware{rewrite(`{"text":"rewritten"}`)}})
	if r := call(t, tk, &tool.Call{Name: "echo", Input: json.RawMessage(`{"text":"orig"}`), State: allowAll()}); r.Text() != "rewritten" {
		t.Errorf("rewrite: %q", r.Text())
	}
	tk = newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{echoTool("echo")}, Middleware: []tool.Middleware{rewrite(`{"text":5}`)}})
	if r := call(t, tk, &tool.Call{Name: "echo", Input: json.RawMessage(`{"text":"orig"}`), State: allowAll()}); r.Status != tool.StatusError {
		t.Errorf("an invalid rewrite ran: %s %q", r.Status, r.Text())
	}
	// Deny rules apply to the rewritten input.
	tk = newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{echoTool("echo")}, Middleware: []tool.Middleware{rewrite(`{"text":"x"}`)}})
	st := tool.NewState(&permission.Context{Mode: permission.Bypass, Deny: []permission.Rule{{Tool: "echo", Behavior: permission.Deny}}})
	if r := call(t, tk, &tool.Call{Name: "echo", Input: json.RawMessage(`{"text":"orig"}`), State: st}); r.Status != tool.StatusDenied {
		t.Errorf("deny after rewrite: %s", r.Status)
	}
}

// A middleware may transform or drop chunks, answer by itself, bound the
// call's time, and end it with an error.
func TestMiddlewareChunksShortCircuitErrors(t *testing.T) {
	upper := func(next tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
			return func(yield func(*tool.Chunk, error) bool) {
				for ch, err := range next.Handle(ctx, c) {
					if ch != nil {
						for i, b := range ch.Content {
							if b.Kind == tool.KindText {
								ch.Content[i].Text = strings.ToUpper(b.Text)
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
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{echoTool("echo")}, Middleware: []tool.Middleware{upper}})
	if r := call(t, tk, &tool.Call{Name: "echo", Input: json.RawMessage(`{"text":"hi"}`), State: allowAll()}); r.Text() != "HI" {
		t.Errorf("transform: %q", r.Text())
	}

	ran := false
	e := echoTool("echo")
	inner := e.call
	e.call = func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
		ran = true
		return inner(ctx, c)
	}
	cached := func(tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(context.Context, *tool.Call) iter.Seq2[*tool.Chunk, error] {
			return func(yield func(*tool.Chunk, error) bool) { yield(tool.Text("from cache"), nil) }
		})
	}
	tk = newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{e}, Middleware: []tool.Middleware{cached}})
	if r := call(t, tk, &tool.Call{Name: "echo", Input: json.RawMessage(`{"text":"hi"}`), State: allowAll()}); r.Text() != "from cache" || ran {
		t.Errorf("short-circuit: %q, tool ran %v", r.Text(), ran)
	}

	slow := &fnTool{info: tool.Info{Name: "slow", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)},
		call: func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
			return func(yield func(*tool.Chunk, error) bool) {
				select {
				case <-ctx.Done():
				case <-time.After(5 * time.Second):
					yield(tool.Text("late"), nil)
				}
			}
		}}
	timeout := func(next tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
			return func(yield func(*tool.Chunk, error) bool) {
				ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
				defer cancel()
				for ch, err := range next.Handle(ctx, c) {
					if !yield(ch, err) {
						return
					}
				}
			}
		})
	}
	tk = newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{slow}, Middleware: []tool.Middleware{timeout}})
	start := time.Now()
	if r := call(t, tk, &tool.Call{Name: "slow", Input: json.RawMessage(`{}`), State: allowAll()}); r.Status != tool.StatusInterrupted || time.Since(start) > 2*time.Second {
		t.Errorf("timeout: %s after %v", r.Status, time.Since(start))
	}

	boom := errors.New("boom")
	failing := func(tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(context.Context, *tool.Call) iter.Seq2[*tool.Chunk, error] {
			return func(yield func(*tool.Chunk, error) bool) { yield(nil, boom) }
		})
	}
	tk = newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{echoTool("echo")}, Middleware: []tool.Middleware{failing}})
	r, err := tk.Call(context.Background(), &tool.Call{Name: "echo", Input: json.RawMessage(`{"text":"hi"}`), State: allowAll()})
	if !errors.Is(err, boom) || r.Status != tool.StatusError {
		t.Errorf("error: %v %s", err, r.Status)
	}
}

func BenchmarkToolkitCallMiddleware(b *testing.B) {
	type in struct {
		Text string `json:"text"`
		N    int    `json:"n,omitempty"`
	}
	f, err := tool.NewFunction("no-op", func(_ context.Context, x in) (string, error) { return x.Text, nil },
		&tool.FunctionOptions{Name: "noop"})
	if err != nil {
		b.Fatal(err)
	}
	noop := func(next tool.Handler) tool.Handler { return next }
	pass := func(next tool.Handler) tool.Handler {
		return tool.HandlerFunc(func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] { return next.Handle(ctx, c) })
	}
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{f}, Middleware: []tool.Middleware{noop, pass, pass}})
	st := tool.NewState(&permission.Context{Mode: permission.Default, Allow: []permission.Rule{{Tool: "noop", Behavior: permission.Allow}}})
	c := &tool.Call{ID: "1", Name: "noop", Input: json.RawMessage(`{"text":"hello","n":3}`), State: st}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := tk.Call(ctx, c)
		if err != nil || r.Status != tool.StatusSuccess {
			b.Fatal(r, err)
		}
	}
}
