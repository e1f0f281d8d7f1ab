package console

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/toolscope/toolscope/agent"
)

// A Source is where the console finds runs and sends answers: the pause
// files of `toolscope run --state` in a directory ([Local]); a Temporal
// namespace is another. IDs are the source's own (a file name, a
// workflow ID) and never contain a slash.
type Source interface {
	// Kind names the source in URLs and in the run list ("local").
	Kind() string
	// List returns the runs, most recently changed first.
	List(ctx context.Context) ([]RunInfo, error)
	// Load reads one run; [ErrNoRun] when id names none.
	Load(ctx context.Context, id string) (*Run, error)
	// Answer answers a waiting call of run id through the same path as the
	// command line does (so a call is answered once, and deny rules still
	// win over an approval). It returns once the answer is recorded; done,
	// if not nil, is called once the run has gone on with it.
	Answer(ctx context.Context, id string, a Answer, done func(Outcome)) error
	// Version changes whenever a run of the source changes (the live
	// updates poll it).
	Version(ctx context.Context) (string, error)
}

// Status is where a run stands.
type Status string

const (
	StatusWaiting   Status = "waiting"   // calls wait for an answer
	StatusAnswering Status = "answering" // an answer is being carried out
	StatusFinished  Status = "finished"  // nothing waits: the reply ended
	StatusLive      Status = "live"      // a live process's run (a serve session): nothing waits now
	StatusError     Status = "error"     // the run could not be read
)

// RunInfo is a run as the run list shows it.
type RunInfo struct {
	ID      string
	Status  Status
	Project string // the run's project directory, when known
	Mode    string // the permission mode
	Model   string
	Waiting int // calls waiting for an approval
	Updated time.Time
	// Err says why the run could not be read (Status is StatusError).
	Err string
}

// Run is one run, whole.
type Run struct {
	RunInfo
	// Agent is the run's conversation and pause state; nil when it could
	// not be read.
	Agent *agent.Run
	// WorkingDirs are the directories the run works in: the only ones
	// whose files the console shows.
	WorkingDirs []string
	// Output is what the last answer's continuation printed (the
	// command's output, for a local run), with Exit its exit code once it
	// ended (nil while it runs).
	Output string
	Exit   *int
}

// Answer is a person's answer to one waiting call.
type Answer struct {
	CallID string
	// Approve runs the call; false refuses it.
	Approve bool
	// Input, when set, is the edited input the call runs with instead; it
	// is judged again before it runs.
	Input json.RawMessage
	// Always also adds the call's suggested rules to the run.
	Always bool
	// Message, with a refusal, is said to the model.
	Message string
	// InputSHA256 is the hex SHA-256 of the call's input as it was shown:
	// a source refuses the answer when the call now waits with another.
	InputSHA256 string
	// By names who answered (the access token's name).
	By string
}

// Outcome is how the run went on after an answer.
type Outcome struct {
	Exit   int
	Output string
	Err    error
}

// ErrNoRun is returned for a run that does not exist.
var ErrNoRun = errors.New("no such run")

// ErrBusy is returned for an answer to a run that is still carrying out
// another one.
var ErrBusy = errors.New("the run is still carrying out an earlier answer; wait for it to finish")
