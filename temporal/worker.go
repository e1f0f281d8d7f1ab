package temporal

import (
	"context"
	"errors"
	"fmt"

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
}

// Serve runs the workers of opts until ctx is done: a workspace worker
// (with TaskQueue and Tools) and a model worker (with Models).
func Serve(ctx context.Context, c client.Client, opts *WorkerOptions) error {
	if opts == nil || (opts.TaskQueue == "" || opts.Tools == nil || opts.Tools.Toolkit == nil) && opts.Models == nil {
		return errors.New("temporal: Serve needs a TaskQueue and Tools with a Toolkit, or Models")
	}
	var workers []worker.Worker
	if opts.TaskQueue != "" && opts.Tools != nil && opts.Tools.Toolkit != nil {
		ws := worker.New(c, opts.TaskQueue, opts.Worker)
		Register(ws, opts.Tools)
		workers = append(workers, ws)
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
			return fmt.Errorf("temporal: starting the worker: %w", err)
		}
	}
	<-ctx.Done()
	for _, w := range workers {
		w.Stop()
	}
	return nil
}
