package console

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
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
