package cli

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/tool"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// On a terminal, chat shows a spinner while the model thinks and while a
// call runs, and clears it before the next output; with --json, or off a
// terminal, none.
func TestSpinner(t *testing.T) {
	defer func(f func(io.Writer) bool) { isTerminalOut = f }(isTerminalOut)
	isTerminalOut = func(io.Writer) bool { return true }
	call := &agent.ToolCall{ID: "c1", Name: "Bash"}
	slow := func(yield func(agent.Event, error) bool) {
		time.Sleep(600 * time.Millisecond) // the model thinks
		if !yield(agent.Event{Kind: agent.EventToolCall, Call: call}, nil) {
			return
		}
		time.Sleep(600 * time.Millisecond) // the call runs
		r := &tool.Result{Status: tool.StatusSuccess, Content: []tool.Block{tool.TextBlock("done")}}
		if !yield(agent.Event{Kind: agent.EventToolResult, Call: call, Result: r}, nil) {
			return
		}
		yield(agent.Event{Kind: agent.EventReplyEnd, Text: "ok"}, nil)
	}
	var stdout bytes.Buffer
	stderr := &lockedBuffer{}
	if _, err := show(slow, &stdout, stderr, false); err != nil {
		t.Fatal(err)
	}
	got := stderr.String()
	for _, want := range []string{" thinking 0s\x1b[K", " running Bash 0s\x1b[K", "\r\x1b[K\n[Bash c1]", "\r\x1b[K[Bash success] done"} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%q", want, got)
		}
	}
	stderr = &lockedBuffer{}
	stdout.Reset()
	show(slow, &stdout, stderr, true)
	if strings.Contains(stderr.String(), "thinking") || strings.Contains(stdout.String(), "thinking") {
		t.Errorf("--json drew a spinner: %q %q", stderr.String(), stdout.String())
	}
}

// Text meant for the model (system reminders) is not shown to people.
func TestShowHidesReminders(t *testing.T) {
	call := &agent.ToolCall{ID: "c1", Name: "Read"}
	seq := func(yield func(agent.Event, error) bool) {
		r := &tool.Result{Status: tool.StatusSuccess, Content: []tool.Block{tool.TextBlock("<system-reminder>The file is empty.</system-reminder>\n(empty)")}}
		if !yield(agent.Event{Kind: agent.EventToolResult, Call: call, Result: r}, nil) {
			return
		}
		yield(agent.Event{Kind: agent.EventText, Text: "Done.<system-reminder>for the model</system-reminder>"}, nil)
	}
	var stdout, stderr bytes.Buffer
	if _, err := show(seq, &stdout, &stderr, false); err != nil {
		t.Fatal(err)
	}
	if s := stdout.String() + stderr.String(); strings.Contains(s, "system-reminder") || !strings.Contains(s, "(empty)") || !strings.Contains(s, "Done.") {
		t.Errorf("shown: %q", s)
	}
}
