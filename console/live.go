package console

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/internal/live"
	"github.com/toolscope/toolscope/tool"
)

// Live is the runs that live in other processes' memory: the sessions of
// a `toolscope serve --console DIR` (and the chats whose run file is in
// DIR, which [Local] shows and answers through the same channel). Each
// process registers in DIR/.toolscope-live; the console talks to it over
// loopback, every request and answer authenticated with the user's
// console key, which a command the agent runs cannot read. A run's ID is
// the process's and the session's: PID.sN.
type Live struct {
	dir string
	c   *live.Client
}

// NewLive returns the source of the live runs registered in dir, talking
// to them with key (host.ConsoleKey).
func NewLive(dir string, key []byte) *Live {
	return &Live{dir: dir, c: live.NewClient(dir, key)}
}

// Kind is "live".
func (l *Live) Kind() string { return "live" }

// endpoints are the registered processes; a registration whose process
// has died (killed before it could remove it) is removed.
func (l *Live) endpoints() []live.Endpoint {
	eps := l.c.Endpoints()
	return slices.DeleteFunc(eps, func(ep live.Endpoint) bool {
		if ep.PID > 0 && syscall.Kill(ep.PID, 0) == syscall.ESRCH {
			os.Remove(filepath.Join(l.dir, live.DirName, ep.Name+".json"))
			return true
		}
		return false
	})
}

// Version hashes the processes' versions.
func (l *Live) Version(ctx context.Context) (string, error) {
	h := sha256.New()
	for _, ep := range l.endpoints() {
		v, err := l.c.Version(ctx, ep)
		if err != nil {
			v = "gone"
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", ep.Name, ep.Addr, v)
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}

func infoOf(ep live.Endpoint, in live.Info) RunInfo {
	ri := RunInfo{ID: ep.Name + "." + in.ID, Project: in.Project, Mode: in.Mode, Model: in.Model, Waiting: in.Waiting, Updated: in.Updated, Status: StatusLive}
	if in.Waiting > 0 {
		ri.Status = StatusWaiting
	}
	return ri
}

// List lists the runs of every registered process (a chat's run, which
// its run file shows, is left to [Local]).
func (l *Live) List(ctx context.Context) ([]RunInfo, error) {
	var out []RunInfo
	for _, ep := range l.endpoints() {
		infos, err := l.c.Runs(ctx, ep)
		if err != nil {
			continue
		}
		for _, in := range infos {
			if in.File == "" {
				out = append(out, infoOf(ep, in))
			}
		}
	}
	slices.SortStableFunc(out, func(a, b RunInfo) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// find is the endpoint and the run id of the console's id PID.RUN.
func (l *Live) find(id string) (live.Endpoint, string, error) {
	name, run, ok := strings.Cut(id, ".")
	if !ok || name == "" || run == "" {
		return live.Endpoint{}, "", ErrNoRun
	}
	for _, ep := range l.endpoints() {
		if ep.Name == name {
			return ep, run, nil
		}
	}
	return live.Endpoint{}, "", ErrNoRun
}

// Load reads one run from its process.
func (l *Live) Load(ctx context.Context, id string) (*Run, error) {
	ep, rid, err := l.find(id)
	if err != nil {
		return nil, err
	}
	s, err := l.c.Load(ctx, ep, rid)
	if err != nil {
		return nil, ErrNoRun
	}
	return runOf(ep, s)
}

func runOf(ep live.Endpoint, s *live.Snapshot) (*Run, error) {
	var ar agent.Run
	if err := json.Unmarshal(s.Run, &ar); err != nil {
		return nil, fmt.Errorf("console: the run of process %d: %v", ep.PID, err)
	}
	if ar.State == nil {
		ar.State = tool.NewState(nil)
	}
	// Only the calls the process waits on the console for are shown as
	// waiting.
	ar.Waiting = slices.DeleteFunc(ar.Waiting, func(w agent.Waiting) bool {
		return w.Status == tool.StatusAsking && !slices.Contains(s.Answerable, w.Call.ID)
	})
	r := &Run{RunInfo: infoOf(ep, s.Info), Agent: &ar, WorkingDirs: slices.DeleteFunc(slices.Clone(s.WorkingDirs), func(d string) bool { return d == "" })}
	return r, nil
}

// Answer sends the answer to the process; it carries it out itself (done
// is called at once: the process goes on on its own).
func (l *Live) Answer(ctx context.Context, id string, a Answer, done func(Outcome)) error {
	ep, rid, err := l.find(id)
	if err != nil {
		return err
	}
	return answerLive(ctx, l.c, ep, rid, a, done)
}

func answerLive(ctx context.Context, c *live.Client, ep live.Endpoint, rid string, a Answer, done func(Outcome)) error {
	if a.InputSHA256 == "" {
		return errors.New("console: an answer to a live run names the input it answers")
	}
	err := c.Answer(ctx, ep, live.Answer{Run: rid, Call: a.CallID, InputSHA256: a.InputSHA256, Approve: a.Approve, Input: a.Input, Always: a.Always, Message: a.Message, By: a.By})
	var se *live.StatusError
	switch {
	case errors.As(err, &se):
		return errors.New(se.Msg)
	case err != nil:
		return fmt.Errorf("the process (%s, pid %d) cannot be reached: %v", ep.Command, ep.PID, err)
	}
	if done != nil {
		done(Outcome{Output: "answered through the live channel of " + ep.Command})
	}
	return nil
}
