// Package tconsole is the Temporal source of toolscope's web console
// (package console): the runs of a namespace, their transcripts and
// waiting calls, answered as toolscope approve and deny answer them.
package tconsole

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/client"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/console"
	"github.com/toolscope/toolscope/temporal"
	"github.com/toolscope/toolscope/tool"
)

// Source is a Temporal namespace's runs as a [console.Source].
type Source struct {
	c         client.Client
	namespace string
}

// New returns the runs of namespace on c.
func New(c client.Client, namespace string) *Source {
	return &Source{c: c, namespace: namespace}
}

// Kind implements console.Source.
func (s *Source) Kind() string { return "temporal" }

// ID is a workflow id as the console names it: without a slash (a
// sub-agent's run is PARENT/agent/CALL), "~" written "~~" and "/" "~s".
func ID(workflowID string) string {
	return strings.ReplaceAll(strings.ReplaceAll(workflowID, "~", "~~"), "/", "~s")
}

// WorkflowID is the workflow id of the console's id.
func WorkflowID(id string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		if id[i] != '~' {
			b.WriteByte(id[i])
			continue
		}
		if i+1 == len(id) {
			return "", console.ErrNoRun
		}
		i++
		switch id[i] {
		case '~':
			b.WriteByte('~')
		case 's':
			b.WriteByte('/')
		default:
			return "", console.ErrNoRun
		}
	}
	return b.String(), nil
}

// List implements console.Source: the namespace's running runs, newest
// first, waiting ones with the number of calls they wait on.
func (s *Source) List(ctx context.Context) ([]console.RunInfo, error) {
	list, err := temporal.ListWaiting(ctx, s.c, s.namespace, true)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(list, func(a, b *temporal.Status) int { return b.Start.Compare(a.Start) })
	var out []console.RunInfo
	for _, st := range list {
		out = append(out, info(st))
	}
	return out, nil
}

func info(st *temporal.Status) console.RunInfo {
	ri := console.RunInfo{ID: ID(st.WorkflowID), Updated: st.Start, Status: console.StatusAnswering}
	for _, w := range st.Waiting {
		if w.Status == tool.StatusAsking {
			ri.Waiting++
		}
	}
	switch {
	case st.Closed():
		ri.Status = console.StatusFinished
	case len(st.Waiting) > 0:
		ri.Status = console.StatusWaiting
	}
	return ri
}

// Load implements console.Source: the run's conversation (the workflow's
// run query while it runs, its result once it ended) and waiting calls.
func (s *Source) Load(ctx context.Context, id string) (*console.Run, error) {
	wf, err := WorkflowID(id)
	if err != nil {
		return nil, err
	}
	st, err := temporal.Describe(ctx, s.c, wf)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", console.ErrNoRun, err)
	}
	run := &console.Run{RunInfo: info(st)}
	switch {
	case st.Output != nil:
		run.Agent = st.Output.Run
		run.Output = st.Output.Answer
	case st.Err != nil:
		run.Status, run.Err = console.StatusError, st.Err.Error()
	default:
		v, err := s.c.QueryWorkflow(ctx, wf, "", temporal.RunQuery)
		if err != nil {
			run.Status, run.Err = console.StatusError, fmt.Sprintf("the run's worker did not answer: %v", err)
			return run, nil
		}
		var r agent.Run
		if err := v.Get(&r); err != nil {
			return nil, err
		}
		run.Agent = &r
	}
	if run.Agent != nil && run.Agent.State != nil {
		pc := run.Agent.State.Permissions()
		run.Mode = string(pc.Mode)
		// The working directories are the worker's (its root, which the
		// run records, and its settings' other directories): its files
		// are shown when the console runs where they are.
		run.WorkingDirs = slices.Clone(pc.WorkingDirs)
		if root := run.Agent.Meta["cwd"]; root != "" {
			run.Project = root
			if !slices.Contains(run.WorkingDirs, root) {
				run.WorkingDirs = append([]string{root}, run.WorkingDirs...)
			}
		} else if len(run.WorkingDirs) > 0 {
			run.Project = run.WorkingDirs[0]
		}
	}
	return run, nil
}

// Answer implements console.Source: the answer goes to the run as
// toolscope approve and deny send it (an update the workflow validates:
// a call is answered once; deny rules judge an edited input again).
func (s *Source) Answer(ctx context.Context, id string, a console.Answer, done func(console.Outcome)) error {
	wf, err := WorkflowID(id)
	if err != nil {
		return err
	}
	ta := temporal.Answer{CallID: a.CallID, Approve: a.Approve, Input: a.Input, Always: a.Always && a.Approve}
	if !a.Approve {
		ta.Message = a.Message
	}
	pause, err := temporal.AnswerCall(ctx, s.c, wf, ta)
	if err != nil {
		return err
	}
	if done != nil {
		go func() {
			// The run goes on: its outcome is its next pause or its end.
			wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
			defer cancel()
			st, err := temporal.Wait(wctx, s.c, wf, pause)
			switch {
			case err != nil:
				done(console.Outcome{Exit: 1, Err: err})
			case st.Output != nil:
				done(console.Outcome{Output: st.Output.Answer})
			case st.Closed():
				done(console.Outcome{Exit: 1, Err: fmt.Errorf("the run ended %s: %v", strings.ToLower(st.State), st.Err)})
			default:
				done(console.Outcome{Exit: 3, Output: fmt.Sprintf("run %s waits for approval again", st.WorkflowID)})
			}
		}()
	}
	return nil
}

// Version implements console.Source: it changes when a run starts, ends,
// pauses or is answered.
func (s *Source) Version(ctx context.Context) (string, error) {
	list, err := temporal.ListWaiting(ctx, s.c, s.namespace, true)
	if err != nil {
		return "", err
	}
	slices.SortFunc(list, func(a, b *temporal.Status) int { return strings.Compare(a.WorkflowID, b.WorkflowID) })
	h := sha256.New()
	for _, st := range list {
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\x00", st.WorkflowID, st.RunID, st.Pause, len(st.Waiting))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

var _ console.Source = (*Source)(nil)
