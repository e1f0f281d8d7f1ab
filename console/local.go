package console

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/internal/live"
	"github.com/toolscope/toolscope/internal/proc"
	"github.com/toolscope/toolscope/tool"
)

// LocalOptions configure a [Local] source.
type LocalOptions struct {
	// Command is the program and leading arguments that run the toolscope
	// command line; the source appends "run --resume FILE ..." to it. nil
	// means the running executable (the console is toolscope itself).
	Command []string
	// Env is added to the environment of Command.
	Env []string
	// Grace is how long an interrupted continuation (the console stops)
	// has to save its run file before it is killed; 0 means 10s.
	Grace time.Duration
	// LiveKey, when set (host.ConsoleKey), lets the console answer the
	// waiting calls of a chat that is running (its run file is in the
	// directory) through the chat's live channel.
	LiveKey []byte
}

// Local is the run files (the --state FILE of `toolscope run`) in one
// directory. An answer runs `toolscope run --resume FILE --approve ID` (or
// --deny, --always, --input, --message) as a child process: the command
// line's own path, which records the answer in the sealed file before the
// call runs, judges an edited input again and applies the deny rules.
type Local struct {
	dir   string
	cmd   []string
	env   []string
	grace time.Duration
	live  *live.Client // nil: no LiveKey
	ctx   context.Context
	stop  context.CancelFunc
	wg    sync.WaitGroup

	mu   sync.Mutex
	busy map[string]*answering // by run ID: the last answer's continuation
	gen  int                   // counts answers started and ended
}

type answering struct {
	out  lockedBuffer
	exit *int
}

// maxOutput bounds the output kept of one continuation; more is cut with a
// note saying so.
const maxOutput = 1 << 20

type lockedBuffer struct {
	mu  sync.Mutex
	b   bytes.Buffer
	cut int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := maxOutput - l.b.Len(); room < len(p) {
		l.b.Write(p[:max(room, 0)])
		l.cut += len(p) - max(room, 0)
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut > 0 {
		return l.b.String() + fmt.Sprintf("\n[%d more bytes of output were not kept]\n", l.cut)
	}
	return l.b.String()
}

// NewLocal returns the source of the run files in dir. Close it to stop
// (and wait for) the continuations it started.
func NewLocal(dir string, o *LocalOptions) (*Local, error) {
	if o == nil {
		o = &LocalOptions{}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("console: the runs directory %s: %v", dir, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("console: the runs directory %s is not a directory (%v); give the directory of your run files (toolscope run --state DIR/NAME.json) with --runs DIR", dir, err)
	}
	cmd := slices.Clone(o.Command)
	if len(cmd) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("console: cannot find the toolscope executable to resume runs with: %v", err)
		}
		cmd = []string{exe}
	}
	ctx, stop := context.WithCancel(context.Background())
	grace := o.Grace
	if grace <= 0 {
		grace = 10 * time.Second
	}
	l := &Local{dir: abs, cmd: cmd, env: slices.Clone(o.Env), grace: grace, ctx: ctx, stop: stop, busy: map[string]*answering{}}
	if len(o.LiveKey) > 0 {
		l.live = live.NewClient(abs, o.LiveKey)
	}
	return l, nil
}

// Dir is the directory of the run files.
func (l *Local) Dir() string { return l.dir }

// Kind is "local".
func (l *Local) Kind() string { return "local" }

// Close interrupts the continuations still running and waits for them.
func (l *Local) Close() error {
	l.stop()
	l.wg.Wait()
	return nil
}

// maxRunFile bounds the size of a run file the console reads.
const maxRunFile = 64 << 20

// files are the candidate run files: regular *.json files of the
// directory (symbolic links are not followed).
func (l *Local) files() ([]fs.FileInfo, error) {
	ents, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, fmt.Errorf("console: reading the runs directory: %w", err)
	}
	var out []fs.FileInfo
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, info)
	}
	return out, nil
}

// Version hashes the names, sizes and modification times of the run
// files, and the answers started and ended.
func (l *Local) Version(context.Context) (string, error) {
	infos, err := l.files()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, fi := range infos {
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", fi.Name(), fi.Size(), fi.ModTime().UnixNano())
	}
	l.mu.Lock()
	fmt.Fprintf(h, "gen %d\n", l.gen)
	l.mu.Unlock()
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}

// List reads every run file of the directory; JSON files that are not run
// files are left out, run files that cannot be trusted or read are listed
// with the reason.
func (l *Local) List(ctx context.Context) ([]RunInfo, error) {
	infos, err := l.files()
	if err != nil {
		return nil, err
	}
	var out []RunInfo
	for _, fi := range infos {
		r, err := l.load(fi.Name(), fi)
		if err != nil {
			continue // not a run file
		}
		out = append(out, r.RunInfo)
	}
	slices.SortStableFunc(out, func(a, b RunInfo) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// path is the file of run id, or ErrNoRun for a name that is not a run
// file's of the directory.
func (l *Local) path(id string) (string, fs.FileInfo, error) {
	if id == "" || id != filepath.Base(id) || !strings.HasSuffix(id, ".json") || strings.HasPrefix(id, ".") {
		return "", nil, ErrNoRun
	}
	p := filepath.Join(l.dir, id)
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return "", nil, ErrNoRun
	}
	return p, fi, nil
}

// Load reads run id.
func (l *Local) Load(ctx context.Context, id string) (*Run, error) {
	_, fi, err := l.path(id)
	if err != nil {
		return nil, err
	}
	r, err := l.load(id, fi)
	if err != nil {
		return nil, ErrNoRun
	}
	return r, nil
}

// load reads the run file id; an error means it is not a run file at all.
func (l *Local) load(id string, fi fs.FileInfo) (*Run, error) {
	r := &Run{RunInfo: RunInfo{ID: id, Updated: fi.ModTime()}}
	l.mu.Lock()
	if a := l.busy[id]; a != nil {
		r.Output, r.Exit = a.out.String(), a.exit
	}
	answeringNow := l.busy[id] != nil && l.busy[id].exit == nil
	l.mu.Unlock()
	if fi.Size() > maxRunFile {
		r.Status, r.Err = StatusError, fmt.Sprintf("the run file is %d bytes, more than the console reads (%d MiB)", fi.Size(), maxRunFile>>20)
		return r, nil
	}
	ar, err := host.LoadRun(filepath.Join(l.dir, id))
	var herr *host.Error
	switch {
	case errors.As(err, &herr):
		r.Status, r.Err = StatusError, herr.Msg
		return r, nil
	case err != nil:
		return nil, err
	}
	r.Agent = ar
	r.Model = ar.Meta["model"]
	pc := ar.State.Permissions()
	r.Mode = string(pc.Mode)
	if r.Mode == "" {
		r.Mode = "default"
	}
	r.WorkingDirs = slices.Clone(pc.WorkingDirs)
	if cwd := ar.Meta["cwd"]; cwd != "" {
		r.Project = cwd
		if !slices.Contains(r.WorkingDirs, cwd) {
			r.WorkingDirs = append([]string{cwd}, r.WorkingDirs...)
		}
	} else if len(r.WorkingDirs) > 0 {
		r.Project = r.WorkingDirs[0]
	}
	for _, w := range ar.Waiting {
		if w.Status == tool.StatusAsking {
			r.Waiting++
		}
	}
	switch {
	case answeringNow:
		r.Status = StatusAnswering
	case len(ar.Waiting) > 0:
		r.Status = StatusWaiting
	default:
		r.Status = StatusFinished
	}
	return r, nil
}

// Answer runs `toolscope run --resume` with the answer, in the
// background: the run file records the answer before the call runs.
func (l *Local) Answer(ctx context.Context, id string, a Answer, done func(Outcome)) error {
	file, _, err := l.path(id)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.busy[id]; b != nil && b.exit == nil {
		return ErrBusy
	}
	if l.ctx.Err() != nil {
		return errors.New("console: shutting down")
	}
	ar, err := host.LoadRun(file)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(ar.Waiting, func(w agent.Waiting) bool { return w.Call.ID == a.CallID && w.Status == tool.StatusAsking })
	if i < 0 {
		return fmt.Errorf("no call %q waits for approval in this run (it may have been answered already)", a.CallID)
	}
	if a.InputSHA256 != "" && live.InputSHA256(ar.Waiting[i].Call.Input) != a.InputSHA256 {
		return fmt.Errorf("call %q now waits with another input than the one answered; look at it again", a.CallID)
	}
	if ar.Meta["command"] == "chat" {
		// The chat that saved it asks about these calls at its terminal,
		// from the run it holds: the answer goes to that chat, which takes
		// the first answer (its terminal's or this one); the file is never
		// resumed behind its back, which would run a call twice.
		if ep, rid, ok := l.chatOf(ctx, id); ok {
			l.mu.Unlock()
			defer l.mu.Lock()
			return answerLive(ctx, l.live, ep, rid, a, done)
		}
		return errors.New("this is a toolscope chat's run, and that chat cannot be reached: its waiting calls are answered at its terminal (or, if it has ended, continue it with toolscope chat --state FILE)")
	}
	args := append(slices.Clone(l.cmd[1:]), "run", "--resume", file)
	if a.Approve {
		args = append(args, "--approve", a.CallID)
		if a.Always {
			args = append(args, "--always")
		}
		if len(a.Input) > 0 {
			args = append(args, "--input", string(a.Input))
		}
	} else {
		args = append(args, "--deny", a.CallID)
		if a.Message != "" {
			args = append(args, "--message", a.Message)
		}
	}
	cmd := proc.Command(l.ctx, l.cmd[0], args...)
	cmd.Env = append(os.Environ(), l.env...)
	// Stopping the console interrupts the run (its process group) as
	// Ctrl-C would: it saves the run file and ends its commands; what is
	// left after the grace time is killed.
	cmd.Cancel = func() error { return proc.EndGroup(cmd, syscall.SIGINT) }
	cmd.WaitDelay = l.grace
	st := &answering{}
	cmd.Stdout, cmd.Stderr = &st.out, &st.out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("console: starting %s: %v", l.cmd[0], err)
	}
	l.busy[id] = st
	l.gen++
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		err := cmd.Wait()
		// What the continuation left running in its group (a command
		// that ignored the interrupt) ends with it.
		proc.EndGroup(cmd, syscall.SIGKILL)
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code, err = ee.ExitCode(), nil
		}
		l.mu.Lock()
		st.exit = &code
		l.gen++
		l.mu.Unlock()
		if done != nil {
			done(Outcome{Exit: code, Output: st.out.String(), Err: err})
		}
	}()
	return nil
}

// chatOf finds the running chat whose run file is id.
func (l *Local) chatOf(ctx context.Context, id string) (live.Endpoint, string, bool) {
	if l.live == nil {
		return live.Endpoint{}, "", false
	}
	for _, ep := range l.live.Endpoints() {
		if ep.Command != "chat" {
			continue
		}
		infos, err := l.live.Runs(ctx, ep)
		if err != nil {
			continue
		}
		for _, in := range infos {
			if in.File == id {
				return ep, in.ID, true
			}
		}
	}
	return live.Endpoint{}, "", false
}
