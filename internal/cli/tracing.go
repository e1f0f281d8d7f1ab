package cli

import (
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/tracing"
)

// startTracing returns the tracer the OpenTelemetry environment asks for
// (run, chat and serve: see tracing.FromEnv), nil when tracing is off. A
// setting it cannot use is a warning: the command runs without tracing.
func startTracing(warn io.Writer) *tracing.Tracer {
	tr, err := tracing.FromEnv(&tracing.EnvOptions{Warnings: warn,
		Resource: []tracing.Attr{tracing.String("service.version", version())}})
	if err != nil {
		fmt.Fprintf(warn, "toolscope: warning: %v; running without tracing\n", err)
		return nil
	}
	return tr
}

// traceFlushTimeout bounds the export of the spans left at exit.
const traceFlushTimeout = 5 * time.Second

// stopTracing exports the spans left, for traceFlushTimeout at most.
func stopTracing(tr *tracing.Tracer) {
	if tr == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), traceFlushTimeout)
	defer cancel()
	tr.Shutdown(ctx)
}

// traceMiddleware is the toolkit's middleware that records each call as
// a span, none when tracing is off.
func (c *common) traceMiddleware() []tool.Middleware {
	if mw := c.tracer.Middleware(); mw != nil {
		return []tool.Middleware{mw}
	}
	return nil
}

// traceModel returns m with a span for each model turn, named after the
// --model spec ("openai:gpt-4o": provider openai, model gpt-4o).
func (f agentFlags) traceModel(m agent.Model) agent.Model {
	spec := *f.model
	if spec == "" {
		spec = os.Getenv("TOOLSCOPE_MODEL")
	}
	provider, name, _ := strings.Cut(spec, ":")
	return f.tracer.Model(m, provider, name)
}

// invoke runs a reply of the agent (run: a.Run or a.Resume) inside the
// run's span.
func (f agentFlags) invoke(ctx context.Context, run func(ctx context.Context) iter.Seq2[agent.Event, error]) iter.Seq2[agent.Event, error] {
	return f.tracer.InvokeAgent(ctx, "toolscope", run)
}
