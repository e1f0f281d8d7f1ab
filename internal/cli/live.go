package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/internal/inputview"
	"github.com/toolscope/toolscope/internal/live"
	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// startHub registers this process with the toolscope console that watches
// dir (its --runs directory).
func startHub(dir, command string) (*live.Hub, error) {
	key, err := host.ConsoleKey()
	if err != nil {
		return nil, err
	}
	return live.Start(dir, command, key)
}

// serveLive is serve's channel to toolscope console (serve --console DIR):
// each MCP session is a run the console shows (its calls, with their
// decisions and results), and a call that needs approval waits for the
// console's answer instead of asking the client by elicitation. The MCP
// servers' own questions still go to the client (ElicitAsker's Elicit).
type serveLive struct {
	mcp.ElicitAsker
	hub     *live.Hub
	tk      *tool.Toolkit // for the titles and hints of waiting calls; set after setup
	project string
	dirs    []string
	stderr  io.Writer

	mu       sync.Mutex
	sessions map[any]*liveSession
	n        int
}

// liveSession is one MCP session as the console sees it.
type liveSession struct {
	run *live.Run
	mu  sync.Mutex
	ar  *agent.Run
	n   int // calls so far: their ids are c1, c2, ...
}

// maxLiveCalls bounds the calls a session shows: the oldest go first.
const maxLiveCalls = 500

// maxLiveResult bounds the text of one result the console gets.
const maxLiveResult = 64 << 10

type liveCallKey struct{}

func newServeLive(hub *live.Hub, stderr io.Writer) *serveLive {
	return &serveLive{hub: hub, stderr: stderr, sessions: map[any]*liveSession{}}
}

// session is the console's run of the session of ctx (one run for the
// calls of no session: stateless HTTP).
func (l *serveLive) session(ctx context.Context, st *tool.State) *liveSession {
	var key any = "stateless"
	sk, ok := mcp.CallSession(ctx)
	if ok {
		key = sk
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.sessions[key]
	if s != nil {
		return s
	}
	l.n++
	id := "s" + strconv.Itoa(l.n)
	// The session's state is not shown (it is the server's, changing
	// under other calls); its mode is.
	info := live.Info{Project: l.project, Mode: "default"}
	if st != nil {
		if m := st.Permissions().Mode; m != "" {
			info.Mode = string(m)
		}
	}
	s = &liveSession{run: l.hub.Add(id, info, l.dirs), ar: &agent.Run{}}
	s.run.SetSource(func() ([]byte, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return json.Marshal(s.ar)
	})
	l.sessions[key] = s
	if ok {
		go func() { // the run goes with its session
			sk.Wait()
			l.mu.Lock()
			delete(l.sessions, key)
			l.mu.Unlock()
			s.run.Remove()
		}()
	}
	return s
}

// publish says the session changed (the console reads it when it looks).
// s.mu is held.
func (s *liveSession) publish() {
	// The oldest go 64 calls at a time: a long session does not move
	// its whole record at every call.
	if n := len(s.ar.Messages) - 2*maxLiveCalls; n > 2*64 {
		s.ar.Messages = slices.Delete(s.ar.Messages, 0, n)
	}
	s.run.Changed()
}

// middleware records each call of a session, with its decision and
// result, and names it (the Asker's waiting call) in the context.
func (l *serveLive) middleware(next tool.Handler) tool.Handler {
	return tool.HandlerFunc(func(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
		return func(yield func(*tool.Chunk, error) bool) {
			s := l.session(ctx, call.State)
			s.mu.Lock()
			s.n++
			id := "c" + strconv.Itoa(s.n)
			s.ar.Messages = append(s.ar.Messages, agent.Message{Role: agent.Assistant, ToolCalls: []agent.ToolCall{{ID: id, Name: call.Name, Input: call.Input}}})
			s.publish()
			s.mu.Unlock()
			r := &tool.Result{ID: id, Name: call.Name, Input: call.Input}
			defer func() {
				r.Finish()
				n := 0
				for _, b := range r.Content {
					n += len(b.Text) + len(b.Data)
				}
				if n > maxLiveResult {
					text := r.Text()
					r.Content = []tool.Block{tool.TextBlock(text[:min(len(text), maxLiveResult)] + fmt.Sprintf("\n[the result's %d bytes are cut to %d in the console]", n, maxLiveResult))}
				}
				s.mu.Lock()
				s.ar.Messages = append(s.ar.Messages, agent.Message{Role: agent.ToolRole, Result: r})
				s.publish()
				s.mu.Unlock()
			}()
			for c, err := range next.Handle(context.WithValue(ctx, liveCallKey{}, id), call) {
				if c != nil {
					_ = r.Append(c)
				}
				if !yield(c, err) {
					return
				}
			}
		}
	})
}

// Ask implements tool.Asker (AskApproval is what the Toolkit uses).
func (l *serveLive) Ask(ctx context.Context, call *tool.Call, d permission.Decision) (bool, []permission.Rule, error) {
	a, err := l.AskApproval(ctx, call, d)
	return a.Approve, a.Rules, err
}

// AskApproval puts the call to the console and waits for its answer, as
// long as the client's request lasts.
func (l *serveLive) AskApproval(ctx context.Context, call *tool.Call, d permission.Decision) (tool.Approval, error) {
	if why := unshowable(string(call.Input)); why != "" {
		return tool.Approval{}, fmt.Errorf("not asking about this call: %s", why)
	}
	id, _ := ctx.Value(liveCallKey{}).(string)
	if id == "" {
		return tool.Approval{}, errors.New("the call cannot be shown in toolscope console")
	}
	s := l.session(ctx, call.State)
	c := agent.ToolCall{ID: id, Name: call.Name, Input: call.Input}
	w := agent.Waiting{Call: c, Status: tool.StatusAsking, Decision: &d}
	if l.tk != nil && call.State != nil {
		for _, sc := range l.tk.Schemas(ctx, call.State.ActiveGroups()) {
			if sc.Name == call.Name {
				w.Title = sc.Title
				if sc.Annotations != (tool.Annotations{}) {
					a := sc.Annotations
					w.Annotations = &a
				}
				break
			}
		}
	}
	s.mu.Lock()
	s.ar.Waiting = append(s.ar.Waiting, w)
	answers, done := s.run.Expect([]agent.ToolCall{c})
	s.publish()
	s.mu.Unlock()
	defer func() {
		done()
		s.mu.Lock()
		for i, w := range s.ar.Waiting {
			if w.Call.ID == id {
				s.ar.Waiting = append(s.ar.Waiting[:i], s.ar.Waiting[i+1:]...)
				break
			}
		}
		s.publish()
		s.mu.Unlock()
	}()
	fmt.Fprintf(l.stderr, "toolscope: %s (call %s of session %s) waits for an answer in toolscope console\n", inputview.Escape(call.Name), id, s.run.ID())
	select {
	case a := <-answers[id]:
		ap := tool.Approval{Approve: a.Approve, Input: a.Input, Message: a.Message}
		if a.Approve && a.Always && !d.BypassImmune {
			ap.Rules = d.Suggestions
		}
		return ap, nil
	case <-ctx.Done():
		return tool.Approval{}, fmt.Errorf("no answer came from toolscope console before the call ended: %w", context.Cause(ctx))
	case <-l.hub.Done():
		return tool.Approval{}, errors.New("the channel to toolscope console closed before an answer came")
	}
}

// chatLive is a chat's channel to toolscope console: its run, and the
// answers the console gives to the calls the chat asks about.
type chatLive struct {
	hub *live.Hub
	run *live.Run
}

// startChatLive registers a chat whose run file is file with the console
// that watches file's directory; nil (with a warning) when it cannot.
func startChatLive(file string, r *agent.Run, stderr io.Writer) *chatLive {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil
	}
	hub, err := startHub(filepath.Dir(abs), "chat")
	if err != nil {
		fmt.Fprintf(stderr, "toolscope: warning: toolscope console cannot answer this chat's approvals: %v\n", err)
		return nil
	}
	pc := r.State.Permissions()
	info := live.Info{File: filepath.Base(abs), Project: r.Meta["cwd"], Model: r.Meta["model"]}
	run := hub.Add(filepath.Base(abs), info, append([]string{r.Meta["cwd"]}, pc.WorkingDirs...))
	run.Publish(r)
	return &chatLive{hub: hub, run: run}
}

func (c *chatLive) close() {
	if c != nil {
		c.hub.Close()
	}
}

// consoleAnswer turns the console's answer into the agent's.
func consoleAnswer(w agent.Waiting, a live.Answer) agent.Answer {
	ans := agent.Answer{CallID: w.Call.ID, Approve: a.Approve, Input: a.Input, Message: a.Message}
	if a.Approve && a.Always && w.Decision != nil && !w.Decision.BypassImmune {
		ans.Rules = w.Decision.Suggestions
	}
	if len(ans.Input) > 0 && string(ans.Input) == string(w.Call.Input) {
		ans.Input = nil
	}
	return ans
}

var _ tool.ApprovalAsker = (*serveLive)(nil)

// asyncLines reads lines from in on a goroutine of its own, one line for
// each request, so that a prompt can stop waiting for one (the console
// answered) while the line the user types later goes to the next reader.
type asyncLines struct {
	in      lineReader
	once    sync.Once
	req     chan struct{}
	out     chan lineResult
	pending bool // a line was asked for and not taken
	// stale is set when a prompt stopped waiting (the console answered):
	// the line the user was typing then, if it is only an answer to that
	// prompt ("y", "n", "always", or empty), is dropped, with a note to
	// notes, instead of going to the model as the next message.
	stale bool
	notes io.Writer
}

type lineResult struct {
	s   string
	err error
}

func newAsyncLines(in lineReader, notes io.Writer) *asyncLines {
	return &asyncLines{in: in, notes: notes, req: make(chan struct{}), out: make(chan lineResult, 1)}
}

func (a *asyncLines) start() {
	a.once.Do(func() {
		go func() {
			for range a.req {
				s, err := a.in.ReadString('\n')
				a.out <- lineResult{s, err}
			}
		}()
	})
}

// next waits for a line, or for stop (nil: only the line); ok is false
// when stop came first (the line is kept for the next reader).
func (a *asyncLines) next(stop <-chan struct{}) (s string, err error, ok bool) {
	a.start()
	if !a.pending {
		a.req <- struct{}{}
		a.pending = true
	}
	for {
		select {
		case r := <-a.out:
			a.pending = false
			if a.stale {
				a.stale = false
				if w := strings.ToLower(strings.TrimSpace(r.s)); r.err == nil && slices.Contains([]string{"", "y", "yes", "n", "no", "a", "always"}, w) {
					if a.notes != nil {
						fmt.Fprintf(a.notes, "(%q is not sent: the call it answered was answered in toolscope console)\n", w)
					}
					a.req <- struct{}{}
					a.pending = true
					continue
				}
			}
			return r.s, r.err, true
		case <-stop:
			a.stale = a.pending
			return "", nil, false
		}
	}
}

// close ends the reading goroutine once it is idle (a read in progress
// ends with its input).
func (a *asyncLines) close() {
	a.start()
	close(a.req)
}

// ReadString implements lineReader (the delimiter is always a newline).
func (a *asyncLines) ReadString(byte) (string, error) {
	s, err, _ := a.next(nil)
	return s, err
}

// askChat asks about the waiting calls of r at the terminal, each one
// also open to the console's answer; the first answer counts.
func (c *chatLive) askChat(ctx context.Context, r *agent.Run, lines *asyncLines, stderr io.Writer, notify func(agent.Waiting)) []agent.Answer {
	c.run.Publish(r)
	answers, done := c.run.Expect(live.Waiting(r))
	defer done()
	var out []agent.Answer
	for _, w := range r.Waiting {
		if w.Status != tool.StatusAsking {
			continue
		}
		d := w.Decision
		if d == nil {
			d = &permission.Decision{Message: "Permission required"}
		}
		notify(w)
		fromConsole := func(a live.Answer) {
			verb := "denied"
			if a.Approve {
				verb = "approved"
			}
			by := ""
			if a.By != "" {
				by = " by " + inputview.Escape(a.By)
			}
			fmt.Fprintf(stderr, "\n%s %s in toolscope console%s.\n", inputview.Escape(w.Call.Name), verb, by)
			out = append(out, consoleAnswer(w, a))
		}
		select {
		case a := <-answers[w.Call.ID]:
			fromConsole(a)
			continue
		default:
		}
		console := answers[w.Call.ID]
		took := make(chan live.Answer, 1) // the console's answer, once taken
		stop := make(chan struct{})       // closed when it was
		quit := make(chan struct{})
		go func() {
			select {
			case a := <-console:
				took <- a
				close(stop)
			case <-quit:
			}
		}()
		approve, always, answered := promptStop(lines, stderr, w.Call.Name, string(w.Call.Input), d, stop)
		close(quit)
		if !answered || !c.run.Withdraw(w.Call.ID) {
			// The console answered (first): its answer is taken, or
			// still in its channel.
			select {
			case a := <-took:
				fromConsole(a)
			case a := <-console:
				fromConsole(a)
			}
			continue
		}
		ans := agent.Answer{CallID: w.Call.ID, Approve: approve}
		if always && !d.BypassImmune {
			ans.Rules = d.Suggestions
		}
		out = append(out, ans)
	}
	return out
}

// consoleKey is the user's console key (host.ConsoleKey).
func consoleKey() ([]byte, error) { return host.ConsoleKey() }
