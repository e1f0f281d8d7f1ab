package console

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/permission"
)

// LogName is the decision log's file name in the runs directory.
const LogName = "console-decisions.jsonl"

// Entry is one line of the decision log: an answer given in the console
// (Action approve, approve_edited, always or deny) or how the run went on
// after it (Action outcome).
type Entry struct {
	Time   time.Time `json:"time"`
	Who    string    `json:"who"` // the access token's name
	Source string    `json:"source"`
	Run    string    `json:"run"`
	Call   string    `json:"call"`
	Tool   string    `json:"tool,omitempty"`
	Action string    `json:"action"`
	// Input is the exact input the answer approves (the edited one, when
	// edited) or refuses.
	Input json.RawMessage `json:"input,omitempty"`
	// OriginalInput is the model's input, when the answer edited it.
	OriginalInput json.RawMessage `json:"original_input,omitempty"`
	Rules         []string        `json:"rules,omitempty"`   // added by "always"
	Message       string          `json:"message,omitempty"` // said to the model with a denial
	Exit          *int            `json:"exit,omitempty"`    // outcome: the continuation's exit code
	Error         string          `json:"error,omitempty"`
	// Behavior and Reason are a decision's (Action decision): allow, ask
	// or deny, and why; Rules then are the rules that decided.
	Behavior string `json:"behavior,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// decisionLog appends entries to a JSONL file, one write per line.
type decisionLog struct {
	mu   sync.Mutex
	path string
}

func (l *decisionLog) add(e Entry) error {
	if l == nil || l.path == "" {
		return nil
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("console: the decision log %s: %v", l.path, err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("console: writing the decision log %s: %v", l.path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ExportAll writes every decision and answer as JSONL to w, in time
// order: the decision log at path (the console's answers and how the runs
// went on), and the decisions of the runs of srcs, each from its run's
// transcript (Action "decision", Who "engine" or "user": the call's
// decision with its time, behaviour, reason, the rules that decided and
// the exact input). It returns how many lines it wrote.
func ExportAll(ctx context.Context, path string, w io.Writer, srcs ...Source) (int, error) {
	var log bytes.Buffer
	if _, err := Export(path, &log); err != nil {
		return 0, err
	}
	var entries []Entry
	sc := bufio.NewScanner(&log)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return 0, err
		}
		entries = append(entries, e)
	}
	for _, src := range srcs {
		runs, err := src.List(ctx)
		if err != nil {
			return 0, err
		}
		for _, ri := range runs {
			run, err := src.Load(ctx, ri.ID)
			if err != nil || run.Agent == nil {
				continue // a run that cannot be read has no decisions to tell
			}
			entries = append(entries, decisions(src.Kind(), ri.ID, run.Agent)...)
		}
	}
	// A waiting call's decision is in the log (its answer's) and, until
	// the answer is carried out, in its run too: once.
	seen := map[string]bool{}
	entries = slices.DeleteFunc(entries, func(e Entry) bool {
		if e.Action != "decision" {
			return false
		}
		k := e.Source + "\x00" + e.Run + "\x00" + e.Call + "\x00" + e.Time.Format(time.RFC3339Nano)
		dup := seen[k]
		seen[k] = true
		return dup
	})
	slices.SortStableFunc(entries, func(a, b Entry) int { return a.Time.Compare(b.Time) })
	var out bytes.Buffer
	for _, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			return 0, err
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	_, err := w.Write(out.Bytes())
	return len(entries), err
}

// decisions are the timed decisions of a run's transcript and of its
// waiting calls, each with its call's exact input.
func decisions(kind, id string, r *agent.Run) []Entry {
	inputs := map[string]json.RawMessage{}
	for _, m := range r.Messages {
		for _, c := range m.ToolCalls {
			inputs[c.ID] = c.Input
		}
	}
	entry := func(call, name string, input json.RawMessage, d *permission.Decision) Entry {
		if in, ok := inputs[call]; ok && len(input) == 0 {
			input = in
		}
		return decisionEntry(kind, id, call, name, input, d)
	}
	var out []Entry
	for _, m := range r.Messages {
		if res := m.Result; res != nil && res.Decision != nil && !res.Decision.At.IsZero() {
			out = append(out, entry(res.ID, res.Name, res.Input, res.Decision))
		}
	}
	for _, w := range r.Waiting {
		if d := w.Decision; d != nil && !d.At.IsZero() {
			out = append(out, entry(w.Call.ID, w.Call.Name, w.Call.Input, d))
		}
	}
	return out
}

// decisionEntry is the log line of a call's decision: who made it (the
// user, for an answer at a terminal or through a hook's asker; else the
// engine), when, and the rules that decided.
func decisionEntry(kind, id, call, name string, input json.RawMessage, d *permission.Decision) Entry {
	who := "engine"
	if d.Reason == "User approval" || d.Reason == "Denied by the user" {
		who = "user"
	}
	var rules []string
	for _, rl := range d.Rules {
		rules = append(rules, rl.String())
	}
	return Entry{Time: d.At, Who: who, Source: kind, Run: id, Call: call, Tool: name, Action: "decision",
		Input: input, Behavior: string(d.Behavior), Reason: d.Reason, Rules: rules}
}

// Export copies the decision log at path to w, checking that every line
// is an entry; a missing log is an empty one.
func Export(path string, w io.Writer) (int, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("console: reading the decision log: %v", err)
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	var out bytes.Buffer
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			return 0, fmt.Errorf("console: the decision log %s, line %d, is not a decision entry (%v); it was not exported", path, line, err)
		}
		out.Write(sc.Bytes())
		out.WriteByte('\n')
		n++
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("console: reading the decision log %s: %v", path, err)
	}
	_, err = w.Write(out.Bytes())
	return n, err
}
