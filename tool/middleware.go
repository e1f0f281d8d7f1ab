package tool

import (
	"context"
	"iter"
)

// Handler runs one call and streams its chunks. The Toolkit's own handler
// does what [Toolkit.Stream] documents: it finds the tool, validates the
// input, asks the permission engine and runs the tool.
type Handler interface {
	Handle(ctx context.Context, call *Call) iter.Seq2[*Chunk, error]
}

// HandlerFunc is a function as a [Handler].
type HandlerFunc func(ctx context.Context, call *Call) iter.Seq2[*Chunk, error]

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, call *Call) iter.Seq2[*Chunk, error] {
	return f(ctx, call)
}

// Middleware wraps a Handler: it sees every call before the Toolkit does
// and every chunk after. It can
//
//   - rewrite the call (a new Input is validated against the tool's schema
//     again, and judged by the permission engine as usual);
//   - transform, add or drop chunks (truncate output, redact, log);
//   - answer without calling next (a cache, a refusal of its own);
//   - bound the call (context.WithTimeout around next).
//
// Middlewares run in the order given, the first outermost: with
// [ToolkitOptions.Middleware] {A, B}, a call goes A → B → the Toolkit, and
// its chunks come back through B, then A. Middlewares of a tool
// ([ToolkitOptions.ToolMiddleware]) run inside the Toolkit-wide ones.
//
// A middleware must stop pulling chunks when its consumer stops (yield
// returns false) and must not keep the Call past its return.
type Middleware func(next Handler) Handler

// chain wraps h in mws, the first outermost.
func chain(h Handler, mws []Middleware) Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		if mws[i] != nil {
			h = mws[i](h)
		}
	}
	return h
}

// handler is the Toolkit's handler with its middlewares: the Toolkit-wide
// ones around the tool's own.
func (tk *Toolkit) handler(name string) Handler {
	if len(tk.mw) == 0 && len(tk.toolMW[name]) == 0 {
		return nil
	}
	h := Handler(HandlerFunc(tk.stream))
	h = chain(h, tk.toolMW[name])
	return chain(h, tk.mw)
}
