package cli

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// spinner shows, on a terminal, that something is under way (the model
// thinking, a long tool call) and for how long, on one line it redraws
// and clears when the next event comes. A nil *spinner does nothing (not
// a terminal, or --json).
type spinner struct {
	w     io.Writer
	every time.Duration

	mu    sync.Mutex
	stop  chan struct{}
	done  chan struct{}
	drawn bool
}

func newSpinner(w io.Writer, on bool) *spinner {
	if !on {
		return nil
	}
	return &spinner{w: w, every: 100 * time.Millisecond}
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// start shows what while it lasts, after a short wait (a fast step shows
// nothing); the previous one stops first.
func (s *spinner) start(what string) {
	if s == nil {
		return
	}
	s.end()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	stop, done := s.stop, s.done
	begun := time.Now()
	go func() {
		defer close(done)
		t := time.NewTicker(s.every)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			if time.Since(begun) < 3*s.every {
				continue
			}
			s.mu.Lock()
			fmt.Fprintf(s.w, "\r%s %s %ds\x1b[K", spinnerFrames[i%len(spinnerFrames)], what, int(time.Since(begun).Seconds()))
			s.drawn = true
			s.mu.Unlock()
		}
	}()
}

// end stops the spinner and clears its line.
func (s *spinner) end() {
	if s == nil {
		return
	}
	s.mu.Lock()
	stop, done := s.stop, s.done
	s.stop, s.done = nil, nil
	s.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	<-done
	s.mu.Lock()
	if s.drawn {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.drawn = false
	}
	s.mu.Unlock()
}
