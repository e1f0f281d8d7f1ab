// Package tcli is the Temporal build's commands: worker, run --temporal,
// approve, deny and runs.
package tcli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/internal/cli"
	"github.com/toolscope/toolscope/internal/inputview"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/temporal"
)

// Options are the CLI's options with the Temporal commands.
func Options() *cli.Options {
	return &cli.Options{Commands: map[string]cli.Command{
		"worker": {Usage: "worker --temporal ADDR --task-queue Q [--sandbox] [--config F] [--cwd D] [--model M] (serve a workspace's runs)", Run: runWorker},
		"run":    {Usage: "run --temporal ADDR --task-queue Q [--id WORKFLOW_ID] [--mode M] [--allow R]... 'PROMPT' (a durable run)", Run: runRun},
		"approve": {Usage: "approve --temporal ADDR [--always] [--input JSON] WORKFLOW_ID CALL_ID", Run: func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
			return runAnswer(ctx, "approve", args, stdout, stderr)
		}},
		"deny": {Usage: "deny --temporal ADDR WORKFLOW_ID CALL_ID", Run: func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
			return runAnswer(ctx, "deny", args, stdout, stderr)
		}},
		"runs":    {Usage: "runs --temporal ADDR [--all] [--json] (the runs waiting for approval)", Run: runRuns},
		"console": {Usage: "console [--temporal ADDR [--namespace NS]] [--http 127.0.0.1:PORT] [--runs DIR] [--auth-token [NAME=]TOKEN]... [--export FILE] (the web approval console: run files and a namespace's runs)", Run: runConsole},
	}}
}

// conn are the flags that say where Temporal is.
type conn struct {
	addr, namespace *string
	verbose         *bool
}

func connFlags(f *cli.Flags) conn {
	ns := os.Getenv("TEMPORAL_NAMESPACE")
	if ns == "" {
		ns = "default"
	}
	fs := f.FlagSet()
	return conn{
		fs.String("temporal", os.Getenv("TEMPORAL_ADDRESS"), "the Temporal frontend, host:port (default $TEMPORAL_ADDRESS)"),
		fs.String("namespace", ns, "the Temporal namespace (default $TEMPORAL_NAMESPACE or default)"),
		fs.Bool("verbose", false, "log the Temporal SDK's information messages"),
	}
}

func (c conn) dial(stderr io.Writer) (client.Client, error) {
	if *c.addr == "" {
		return nil, cli.UsageError("--temporal ADDR is needed (host:port of the Temporal frontend, e.g. 127.0.0.1:7233), or $TEMPORAL_ADDRESS")
	}
	level := slog.LevelWarn
	if *c.verbose {
		level = slog.LevelInfo
	}
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})))
	cl, err := client.Dial(client.Options{HostPort: *c.addr, Namespace: *c.namespace, Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("connecting to Temporal at %s: %w", *c.addr, err)
	}
	return cl, nil
}

func runWorker(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f := cli.NewFlags("worker", stdout, true)
	cn := connFlags(f)
	fs := f.FlagSet()
	queue := fs.String("task-queue", "", "the workspace's task queue: its runs and their tool calls (required)")
	model := fs.String("model", "", "model of the runs that name none: openai:NAME or anthropic:NAME (default $TOOLSCOPE_MODEL)")
	modelQueue := fs.String("model-queue", temporal.DefaultModelQueue, `the shared queue of model turns this worker serves; "none" serves none`)
	maxCalls := fs.Int("max-calls", 0, "the most tool calls (and model turns) this worker runs at once (default: the SDK's, 1000)")
	shellIdle := fs.Duration("shell-idle", time.Hour, "kill a run's background shells when no call touched them this long")
	if err := f.Parse(args); err != nil {
		return err
	}
	if len(f.Args()) > 0 {
		return cli.UsageError("worker takes no arguments, got %q", f.Args()[0])
	}
	switch {
	case *queue == "":
		return cli.UsageError("worker needs --task-queue Q: the workspace's queue, which runs started with run --task-queue Q go to (none: serve model turns only)")
	case *shellIdle <= 0:
		return cli.UsageError("worker: --shell-idle must be a positive duration (e.g. 1h), got %s", *shellIdle)
	case *queue == "none" && *modelQueue == "none":
		return cli.UsageError("worker: --task-queue none and --model-queue none leave nothing to serve")
	}
	mode, err := f.Mode()
	if err != nil {
		return err
	}
	opts := &temporal.WorkerOptions{
		Worker:    worker.Options{WorkerStopTimeout: 5 * time.Second, MaxConcurrentActivityExecutionSize: *maxCalls},
		ShellIdle: *shellIdle,
	}
	where := "no workspace"
	if *queue != "none" {
		// The worker keeps the runs' background shells between their
		// calls, and kills them when the runs end (temporal.Serve).
		f.OfferBackground()
		ws, err := f.Workspace(ctx, stderr)
		if err != nil {
			return err
		}
		defer ws.Close()
		opts.TaskQueue = *queue
		opts.Tools = &temporal.Tools{Toolkit: ws.Toolkit, Permissions: ws.Permissions, Mode: mode, Root: ws.Root,
			PromptHook: ws.PromptHook(), StopHook: ws.StopHook(), PreCompactHook: ws.PreCompact()}
		// The runs may start sub-agents (child workflows) of the kinds
		// of the workspace's agent files.
		if err := opts.Tools.EnableSubagents(ws.Subagents()); err != nil {
			return err
		}
		where = fmt.Sprintf("%s on task queue %q", ws.Root, *queue)
	}
	c, err := cn.dial(stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	if *modelQueue != "none" {
		opts.ModelQueue = *modelQueue
		opts.Models = &temporal.Models{New: func(spec string) (agent.Model, error) {
			if spec == "" {
				spec = *model
			}
			return cli.NewModel(spec)
		}}
	}
	fmt.Fprintf(stderr, "toolscope: worker for %s", where)
	if opts.Models != nil {
		fmt.Fprintf(stderr, " (and model turns on %q)", opts.ModelQueue)
	}
	fmt.Fprintln(stderr)
	return temporal.Serve(ctx, c, opts)
}

func runRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if !cli.TemporalFlag(args) {
		return cli.Run(ctx, append([]string{"run"}, args...), stdin, stdout, stderr, nil)
	}
	f := cli.NewFlags("run", stdout, true)
	cn := connFlags(f)
	fs := f.FlagSet()
	queue := fs.String("task-queue", "", "the workspace's task queue, served by its worker (required)")
	id := fs.String("id", "", "the workflow id of the run (default: one the server picks)")
	model := fs.String("model", "", "model: openai:NAME or anthropic:NAME (default: the model worker's)")
	modelQueue := fs.String("model-queue", "", "the queue of model turns (default "+temporal.DefaultModelQueue+")")
	system := fs.String("system", cli.DefaultSystemPrompt, "system prompt")
	approvalTimeout := fs.Duration("approval-timeout", 0, "refuse a call that no one answers in this time (default: wait for ever)")
	heartbeat := fs.Duration("heartbeat-timeout", 0, "give a tool call up as interrupted when its worker is silent this long (default 10s)")
	shellTimeout := fs.Duration("shell-timeout", 0, "take a background shell for gone with its worker when that worker does not take a call for it this soon (default 10s)")
	continueAfter := fs.Int("continue-after", 0, "continue the run as a new one (same workflow id, a new history) after this many model turns (default: when Temporal says its history grows large)")
	noWait := fs.Bool("no-wait", false, "print the workflow id and return at once")
	if err := f.Parse(args); err != nil {
		return err
	}
	if len(f.Args()) != 1 {
		return cli.UsageError("run --temporal needs one prompt: toolscope run --temporal ADDR --task-queue Q 'PROMPT'")
	}
	if *queue == "" {
		return cli.UsageError("run --temporal needs --task-queue Q: the queue of the workspace's worker (toolscope worker --task-queue Q)")
	}
	pc, err := f.Permissions(stderr)
	if err != nil {
		return err
	}
	mode, _ := f.Mode() // valid: Permissions parsed it
	keep := mode != ""
	c, err := cn.dial(stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	in := temporal.RunInput{Prompt: f.Args()[0], System: *system, Permissions: pc, KeepMode: keep,
		Model: *model, ModelQueue: *modelQueue, ApprovalTimeout: *approvalTimeout, HeartbeatTimeout: *heartbeat, ContinueAfter: *continueAfter,
		ShellTimeout: *shellTimeout}
	run, err := temporal.Start(ctx, c, *id, *queue, in)
	if err != nil {
		return fmt.Errorf("starting the run: %w", err)
	}
	fmt.Fprintln(stdout, run.GetID())
	if *noWait {
		return nil
	}
	return waitAndShow(ctx, c, cn, run.GetID(), 0, stdout, stderr)
}

// waitAndShow waits for the run to end or pause, and says so: the answer
// (exit 0), the waiting calls (exit 3), or the failure (exit 1).
func waitAndShow(ctx context.Context, c client.Client, cn conn, id string, after int, stdout, stderr io.Writer) error {
	st, err := temporal.Wait(ctx, c, id, after)
	if err != nil {
		return fmt.Errorf("waiting for run %s: %w", id, err)
	}
	if !st.Closed() {
		if st.WorkflowID != id {
			// A sub-agent of the run waits: its run has the calls.
			fmt.Fprintf(stderr, "toolscope: run %s waits for its sub-agent, whose run %s waits:\n", inputview.Escape(id), inputview.Escape(st.WorkflowID))
			id = st.WorkflowID
		}
		if full, err := temporal.Pending(ctx, c, id); err == nil {
			cli.DescribeWaiting(stderr, full) // whole inputs, escaped
		} else {
			describe(stderr, st.Waiting)
		}
		return cli.Exit(3, fmt.Sprintf("run %s waits for approval; answer with: toolscope approve --temporal %s %s CALL_ID (or deny)", id, *cn.addr, id))
	}
	if st.Parent != nil && st.Output != nil {
		// A sub-agent's run ended: its answer goes to the run that
		// started it, which goes on; wait for that one.
		fmt.Fprintf(stderr, "toolscope: the sub-agent's run %s ended; its answer went to run %s\n", inputview.Escape(id), inputview.Escape(st.Parent.WorkflowID))
		parent, err := temporal.Describe(ctx, c, st.Parent.WorkflowID)
		if err != nil {
			return fmt.Errorf("waiting for run %s: %w", st.Parent.WorkflowID, err)
		}
		return waitAndShow(ctx, c, cn, st.Parent.WorkflowID, parent.Pause, stdout, stderr)
	}
	if st.Output != nil {
		fmt.Fprintln(stdout, st.Output.Answer)
		return nil
	}
	return fmt.Errorf("run %s ended %s: %v", id, strings.ToLower(st.State), st.Err)
}

func describe(w io.Writer, calls []temporal.WaitingCall) {
	var waiting []agent.Waiting
	for _, x := range calls {
		wt := agent.Waiting{Call: agent.ToolCall{ID: x.ID, Name: x.Name, Input: shownInput(x)}, Status: x.Status}
		if x.Message != "" || len(x.Suggestions) > 0 {
			wt.Decision = decision(x)
		}
		waiting = append(waiting, wt)
	}
	cli.DescribeWaiting(w, waiting)
}

func runAnswer(ctx context.Context, verb string, args []string, stdout, stderr io.Writer) error {
	f := cli.NewFlags(verb, stdout, false)
	cn := connFlags(f)
	fs := f.FlagSet()
	var always *bool
	var input *string
	if verb == "approve" {
		always = fs.Bool("always", false, "also add the call's suggested rules, so that calls like it run without asking")
		input = fs.String("input", "", "run the call with this input (JSON) instead of the model's")
	}
	noWait := fs.Bool("no-wait", false, "return once the answer is recorded, without waiting for the run")
	if err := f.Parse(args); err != nil {
		return err
	}
	if len(f.Args()) != 2 {
		return cli.UsageError("%s needs WORKFLOW_ID CALL_ID (toolscope runs --temporal ADDR lists the waiting calls)", verb)
	}
	id, call := f.Args()[0], f.Args()[1]
	a := temporal.Answer{CallID: call, Approve: verb == "approve"}
	if always != nil {
		a.Always = *always
		if *input != "" {
			if !json.Valid([]byte(*input)) {
				return cli.UsageError("--input is not JSON: %s", *input)
			}
			a.Input = json.RawMessage(*input)
		}
	}
	c, err := cn.dial(stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	if a.Approve {
		// What is approved is shown whole first, escaped; a call whose
		// input cannot be shown so is not approvable.
		pending, err := temporal.Pending(ctx, c, id)
		if err != nil {
			if st, derr := temporal.Describe(ctx, c, id); derr == nil && st.Closed() {
				return cli.Exit(1, fmt.Sprintf("approve %s %s: no call %q waits: the run is over (%s)", inputview.Escape(id), inputview.Escape(call), inputview.Escape(call), strings.ToLower(st.State)))
			}
			return cli.Exit(1, fmt.Sprintf("approve %s %s: the waiting call cannot be read to show it (%v); nothing was approved", inputview.Escape(id), inputview.Escape(call), err))
		}
		i := slices.IndexFunc(pending, func(w agent.Waiting) bool { return w.Call.ID == call })
		if i < 0 {
			why := ""
			if st, err := temporal.Describe(ctx, c, id); err == nil && st.Subagent != "" {
				why = fmt.Sprintf(": the run waits for its sub-agent, whose run %s has the calls to answer", inputview.Escape(st.Subagent))
			}
			return cli.Exit(1, fmt.Sprintf("approve %s %s: no call %q waits%s", inputview.Escape(id), inputview.Escape(call), inputview.Escape(call), why))
		}
		w := pending[i]
		in := string(w.Call.Input)
		if a.Input != nil {
			in = string(a.Input)
		}
		if why := cli.Unshowable(in); why != "" {
			return cli.Exit(1, fmt.Sprintf("approve %s %s: call %s (%s) cannot be approved: %s; deny it", inputview.Escape(id), inputview.Escape(call), inputview.Escape(call), inputview.Escape(w.Call.Name), why))
		}
		fmt.Fprintf(stderr, "toolscope: approving call %s of run %s: %s %s\n", inputview.Escape(call), inputview.Escape(id), inputview.Escape(w.Call.Name), inputview.Escape(in))
	}
	pause, err := temporal.AnswerCall(ctx, c, id, a)
	if err != nil {
		if st, derr := temporal.Describe(ctx, c, id); derr == nil && st.Closed() {
			err = fmt.Errorf("no call %q waits: the run is over (%s)", call, strings.ToLower(st.State))
		}
		return cli.Exit(1, fmt.Sprintf("%s %s %s: %v", verb, id, call, err))
	}
	past := map[string]string{"approve": "approved", "deny": "denied"}[verb]
	fmt.Fprintf(stderr, "toolscope: %s call %s of run %s\n", past, call, id)
	if *noWait {
		return nil
	}
	return waitAndShow(ctx, c, cn, id, pause, stdout, stderr)
}

func runRuns(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f := cli.NewFlags("runs", stdout, false)
	cn := connFlags(f)
	all := f.FlagSet().Bool("all", false, "list the running runs that wait on nothing too")
	asJSON := f.FlagSet().Bool("json", false, "print JSON")
	if err := f.Parse(args); err != nil {
		return err
	}
	if len(f.Args()) > 0 {
		return cli.UsageError("runs takes no arguments, got %q", f.Args()[0])
	}
	c, err := cn.dial(stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	list, err := temporal.ListWaiting(ctx, c, *cn.namespace, *all)
	if err != nil {
		return fmt.Errorf("listing the runs: %w", err)
	}
	slices.SortFunc(list, func(a, b *temporal.Status) int { return b.Start.Compare(a.Start) })
	if *asJSON {
		type runJSON struct {
			WorkflowID string                 `json:"workflow_id"`
			RunID      string                 `json:"run_id"`
			Start      time.Time              `json:"start"`
			Waiting    []temporal.WaitingCall `json:"waiting"`
			Subagent   string                 `json:"subagent,omitempty"`
			Parent     *temporal.ParentRef    `json:"parent,omitempty"`
		}
		out := []runJSON{}
		for _, s := range list {
			w := s.Waiting
			if w == nil {
				w = []temporal.WaitingCall{}
			}
			out = append(out, runJSON{s.WorkflowID, s.RunID, s.Start, w, s.Subagent, s.Parent})
		}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(list) == 0 {
		fmt.Fprintln(stderr, "toolscope: no run waits")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKFLOW ID\tCALL ID\tTOOL\tWAITS FOR\tINPUT")
	for _, s := range list {
		if len(s.Waiting) == 0 && s.Subagent != "" {
			fmt.Fprintf(tw, "%s\t-\tAgent\tsub-agent %s\t-\n", inputview.Escape(s.WorkflowID), inputview.Escape(s.Subagent))
		} else if len(s.Waiting) == 0 {
			fmt.Fprintf(tw, "%s\t-\t-\trunning\t-\n", inputview.Escape(s.WorkflowID))
		}
		for _, w := range s.Waiting {
			what := "approval"
			if w.Status == "submitted" {
				what = "external result"
			}
			// Whole, escaped: a listing that cuts would hide what an
			// approval of this call runs (see approve, which shows it too).
			in := inputview.Escape(string(shownInput(w)))
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", inputview.Escape(s.WorkflowID), inputview.Escape(w.ID), inputview.Escape(w.Name), what, in)
		}
	}
	return tw.Flush()
}

// shownInput is a waiting call's input as the memo has it, or its size
// when the memo leaves it out.
func shownInput(w temporal.WaitingCall) json.RawMessage {
	if w.Input == nil && w.InputSize > 0 {
		return json.RawMessage(fmt.Sprintf(`"(%d bytes of input; toolscope.pending has it)"`, w.InputSize))
	}
	return w.Input
}

// decision is a waiting call's decision as its memo has it.
func decision(x temporal.WaitingCall) *permission.Decision {
	d := &permission.Decision{Behavior: permission.Ask, Message: x.Message, Reason: x.Reason, BypassImmune: x.BypassImmune}
	for _, s := range x.Suggestions {
		if r, err := permission.ParseRule(s); err == nil {
			d.Suggestions = append(d.Suggestions, r)
		}
	}
	return d
}
