package temporal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Register registers the workflow and a workspace's activities on w, a
// worker of the workspace's task queue.
func Register(w worker.Registry, t *Tools) {
	w.RegisterWorkflowWithOptions(Agent, workflow.RegisterOptions{Name: WorkflowName})
	w.RegisterActivityWithOptions(t.Prepare, activity.RegisterOptions{Name: PrepareActivity})
	w.RegisterActivityWithOptions(t.Turn, activity.RegisterOptions{Name: TurnActivity})
	w.RegisterActivityWithOptions(t.Call, activity.RegisterOptions{Name: CallActivity})
	w.RegisterActivityWithOptions(t.Covered, activity.RegisterOptions{Name: CoveredActivity})
	w.RegisterActivityWithOptions(t.Prompt, activity.RegisterOptions{Name: PromptActivity})
	w.RegisterActivityWithOptions(t.Stop, activity.RegisterOptions{Name: StopActivity})
	w.RegisterActivityWithOptions(t.Subagent, activity.RegisterOptions{Name: SubagentActivity})
	w.RegisterActivityWithOptions(t.PreCompact, activity.RegisterOptions{Name: PreCompactActivity})
}

// RegisterModels registers the model activity on w, a worker of the model
// queue.
func RegisterModels(w worker.Registry, m *Models) {
	w.RegisterActivityWithOptions(m.Model, activity.RegisterOptions{Name: ModelActivity})
}

// WorkerOptions configure [Serve].
type WorkerOptions struct {
	// TaskQueue is the workspace's queue: its runs and their tool calls;
	// Tools are the workspace's activities. Without them the worker
	// serves model turns only.
	TaskQueue string
	Tools     *Tools
	// Models, when set, serve model turns on ModelQueue ("" means
	// DefaultModelQueue) too.
	Models     *Models
	ModelQueue string
	// Worker are the SDK's options of both workers.
	Worker worker.Options
	// ShellIdle: the background shells of a run that no call touched
	// for this long are killed (default 1h), and ShellCheck is how often
	// the worker looks for them and for runs that ended without killing
	// theirs (terminated, timed out; default 30s).
	ShellIdle, ShellCheck time.Duration
}

// Serve runs the workers of opts until ctx is done: a workspace worker
// (with TaskQueue and Tools) and a model worker (with Models). The
// workspace worker also serves the background shells it starts, on a
// queue of its own (see the README): Serve sets them up in opts.Tools
// (serve one Tools once at a time), and kills them before it returns.
// Without Serve (Register on a worker of one's own), a run starts no
// background shell: Bash refuses run_in_background, saying why.
func Serve(ctx context.Context, c client.Client, opts *WorkerOptions) error {
	if opts == nil || (opts.TaskQueue == "" || opts.Tools == nil || opts.Tools.Toolkit == nil) && opts.Models == nil {
		return errors.New("temporal: Serve needs a TaskQueue and Tools with a Toolkit, or Models")
	}
	var workers []worker.Worker
	var shells *shellHost
	if opts.TaskQueue != "" && opts.Tools != nil && opts.Tools.Toolkit != nil {
		ws := worker.New(c, opts.TaskQueue, opts.Worker)
		Register(ws, opts.Tools)
		workers = append(workers, ws)
		// The background shells this worker starts are called on a queue
		// of its own (see shells.go), with slots of their own: a worker
		// busy with commands still answers for its shells.
		shells = newShellHost(opts.TaskQueue)
		opts.Tools.shells = shells
		so := opts.Worker
		so.MaxConcurrentActivityExecutionSize = 0
		sw := worker.New(c, shells.queue, so)
		sw.RegisterActivityWithOptions(opts.Tools.Call, activity.RegisterOptions{Name: CallActivity})
		sw.RegisterActivityWithOptions(opts.Tools.EndShells, activity.RegisterOptions{Name: EndShellsActivity})
		workers = append(workers, sw)
	}
	if opts.Models != nil {
		q := opts.ModelQueue
		if q == "" {
			q = DefaultModelQueue
		}
		mw := worker.New(c, q, opts.Worker)
		RegisterModels(mw, opts.Models)
		workers = append(workers, mw)
	}
	for i, w := range workers {
		if err := w.Start(); err != nil {
			for _, s := range workers[:i] {
				s.Stop()
			}
			if shells != nil {
				shells.close()
			}
			return fmt.Errorf("temporal: starting the worker: %w", err)
		}
	}
	var reaper sync.WaitGroup
	if shells != nil {
		check, idle := opts.ShellCheck, opts.ShellIdle
		if check <= 0 {
			check = 30 * time.Second
		}
		if idle <= 0 {
			idle = time.Hour
		}
		reaper.Go(func() { shells.serveReaper(ctx, c, check, idle) })
	}
	<-ctx.Done()
	for _, w := range workers {
		w.Stop()
	}
	reaper.Wait()
	if shells != nil {
		// A worker that stops leaves no shell behind.
		shells.close()
	}
	return nil
}
