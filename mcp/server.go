package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/toolscope/toolscope/internal/inputview"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// ServerOptions configures a [Server]; nil means the defaults.
type ServerOptions struct {
	// Name and Version identify the server to its clients; "" means
	// "toolscope" and "devel".
	Name, Version string
	// State gives the agent state a call runs with, for the session with
	// the given id ("" on a stateless HTTP server, where every request is
	// its own session), and a function the Server calls once the call has
	// ended (to save the state, say). Nil means one State in memory per
	// session, made by NewState: right for stdio and stateful HTTP, but a
	// stateless server then forgets everything between requests (a file
	// read is not known to a later Edit); give it a State that loads from
	// and saves to storage its replicas share.
	State func(ctx context.Context, session string) (st *tool.State, release func(), err error)
	// NewState makes the state of a new session (nil: tool.NewState(nil),
	// Default mode).
	NewState func() *tool.State
	// Logger gets the server's warnings; nil means slog.Default().
	Logger *slog.Logger
	// MaxMessageBytes bounds one message from a client (a stdio line, an
	// HTTP request body); a bigger one is refused with a JSON-RPC error and
	// the session goes on. 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int
	// SessionIdle ends an HTTP session that has had no request for this
	// long (its state is forgotten; the client gets 404 and starts a new
	// session); 0 means DefaultSessionIdle, a negative value never.
	SessionIdle time.Duration
	// MaxSessions bounds the HTTP sessions open at once; a client that
	// would open one more is refused (503, with a JSON-RPC error that says
	// so). 0 means DefaultMaxSessions, a negative value no bound.
	MaxSessions int
	// DrainTimeout bounds how long stopping waits for the calls in
	// progress to end after they were cancelled; 0 means 10 s.
	DrainTimeout time.Duration
	// AuthToken, when not "", is the secret every HTTP request must carry
	// as "Authorization: Bearer TOKEN"; a request without it, or with
	// another, is refused (401, with a JSON-RPC error) before it reaches a
	// session. Compared in constant time. Serving on an address other
	// than loopback without a token lets anyone who can reach the port run
	// the tools: see [HTTPHandler].
	AuthToken string
	// AllowedHosts names the hosts, besides loopback names and addresses
	// and the IP address a request arrived on, that an HTTP request's
	// Host header may name (without a port; case does not matter): the
	// names clients use to reach this server, the bound host name. Any
	// other Host is refused (403): this is what stops DNS rebinding, a web
	// page whose name resolves to this server's address.
	AllowedHosts []string
	// ApprovalKey seals the approvals asked of clients of MCP 2026-07-28
	// (the requestState of an input_required result), so that the answer
	// counts only for the call that was shown. Servers that answer one
	// another's retries (stateless HTTP replicas behind a load balancer)
	// need the same key; nil means a random key of this Server. At least
	// 32 bytes.
	ApprovalKey []byte
}

// The defaults of ServerOptions.
const (
	DefaultSessionIdle = 30 * time.Minute
	DefaultMaxSessions = 256
)

// Server serves a Toolkit's tools to MCP clients. Every call goes through
// the Toolkit, so through its permission engine: a call the engine denies
// is an error result; a call that needs approval is put to the client's
// user by elicitation when the Toolkit's Asker is [ElicitAsker] and the
// client supports it, and is refused with the decision's message
// otherwise. Under MCP 2026-07-28, which has no requests from server to
// client, the form goes out as an input_required result and the answer
// comes back with the client's retry, bound to the call that was shown
// (mrtr.go); older revisions get an elicitation request. The tools are those of the basic group and of the groups
// active in the state of the latest call; when they change, clients are
// told (tools/list_changed).
type Server struct {
	// stateKey seals the request states of approvals asked under MCP
	// 2026-07-28 (mrtr.go).
	stateKey []byte
	tk       *tool.Toolkit
	opts     ServerOptions
	sdk      *sdk.Server
	logger   *slog.Logger

	mu     sync.Mutex
	states map[*sdk.ServerSession]*tool.State
	shown  map[string]tool.Schema // tool name -> the tool as served
	// What the served tools were listed with, when synced: the Toolkit's
	// ListVersion and the active groups (see sync).
	synced  bool
	version uint64
	groups  []string

	cmu     sync.Mutex
	running map[*runningCall]bool // the calls in progress
	reqs    sync.Map              // requestHeader token -> the context of the HTTP request
}

// runningCall is a call in progress, to be cancelled when its client goes
// away or the server stops.
type runningCall struct {
	session *sdk.ServerSession
	http    bool
	cancel  context.CancelCauseFunc
}

// NewServer returns a server of tk's tools. To have approvals asked of the
// client's user, build tk with tool.ToolkitOptions{Asker: mcp.ElicitAsker{}}.
func NewServer(tk *tool.Toolkit, opts *ServerOptions) *Server {
	s := &Server{stateKey: newStateKey(), tk: tk, states: map[*sdk.ServerSession]*tool.State{}, shown: map[string]tool.Schema{}, running: map[*runningCall]bool{}}
	if opts != nil {
		s.opts = *opts
	}
	if len(s.opts.ApprovalKey) >= 32 {
		s.stateKey = s.opts.ApprovalKey
	}
	if s.opts.Name == "" {
		s.opts.Name = "toolscope"
	}
	if s.opts.Version == "" {
		s.opts.Version = "devel"
	}
	if s.opts.MaxMessageBytes <= 0 {
		s.opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	switch {
	case s.opts.SessionIdle == 0:
		s.opts.SessionIdle = DefaultSessionIdle
	case s.opts.SessionIdle < 0:
		s.opts.SessionIdle = 0
	}
	switch {
	case s.opts.MaxSessions == 0:
		s.opts.MaxSessions = DefaultMaxSessions
	case s.opts.MaxSessions < 0:
		s.opts.MaxSessions = 0
	}
	if s.opts.DrainTimeout <= 0 {
		s.opts.DrainTimeout = 10 * time.Second
	}
	if s.opts.NewState == nil {
		s.opts.NewState = func() *tool.State { return tool.NewState(nil) }
	}
	s.logger = s.opts.Logger
	if s.logger == nil {
		s.logger = slog.Default()
	}
	// The SDK answers prompts/list (with no prompts) whether or not the
	// capability is declared: declare it (empty, never changing), so that
	// what the server says of itself is what it does.
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: s.opts.Name, Version: s.opts.Version}, &sdk.ServerOptions{Logger: s.opts.Logger,
		Capabilities: &sdk.ServerCapabilities{Logging: &sdk.LoggingCapabilities{}, Prompts: &sdk.PromptCapabilities{}}})
	return s
}

// Serve serves one client over r and w (stdio: os.Stdin and os.Stdout)
// until the client leaves or ctx ends.
//
// A malformed message (not JSON, not JSON-RPC 2.0, too large) is answered
// with a JSON-RPC error and the session goes on. When the client leaves
// (r ends), its calls in progress are cancelled. When ctx ends, Serve
// stops: calls that arrive from then on are refused, the calls in
// progress are cancelled (a Bash command's processes are killed) and
// answered as interrupted, and Serve returns an [*InterruptedError]
// (wrapping context.Cause(ctx)) once they are, or after
// ServerOptions.DrainTimeout.
func (s *Server) Serve(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	if err := s.sync(ctx, nil); err != nil {
		return err
	}
	t := &frameTransport{r: r, w: w, max: s.opts.MaxMessageBytes}
	base := context.WithoutCancel(ctx)
	ss, err := s.sdk.Connect(base, t, nil)
	if err != nil {
		return err
	}
	call := func(id jsonrpc.ID, params json.RawMessage) bool { return s.directCall(base, t.conn, ss, id, params) }
	t.conn.call.Store(&call)
	defer t.conn.Close() // the SDK closes it too; this ends the idle workers in any case
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	mine := func(c *runningCall) bool { return c.session == ss }
	select {
	case err := <-ended:
		// The client left: cancel its calls, and wait for them to end,
		// so that nothing they started outlives a server about to exit.
		s.interrupt(mine, errClientGone)
		deadline := time.Now().Add(s.opts.DrainTimeout)
		s.waitCalls(mine, s.opts.DrainTimeout)
		t.conn.waitDirect(deadline)
		if errors.Is(err, io.EOF) {
			err = nil
		}
		return err
	case <-ctx.Done():
	}
	idle := t.conn.stop()
	n := s.interrupt(mine, errStopping{context.Cause(ctx)})
	deadline := time.Now().Add(s.opts.DrainTimeout)
	timer := time.NewTimer(s.opts.DrainTimeout)
	defer timer.Stop()
	select {
	case <-idle:
	case <-timer.C:
	}
	ss.Close()
	select {
	case <-ended:
	case <-timer.C:
	}
	t.conn.waitDirect(deadline)
	return &InterruptedError{Calls: n, Cause: context.Cause(ctx)}
}

// InterruptedError is what serving returns when its context ended: Calls
// calls were in progress, were cancelled and answered as interrupted.
type InterruptedError struct {
	Calls int
	Cause error // context.Cause of the serving context
}

func (e *InterruptedError) Error() string {
	msg := "stopped"
	if e.Cause != nil {
		msg += " (" + e.Cause.Error() + ")"
	}
	switch e.Calls {
	case 0:
		return msg + "; no call was in progress"
	case 1:
		return msg + "; 1 call in progress was cancelled and answered as interrupted"
	}
	return fmt.Sprintf("%s; %d calls in progress were cancelled and answered as interrupted", msg, e.Calls)
}

func (e *InterruptedError) Unwrap() error { return e.Cause }

var (
	errClientGone    = errors.New("the client went away (its connection or request ended)")
	errSessionClosed = errors.New("the client ended its session")
)

// errStopping is the cause of the calls a stopping server cancels.
type errStopping struct{ cause error }

func (e errStopping) Error() string {
	if e.cause == nil || errors.Is(e.cause, context.Canceled) {
		return "the MCP server is shutting down"
	}
	return "the MCP server is shutting down (" + e.cause.Error() + ")"
}

// waitCalls waits up to d for the running calls that match to end.
func (s *Server) waitCalls(match func(*runningCall) bool, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		s.cmu.Lock()
		n := 0
		for c := range s.running {
			if match(c) {
				n++
			}
		}
		s.cmu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// interrupt cancels the running calls that match with cause, and returns
// how many it cancelled.
func (s *Server) interrupt(match func(*runningCall) bool, cause error) int {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	n := 0
	for c := range s.running {
		if match(c) {
			c.cancel(cause)
			n++
		}
	}
	return n
}

// sync makes the served tools those of the Toolkit with groups active.
//
// It runs after every call (a call may switch groups on, or a source's
// tools may have changed), so it starts with what is cheap: when the
// Toolkit's ListVersion and the groups are those of the last sync,
// nothing can have changed and nothing is listed. Otherwise it lists the
// tools and compares each with the one served (the fields, not the
// encoded JSON: encoding every tool after every call was 8 % of the CPU
// a call cost), and only a tool that changed is encoded and served
// again; the SDK tells the clients (tools/list_changed).
func (s *Server) sync(ctx context.Context, groups []string) error {
	v, versioned := s.tk.ListVersion()
	s.mu.Lock()
	same := versioned && s.synced && s.version == v && slices.Equal(s.groups, groups)
	s.mu.Unlock()
	if same {
		return nil
	}
	schemas := s.tk.Schemas(ctx, groups)
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := make(map[string]bool, len(schemas))
	for _, sc := range schemas {
		keep[sc.Name] = true
		if old, ok := s.shown[sc.Name]; ok && sameSchema(old, sc) {
			continue
		}
		var t sdk.Tool
		if err := json.Unmarshal(FormatTool(sc), &t); err != nil {
			s.synced = false
			return fmt.Errorf("mcp: serving tool %q: %w", sc.Name, err)
		}
		t.InputSchema = sc.InputSchema
		if len(sc.OutputSchema) > 0 {
			t.OutputSchema = sc.OutputSchema
		}
		s.sdk.AddTool(&t, s.handle)
		s.shown[sc.Name] = sc
	}
	var gone []string
	for name := range s.shown {
		if !keep[name] {
			gone = append(gone, name)
			delete(s.shown, name)
		}
	}
	if len(gone) > 0 {
		s.sdk.RemoveTools(gone...)
	}
	s.synced, s.version, s.groups = versioned, v, slices.Clone(groups)
	return nil
}

// sameSchema reports whether a and b are served alike (as FormatTool
// encodes them). Comparing strings and byte slices that share their
// memory, as the listings of one tool do, costs next to nothing.
func sameSchema(a, b tool.Schema) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description &&
		bytes.Equal(a.InputSchema, b.InputSchema) && bytes.Equal(a.OutputSchema, b.OutputSchema) &&
		sameHint(a.Annotations.ReadOnlyHint, b.Annotations.ReadOnlyHint) &&
		sameHint(a.Annotations.DestructiveHint, b.Annotations.DestructiveHint) &&
		sameHint(a.Annotations.IdempotentHint, b.Annotations.IdempotentHint) &&
		sameHint(a.Annotations.OpenWorldHint, b.Annotations.OpenWorldHint)
}

func sameHint(a, b *bool) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

type sessionKey struct{}

// SessionKey names the MCP session a served call came in on: comparable,
// distinct for each session of a [Server].
type SessionKey struct{ ss *sdk.ServerSession }

// Wait blocks until the session has ended.
func (k SessionKey) Wait() { k.ss.Wait() }

// CallSession returns, in the context of a call a [Server] serves (as a
// tool.Middleware or a tool.Asker sees it), the session it came in on;
// false for a call outside a session (stateless HTTP, or not served).
func CallSession(ctx context.Context) (SessionKey, bool) {
	ss, _ := ctx.Value(sessionKey{}).(*sdk.ServerSession)
	return SessionKey{ss}, ss != nil
}

// handle runs one tools/call through the Toolkit.
func (s *Server) handle(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if req.Session != nil {
		ctx = context.WithValue(ctx, sessionKey{}, req.Session)
	}
	rnd, err := s.beginRound(req)
	if err != nil {
		return nil, err
	}
	if rnd != nil {
		ctx = context.WithValue(ctx, roundKey{}, rnd)
	}
	ctx, done := s.begin(ctx, req)
	defer done()
	st, release, err := s.state(context.WithValue(ctx, toolNameKey{}, req.Params.Name), req.Session)
	if err != nil {
		return nil, err
	}
	defer release()
	input := req.Params.Arguments
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage(`{}`)
	}
	ctx = s.tk.BeginTurn(ctx)
	var observe func(*tool.Chunk)
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		// The tool's progress, to the client that asked for it.
		observe = func(c *tool.Chunk) {
			if p := c.Progress; p != nil {
				req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: p.Done, Total: p.Total, Message: p.Message})
			}
		}
	}
	r, err := s.tk.CallObserved(ctx, &tool.Call{ID: "mcp", Name: req.Params.Name, Input: input, State: st}, observe)
	if err != nil {
		s.logger.Warn("mcp: a call failed", "tool", req.Params.Name, "err", err)
	}
	if cause := context.Cause(ctx); ctx.Err() != nil && r.Status != tool.StatusSuccess {
		// Say why: the model (or the user) reads this after a restart.
		r.Status = tool.StatusInterrupted
		r.Content = append(r.Content, tool.TextBlock(fmt.Sprintf("\nThe call was interrupted: %v. Its processes were stopped; run it again if it is still wanted.", cause)))
	}
	if err := s.sync(context.WithoutCancel(ctx), st.ActiveGroups()); err != nil {
		s.logger.Warn("mcp: updating the served tools", "err", err)
	}
	if rnd != nil && rnd.pending != nil && r.Status == tool.StatusAsking {
		return s.inputRequired(rnd), nil
	}
	return callResult(r), nil
}

// begin registers a call in progress, so that it can be cancelled when
// the server stops, its session ends or the HTTP request that carries it
// is gone; done unregisters it.
func (s *Server) begin(ctx context.Context, req *sdk.CallToolRequest) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &runningCall{session: req.Session, cancel: cancel}
	stop := func() bool { return true }
	if req.Extra != nil && req.Extra.Header != nil {
		c.http = true
		if rctx, ok := s.reqs.Load(req.Extra.Header.Get(requestHeader)); ok {
			stop = context.AfterFunc(rctx.(context.Context), func() { cancel(errClientGone) })
		}
	}
	s.cmu.Lock()
	s.running[c] = true
	s.cmu.Unlock()
	return ctx, func() {
		stop()
		s.cmu.Lock()
		delete(s.running, c)
		s.cmu.Unlock()
		cancel(nil)
	}
}

type toolNameKey struct{}

// CallName returns, in the context ServerOptions.State gets, the name of
// the tool the state is for ("" elsewhere). A State that loads from shared
// storage can use it to run the calls that change only the state (the task
// tools) one at a time.
func CallName(ctx context.Context) string {
	name, _ := ctx.Value(toolNameKey{}).(string)
	return name
}

// state returns the state for a call of session ss.
func (s *Server) state(ctx context.Context, ss *sdk.ServerSession) (*tool.State, func(), error) {
	if s.opts.State != nil {
		id := ""
		if ss != nil {
			id = ss.ID()
		}
		return s.opts.State(ctx, id)
	}
	if ss == nil {
		// A call of its own: what it started (a background shell) ends
		// with it.
		st := s.opts.NewState()
		return st, func() { st.Close() }, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.states[ss]
	if !ok {
		st = s.opts.NewState()
		s.states[ss] = st
		go func() { // forget it with its session, and end what it started
			ss.Wait()
			s.mu.Lock()
			delete(s.states, ss)
			s.mu.Unlock()
			st.Close()
		}()
	}
	return st, func() {}, nil
}

// callResult turns a Toolkit result into an MCP one. Everything but a
// success is an error result, with the text that says why.
func callResult(r *tool.Result) *sdk.CallToolResult {
	out := &sdk.CallToolResult{Content: []sdk.Content{}}
	switch r.Status {
	case tool.StatusSuccess:
	case tool.StatusAsking:
		out.IsError = true
		msg := "Permission required"
		if r.Decision != nil {
			msg = r.Decision.Message
		}
		out.Content = append(out.Content, &sdk.TextContent{Text: msg + ". The call was not run: this server cannot ask its user (the client does not support elicitation). Allow it with a rule in the server's configuration."})
		return out
	default:
		out.IsError = true
	}
	for _, b := range r.Content {
		switch {
		case b.Kind == tool.KindText:
			out.Content = append(out.Content, &sdk.TextContent{Text: b.Text})
		case b.URL != "":
			out.Content = append(out.Content, &sdk.ResourceLink{URI: b.URL, Name: b.Name, MIMEType: b.MediaType})
		case strings.HasPrefix(b.MediaType, "image/"):
			out.Content = append(out.Content, &sdk.ImageContent{MIMEType: b.MediaType, Data: b.Data})
		case strings.HasPrefix(b.MediaType, "audio/"):
			out.Content = append(out.Content, &sdk.AudioContent{MIMEType: b.MediaType, Data: b.Data})
		default:
			uri := b.Name
			if uri == "" {
				uri = "toolscope://result/data"
			}
			out.Content = append(out.Content, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: uri, MIMEType: b.MediaType, Blob: b.Data}})
		}
	}
	if len(r.StructuredContent) > 0 {
		out.StructuredContent = r.StructuredContent
	}
	return out
}

// ElicitAsker is a [tool.Asker] that puts a call needing approval to the
// user of the MCP client whose request it is, by elicitation: "allow"
// runs it, "always" also adds the decision's suggested rules to the
// session's state. Calls that do not come from a [Server], and clients
// that do not support elicitation, get an error: the call is not run.
type ElicitAsker struct{}

// Ask implements [tool.Asker].
func (ElicitAsker) Ask(ctx context.Context, call *tool.Call, d permission.Decision) (bool, []permission.Rule, error) {
	ss, _ := ctx.Value(sessionKey{}).(*sdk.ServerSession)
	r, _ := ctx.Value(roundKey{}).(*round)
	if r == nil && (ss == nil || ss.InitializeParams() == nil || ss.InitializeParams().Capabilities == nil || ss.InitializeParams().Capabilities.Elicitation == nil) {
		return false, nil, errNoElicitation{d.Message}
	}
	props := map[string]any{
		"allow": map[string]any{"type": "boolean", "title": "Allow this call", "default": false},
	}
	var rules []string
	if !d.BypassImmune {
		for _, r := range d.Suggestions {
			rules = append(rules, r.String())
		}
	}
	if len(rules) > 0 {
		props["always"] = map[string]any{"type": "boolean", "title": "Always allow calls like it (" + strings.Join(rules, ", ") + ")", "default": false}
	}
	// The user approves what they are shown, so they are shown all of it
	// (a cut input once hid "; touch PWNED" behind padding), escaped so
	// nothing in it can redraw their display.
	if k, dup := inputview.DuplicateKey(call.Input); dup {
		return false, nil, fmt.Errorf("not asking about this call: its input has the key %s twice, and readers differ on which value counts; send each key once", k)
	}
	form := &sdk.ElicitParams{
		Message: fmt.Sprintf("%s\n\nTool: %s\nInput (%d bytes, whole): %s", inputview.Escape(d.Message), inputview.Escape(call.Name),
			len(call.Input), inputview.Escape(string(call.Input))),
		RequestedSchema: map[string]any{"type": "object", "properties": props, "required": []string{"allow"}},
	}
	if r != nil { // 2026-07-28: asked by the result, answered by the retry
		return askRound(ctx, r, call, d, form, rules)
	}
	res, err := ss.Elicit(ctx, form)
	if err != nil {
		return false, nil, fmt.Errorf("asking the MCP client's user: %w", err)
	}
	return approval(res, d)
}

// Elicit implements [Elicitor]: the question of an MCP server whose tool
// a served call uses (a server configured in toolscope's settings) is
// put to this server's client, as an elicitation of its own, under
// 2025-11-25, its message prefixed with the name of the server that asks
// and escaped. Under 2026-07-28 it cannot be: the client would answer
// it by sending the whole call again, while the call that asks is in
// flight; the question is then refused with an error, as it is when the
// client does not support elicitation.
func (ElicitAsker) Elicit(ctx context.Context, r ElicitRequest) (ElicitResponse, error) {
	if ctx.Value(roundKey{}) != nil {
		return ElicitResponse{}, fmt.Errorf("MCP server %q asks a question, which cannot be passed on to this server's client under MCP 2026-07-28 in the middle of a call", r.Server)
	}
	ss, _ := ctx.Value(sessionKey{}).(*sdk.ServerSession)
	if ss == nil || ss.InitializeParams() == nil || ss.InitializeParams().Capabilities == nil || ss.InitializeParams().Capabilities.Elicitation == nil {
		return ElicitResponse{}, fmt.Errorf("MCP server %q asks a question, and this server's client cannot be asked (it does not support elicitation)", r.Server)
	}
	var schema map[string]any
	if err := json.Unmarshal(r.Schema, &schema); err != nil {
		return ElicitResponse{}, fmt.Errorf("MCP server %q asks with a schema that is not a JSON object: %v", r.Server, err)
	}
	res, err := ss.Elicit(ctx, &sdk.ElicitParams{Message: fmt.Sprintf("MCP server %q asks: %s", r.Server, inputview.Escape(r.Message)), RequestedSchema: schema})
	if err != nil {
		return ElicitResponse{}, fmt.Errorf("asking the MCP client's user: %w", err)
	}
	return ElicitResponse{Action: res.Action, Content: res.Content}, nil
}

type errNoElicitation struct{ msg string }

func (e errNoElicitation) Error() string {
	return e.msg + "; the MCP client cannot be asked (it does not support elicitation): allow the call with a rule in the server's configuration"
}
