package tool

import (
	"context"
	"errors"
	"iter"
	"slices"
	"sync"
)

// CallBatch runs the calls of one model turn and returns their results in call
// order. Consecutive calls to concurrency-safe tools run in parallel; the
// others run one at a time. Once a call needs approval or an external result,
// the calls after its run are not started: they come back [StatusPending], to
// be sent again after the answer, so that no call overtakes one it may depend
// on. The error joins the infrastructure errors of all calls.
func (tk *Toolkit) CallBatch(ctx context.Context, calls []*Call) ([]*Result, error) {
	return tk.batch(ctx, calls, nil)
}

// BatchEvent is one step of [Toolkit.StreamBatch]: a chunk of the call at
// Index as it streams (Chunk set), or the call's final result (Result
// set, with Err when its infrastructure failed).
type BatchEvent struct {
	Index  int
	Chunk  *Chunk
	Result *Result
	Err    error
}

// StreamBatch is CallBatch as a stream of events, so that an agent can show
// each call's progress: the chunks of every call as they come (calls that
// run in parallel interleave), and each call's result once it ends, with
// the same scheduling as CallBatch (calls not started end StatusPending).
// Stopping the iteration cancels the calls still running.
func (tk *Toolkit) StreamBatch(ctx context.Context, calls []*Call) iter.Seq[BatchEvent] {
	return func(yield func(BatchEvent) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		events := make(chan BatchEvent, 16)
		go func() {
			defer close(events)
			send := func(ev BatchEvent) {
				select {
				case events <- ev:
				case <-ctx.Done():
				}
			}
			tk.batch(ctx, calls, func(i int, c *Chunk, r *Result, err error) {
				send(BatchEvent{Index: i, Chunk: c, Result: r, Err: err})
			})
		}()
		for ev := range events {
			if !yield(ev) {
				cancel()
				for range events { // let the calls end
				}
				return
			}
		}
	}
}

// batch runs the calls of a turn (see CallBatch), telling observe (when
// not nil) of every chunk and of every call's end.
func (tk *Toolkit) batch(ctx context.Context, calls []*Call, observe func(i int, c *Chunk, r *Result, err error)) ([]*Result, error) {
	// One listing of each source for the whole turn.
	if t, ok := ctx.Value(turnKey{}).(*turn); !ok || t.tk != tk {
		ctx = tk.BeginTurn(ctx)
	}
	results := make([]*Result, len(calls))
	safe := make([]bool, len(calls))
	for i, c := range calls {
		safe[i] = true // unknown tools are safe: they only produce an error result
		active := []string(nil)
		if c.State != nil {
			active = c.State.ActiveGroups()
		}
		if e, _ := tk.lookup(ctx, c.Name, active); e != nil {
			safe[i] = e.info.ConcurrencySafe
		}
	}
	var (
		mu   sync.Mutex
		errs []error
	)
	call := func(i int) {
		var see func(*Chunk)
		if observe != nil {
			see = func(c *Chunk) { observe(i, c, nil, nil) }
		}
		r, err := tk.call(ctx, calls[i], see)
		results[i] = r
		if observe != nil {
			observe(i, nil, r, err)
		}
		if err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	}
	waiting := func(r *Result) bool { return r.Status == StatusAsking || r.Status == StatusSubmitted }
	stop := false
	for i := 0; i < len(calls); {
		j := i + 1
		for j < len(calls) && safe[j] == safe[i] {
			j++
		}
		switch {
		case stop:
		case safe[i]:
			var wg sync.WaitGroup
			for k := i; k < j; k++ {
				wg.Go(func() { call(k) })
			}
			wg.Wait()
			stop = slices.ContainsFunc(results[i:j], waiting)
		default:
			for k := i; k < j && !stop; k++ {
				call(k)
				stop = waiting(results[k])
			}
		}
		i = j
	}
	for i, r := range results {
		if r == nil {
			results[i] = &Result{ID: calls[i].ID, Name: calls[i].Name, Input: calls[i].Input, Status: StatusPending}
			if observe != nil {
				observe(i, nil, results[i], nil)
			}
		}
	}
	return results, errors.Join(errs...)
}
