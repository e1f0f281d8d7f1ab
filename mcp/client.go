package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/internal/proc"
	"github.com/toolscope/toolscope/mcp/oauth"
	"github.com/toolscope/toolscope/sandbox"
	"github.com/toolscope/toolscope/tool"
)

// ProtocolVersion is the older MCP revision, which every server speaks: a
// Client pinned to it (ClientOptions.Protocol) connects in one round trip
// (initialize), without a discovery first.
const ProtocolVersion = "2025-11-25"

// LatestProtocolVersion is the newest MCP revision a Client speaks, to
// the servers that offer it.
const LatestProtocolVersion = "2026-07-28"

// ServerConfig says how to reach one MCP server: a command to start
// (stdio) or a URL (HTTP).
type ServerConfig struct {
	// Command starts a server that speaks MCP on its standard input and
	// output, with Args. Env is added to this process's environment; Dir is
	// its working directory ("" means this process's).
	Command string
	Args    []string
	Env     map[string]string
	Dir     string
	// URL reaches a server over HTTP: the legacy HTTP+SSE transport when
	// its path ends in /sse or /messages/ (or Transport is "sse"),
	// streamable HTTP otherwise. Headers go with every request to URL's
	// origin (an Authorization header, for example), and to no other: not
	// after a redirect to another scheme, host or port, nor to a message
	// endpoint an SSE server names elsewhere.
	URL       string
	Headers   map[string]string
	Transport string // "", "http" or "sse"
	// OAuth, when set, authorizes the requests to URL's origin with the
	// token oauth.Login stored for URL, refreshed as needed (see package
	// mcp/oauth). The client never asks the user itself: a server that
	// needs a login (again) fails to connect, or a call fails, with an
	// error that says so and ends with OAuth.LoginHint.
	OAuth *oauth.Config
	// Conn is a connection already open to a server: a pipe to a process
	// started elsewhere, or an in-process [Server]. The client speaks MCP
	// over it, for one session: it cannot reconnect once Conn is closed.
	Conn io.ReadWriteCloser
	// Sandbox, when set, runs a stdio server inside this OS sandbox (see
	// package sandbox), writable only beneath SandboxDirs (nil means Dir, or
	// this process's working directory): no network, secrets hidden.
	Sandbox     *sandbox.Sandbox
	SandboxDirs []string
}

// ClientOptions configures a [Client]; nil means the defaults.
type ClientOptions struct {
	// Stateless opens a new session for every listing and every call
	// instead of keeping one (HTTP servers only; a stdio server is its
	// session).
	Stateless bool
	// EnableTools, when not empty, keeps only the named tools of the
	// server; DisableTools drops the named ones. The two must not share a
	// name. Names are the server's, not the mcp__ names.
	EnableTools, DisableTools []string
	// CallTimeout bounds each tool call: 0 means DefaultCallTimeout, and
	// NoTimeout (any negative value) no bound. A call that runs out of time
	// is cancelled (the server is told) and ends with an error result the
	// model sees, so that a server that hangs, or answers another request
	// than the one asked, cannot stop an agent for good.
	CallTimeout time.Duration
	// MaxMessageBytes bounds one message from the server (a line of a stdio
	// server, an HTTP response body or one event of a stream): 0 means
	// DefaultMaxMessageBytes, a negative value no bound. A bigger message
	// ends the session (a stdio server is stopped, and started again for
	// the next call) and the call with an error that says so.
	MaxMessageBytes int
	// ListInterval is how long a stateless client's tool list is trusted
	// before it is listed again (a stateful session is told of changes);
	// 0 means a minute.
	ListInterval time.Duration
	// ListTimeout bounds a listing of the server's tools, so that a server
	// that never answers cannot hold up an agent's turn; 0 means 30 s.
	ListTimeout time.Duration
	// Elicit answers a server's questions to the user (MCP elicitation);
	// nil means the client does not offer elicitation to servers.
	Elicit func(ctx context.Context, r ElicitRequest) (ElicitResponse, error)
	// Logger gets the client's warnings; nil means slog.Default().
	Logger *slog.Logger
	// TrustHints makes a tool the server marks readOnlyHint read-only to
	// the permission engine: it runs without asking, in every mode that
	// lets read-only calls through (dont_ask and explore too). An
	// annotation is the server's claim, not something the client can
	// check, so by default it is only shown (Info.Annotations) and the
	// server's tools are judged as tools that may change things: they
	// ask in default mode and are denied in dont_ask and explore. Set it
	// only for a server whose hints you trust as you trust its code.
	TrustHints bool
	// Protocol is the MCP revision to ask the server for. "" or "auto"
	// (the default): LatestProtocolVersion (2026-07-28) when the server
	// offers it, found by a server/discover first, else ProtocolVersion
	// (2025-11-25); a server that fails the discovery badly (a stdio
	// server that exits on it, an HTTP server that errs) is connected
	// again on 2025-11-25, and stays on it for the client's life.
	// ProtocolVersion pins 2025-11-25: one round trip, no discovery. Under
	// 2026-07-28 a server's questions to the user come as input_required
	// results, answered through Elicit all the same.
	Protocol string
}

// ElicitRequest is a server's question to the user, in the middle of a
// call (elicitation/create).
type ElicitRequest struct {
	// Server is the client's name for the server that asks.
	Server string
	// Message says what the server wants to know.
	Message string
	// Schema is the JSON Schema of the answer: an object of primitive
	// fields, with their defaults.
	Schema json.RawMessage
}

// ElicitResponse is the user's answer: Action "accept" with Content (fields
// left out take the schema's defaults), "decline" or "cancel".
type ElicitResponse struct {
	Action  string
	Content map[string]any
}

// Elicitor puts an MCP server's question to the user: a terminal's
// prompt, or the MCP host of a toolscope server ([ElicitAsker] forwards
// it). An [tool.Asker] that is an Elicitor too answers both the calls
// that need approval and the servers' questions (host.Options.Asker).
// The ctx is the call's that the question belongs to, when the client
// can tell (always under 2026-07-28; under 2025-11-25 when one call of
// the server is in flight).
type Elicitor interface {
	Elicit(ctx context.Context, r ElicitRequest) (ElicitResponse, error)
}

// DefaultCallTimeout bounds a call when ClientOptions.CallTimeout is 0: as
// long as the longest Bash command may run.
const DefaultCallTimeout = 10 * time.Minute

// NoTimeout as ClientOptions.CallTimeout leaves calls unbounded.
const NoTimeout time.Duration = -1

// defaultCallTimeout is DefaultCallTimeout, shortened by tests.
var defaultCallTimeout = DefaultCallTimeout

// Client is a connection to one MCP server and a [tool.Source] of its tools,
// named mcp__NAME__TOOL. Put it in a [tool.Group] (or
// tool.ToolkitOptions.Sources) to give its tools to an agent. A stateful
// client must be connected (Connect) before its tools are listed; it keeps
// one session, follows the server's tools/list_changed notifications, and
// reconnects once when the server has lost the session. A stateless client
// connects for each listing and each call.
type Client struct {
	name   string
	srv    ServerConfig
	opts   ClientOptions
	logger *slog.Logger
	sdk    *sdk.Client

	mu      sync.Mutex
	session *sdk.ClientSession
	dead    chan struct{} // closed when session ends
	proc    *stdioServer  // the process of session (stdio servers)

	version  atomic.Uint64
	inflight sync.Map                               // *callCtx -> struct{}: the contexts of the tool calls in flight
	legacy   atomic.Bool                            // the server failed the discovery: connect on ProtocolVersion
	caps     atomic.Pointer[sdk.ServerCapabilities] // of the last session opened
	tokens   atomic.Uint64
	progress sync.Map // progress token (string) -> chan<- tool.Progress
}

// NegotiatedProtocol returns the MCP revision of the client's session
// ("" when it has none open).
func (c *Client) NegotiatedProtocol() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == nil || c.session.InitializeResult() == nil {
		return ""
	}
	return c.session.InitializeResult().ProtocolVersion
}

var validClientName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// NewClient returns a client for the server srv, named name (letters,
// digits, '_' and '-': it becomes part of every tool name). It does not
// connect.
func NewClient(name string, srv ServerConfig, opts *ClientOptions) (*Client, error) {
	if !validClientName().MatchString(name) {
		return nil, fmt.Errorf("mcp: invalid server name %q (use letters, digits, '_' and '-')", name)
	}
	if strings.Contains(name, "__") || strings.HasSuffix(name, "_") {
		// mcp__a_ + "__" + tool reads as server "a": a rule for server a
		// ("mcp__a") would cover it.
		return nil, fmt.Errorf("mcp: invalid server name %q: it must not contain \"__\" or end in '_', which would make its tools' names read as another server's", name)
	}
	c := &Client{name: name, srv: srv}
	if opts != nil {
		c.opts = *opts
	}
	given := 0
	for _, set := range []bool{srv.Command != "", srv.URL != "", srv.Conn != nil} {
		if set {
			given++
		}
	}
	switch {
	case given > 1:
		return nil, fmt.Errorf("mcp: server %q has more than one of a command, a URL and a connection; give one", name)
	case given == 0:
		return nil, fmt.Errorf("mcp: server %q needs a command (stdio) or a URL (HTTP)", name)
	case (srv.Command != "" || srv.Conn != nil) && c.opts.Stateless:
		return nil, fmt.Errorf("mcp: server %q: a stdio server cannot be stateless (the process is the session)", name)
	case srv.URL != "":
		u, err := url.Parse(srv.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("mcp: server %q: URL %q is not an http or https URL", name, srv.URL)
		}
		if srv.Transport != "" && srv.Transport != "http" && srv.Transport != "sse" {
			return nil, fmt.Errorf("mcp: server %q: unknown transport %q (want http or sse)", name, srv.Transport)
		}
	}
	switch c.opts.Protocol {
	case "", ProtocolVersion, "auto":
	default:
		return nil, fmt.Errorf("mcp: server %q: unknown protocol %q (want %s or auto)", name, c.opts.Protocol, ProtocolVersion)
	}
	for _, n := range c.opts.EnableTools {
		if slices.Contains(c.opts.DisableTools, n) {
			return nil, fmt.Errorf("mcp: server %q: tool %q is both enabled and disabled", name, n)
		}
	}
	c.logger = c.opts.Logger
	if c.logger == nil {
		c.logger = slog.Default()
	}
	switch {
	case c.opts.CallTimeout == 0:
		c.opts.CallTimeout = defaultCallTimeout
	case c.opts.CallTimeout < 0:
		c.opts.CallTimeout = 0 // none
	}
	if c.opts.MaxMessageBytes == 0 {
		c.opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if c.opts.ListTimeout <= 0 {
		c.opts.ListTimeout = 30 * time.Second
	}
	if c.opts.ListInterval <= 0 {
		c.opts.ListInterval = time.Minute
	}
	var elicit func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)
	if c.opts.Elicit != nil {
		elicit = func(ctx context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			ctx = c.callContext(ctx)
			schema, err := json.Marshal(r.Params.RequestedSchema)
			if err != nil {
				return nil, err
			}
			a, err := c.opts.Elicit(ctx, ElicitRequest{Server: c.name, Message: r.Params.Message, Schema: schema})
			if err != nil {
				return nil, err
			}
			return &sdk.ElicitResult{Action: a.Action, Content: a.Content}, nil
		}
	}
	c.sdk = sdk.NewClient(&sdk.Implementation{Name: "toolscope", Version: "0.1"}, &sdk.ClientOptions{
		ElicitationHandler: elicit,
		// No roots: a server that asks for them (server-filesystem) would
		// replace the directories it was started with by our answer.
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			c.version.Add(1)
		},
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			tok, _ := r.Params.ProgressToken.(string)
			if ch, ok := c.progress.Load(tok); ok {
				select {
				case ch.(chan tool.Progress) <- tool.Progress{Message: r.Params.Message, Done: r.Params.Progress, Total: r.Params.Total}:
				default: // the host is slow: a later report says more
				}
			}
		},
	})
	return c, nil
}

// Name is the server's name, as in mcp__NAME__TOOL.
func (c *Client) Name() string { return c.name }

// ListVersion tells the Toolkit when to list the tools again: after the
// server said its list changed or the session was renewed (stateful), or
// every ListInterval (stateless).
func (c *Client) ListVersion() uint64 {
	if c.opts.Stateless {
		return uint64(time.Now().UnixNano() / int64(c.opts.ListInterval))
	}
	return c.version.Load()
}

// Connect opens the client's session (stateful clients; a stateless
// client's Connect does nothing). Connecting a connected client is an
// error; Close then Connect opens a new session.
func (c *Client) Connect(ctx context.Context) error {
	if c.opts.Stateless {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != nil {
		return fmt.Errorf("mcp: server %q is already connected", c.name)
	}
	return c.connectLocked(ctx)
}

func (c *Client) connectLocked(ctx context.Context) error {
	s, proc, err := c.open(ctx)
	if err != nil {
		return err
	}
	c.session, c.proc, c.dead = s, proc, make(chan struct{})
	dead := c.dead
	go func() {
		s.Wait()
		close(dead)
	}()
	c.version.Add(1)
	return nil
}

// Close ends the session (stateful clients) and, for a stdio server, the
// process.
func (c *Client) Close() error {
	if c.opts.Stateless {
		return nil
	}
	c.mu.Lock()
	s, server := c.session, c.proc
	c.session = nil
	c.mu.Unlock()
	if s == nil {
		return fmt.Errorf("mcp: server %q is not connected", c.name)
	}
	err := s.Close()
	if server != nil {
		// A sandboxed server's sandbox is released once the process has
		// exited: its placeholders (an empty .claude, .vscode, .envrc
		// that no one may open) are removed and what it made in the
		// protected class is moved aside. A program that exits after
		// Close must not leave them in the project.
		select {
		case <-server.released:
		case <-time.After(releaseWait):
			c.logger.Warn("mcp: the sandboxed server's sandbox was not released in time", "server", c.name)
		}
	}
	return err
}

// releaseWait bounds how long Close waits for a server's sandbox to be
// released: the process's exit (30 s at most, see open) and the
// quarantine after it.
const releaseWait = 40 * time.Second

// discoverTimeout bounds the first connection of a client that finds
// out the server's revision (ClientOptions.Protocol "auto"): a server
// that ignores the discovery is connected again on 2025-11-25 after it.
var discoverTimeout = 15 * time.Second

// open starts a session with the server, on the newest revision both
// speak unless the client is pinned to the older: a server that fails the
// discovery is connected again pinned, from then on.
func (c *Client) open(ctx context.Context) (*sdk.ClientSession, *stdioServer, error) {
	if c.opts.Protocol == ProtocolVersion || c.legacy.Load() {
		return c.openVersion(ctx, ProtocolVersion)
	}
	// The SDK's newest, falling back by itself on a clean refusal; a
	// server that neither answers nor refuses within discoverTimeout is
	// taken for one that ignores the discovery.
	pctx, cancel := context.WithTimeout(ctx, discoverTimeout)
	s, server, err := c.openVersion(pctx, "")
	cancel()
	if err == nil || ctx.Err() != nil {
		return s, server, err
	}
	var (
		oe *net.OpError
		pe *fs.PathError
		ee *exec.Error
	)
	if errors.As(err, &oe) && oe.Op == "dial" || errors.As(err, &pe) || errors.As(err, &ee) || errors.Is(err, oauth.ErrLoginRequired) {
		return nil, nil, err // nothing listens, nothing starts, or a login is needed: no revision would do better
	}
	c.logger.Warn("mcp: connecting with the MCP 2026-07-28 discovery failed; trying 2025-11-25", "server", c.name, "err", err)
	c.legacy.Store(true)
	return c.openVersion(ctx, ProtocolVersion)
}

// openVersion starts a session on the revision version ("" for the
// newest both speak).
func (c *Client) openVersion(ctx context.Context, version string) (*sdk.ClientSession, *stdioServer, error) {
	login := &loginWatch{}
	var (
		t      sdk.Transport
		server *stdioServer
		run    *sandbox.Run // the stdio server's sandbox, released with the session
	)
	switch {
	case c.srv.Conn != nil:
		t = &sdk.IOTransport{Reader: c.srv.Conn, Writer: c.srv.Conn}
	case c.srv.Command != "":
		// The server lives until the session ends (stdioServer.close).
		cmd := proc.Command(context.Background(), c.srv.Command, c.srv.Args...)
		cmd.Dir = c.srv.Dir
		if len(c.srv.Env) > 0 {
			cmd.Env = os.Environ()
			for k, v := range c.srv.Env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
		}
		server = &stdioServer{cmd: cmd, stderr: &tail{max: 4096}, max: c.opts.MaxMessageBytes, terminate: 2 * time.Second, released: make(chan struct{})}
		cmd.Stderr = server.stderr
		if c.srv.Sandbox != nil {
			dirs := c.srv.SandboxDirs
			if dirs == nil {
				d := c.srv.Dir
				if d == "" {
					d, _ = os.Getwd()
				}
				dirs = []string{d}
			}
			r, err := c.srv.Sandbox.NewRun(dirs)
			if err != nil {
				return nil, nil, fmt.Errorf("mcp: server %q: %w", c.name, err)
			}
			if err := r.Wrap(cmd); err != nil {
				r.Close()
				return nil, nil, fmt.Errorf("mcp: server %q: %w", c.name, err)
			}
			run = r
		}
		t = server
	case c.sse():
		t = &sdk.SSEClientTransport{Endpoint: c.srv.URL, HTTPClient: login.client(c.httpClient())}
	default:
		t = &sdk.StreamableClientTransport{Endpoint: c.srv.URL, HTTPClient: login.client(c.httpClient()), DisableStandaloneSSE: c.opts.Stateless}
	}
	// The session outlives ctx: some transports tie their streams to the
	// context they connect with (the SSE client's GET). ctx only bounds the
	// connecting; the session's own context ends when the session does.
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	s, err := c.sdk.Connect(sctx, t, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if !stop() && err == nil {
		err = context.Cause(ctx) // given up while connecting
		s.Close()
	}
	release := func() {
		if server != nil {
			close(server.released)
		}
	}
	if err == nil {
		go func() {
			defer release()
			s.Wait()
			cancel()
			if run != nil {
				// Once the server has exited, what it left of the
				// protected class (a hook, an .envrc, a .claude) is moved
				// aside, as after a sandboxed command.
				select {
				case <-server.exited:
					blocked, err := run.Quarantine(nil)
					for _, b := range blocked {
						c.logger.Warn("mcp: the sandboxed server made a protected path; moved aside", "server", c.name, "path", b.Path, "moved_to", b.MovedTo, "why", b.Why, "error", b.Error)
					}
					if err != nil {
						c.logger.Warn("mcp: after the sandboxed server", "server", c.name, "error", err)
					}
				case <-time.After(30 * time.Second):
					c.logger.Warn("mcp: the sandboxed server did not exit; the protected files it may have made were not checked", "server", c.name)
				}
				run.Close()
			}
		}()
	} else {
		cancel()
		if run != nil {
			run.Close()
		}
		release()
	}
	if err != nil {
		if lre, ok := errors.AsType[*oauth.LoginRequiredError](err); ok {
			err = lre // what to do, without the layers of the transport
		} else if lre := login.first(); lre != nil {
			err = lre // a refused server/discover, which the SDK follows with initialize
		}
		msg := fmt.Sprintf("mcp: cannot connect to server %q: %v", c.name, err)
		if server != nil && server.exited != nil {
			if why := server.failure(time.Second); why != "" {
				msg += "\n" + why
			}
		}
		return nil, nil, wrapped{msg, err}
	}
	if ir := s.InitializeResult(); ir != nil && ir.Capabilities != nil {
		c.caps.Store(ir.Capabilities)
	}
	return s, server, nil
}

// callCtx is a tool call's context, while the call is in flight.
type callCtx struct{ context.Context }

// track registers ctx as a call's in flight, until done, and returns
// the context to run the call under.
func (c *Client) track(ctx context.Context) (_ context.Context, done func()) {
	k := &callCtx{}
	k.Context = context.WithValue(ctx, callCtxKey{}, k)
	c.inflight.Store(k, struct{}{})
	return k.Context, func() { c.inflight.Delete(k) }
}

// callContext gives the handler of a server's request the values of the
// call it belongs to (the MCP session a toolscope server asks through).
// Under 2026-07-28 the SDK runs the handler under the call's own context
// already; under 2025-11-25 a request of the server names no call, and
// the one call in flight is taken for it. With several, none is: the
// question is asked without (an Elicitor that needs the call's session
// cannot ask it).
func (c *Client) callContext(ctx context.Context) context.Context {
	var only *callCtx
	n := 0
	c.inflight.Range(func(k, _ any) bool {
		only = k.(*callCtx)
		n++
		return n < 2
	})
	if n != 1 || ctx.Value(callCtxKey{}) != nil {
		return ctx // several, none, or under the call's context already
	}
	return valuesOf{ctx, only.Context}
}

type callCtxKey struct{}

// valuesOf is ctx with the values of call where ctx has none.
type valuesOf struct {
	context.Context
	call context.Context
}

func (v valuesOf) Value(key any) any {
	if x := v.Context.Value(key); x != nil {
		return x
	}
	return v.call.Value(key)
}

// loginWatch keeps the first "login required" of a connection's
// requests: the SDK answers a failed server/discover by trying
// initialize, and reports that one's failure.
type loginWatch struct {
	next http.RoundTripper
	mu   sync.Mutex
	err  *oauth.LoginRequiredError
}

func (w *loginWatch) client(hc *http.Client) *http.Client {
	w.next = hc.Transport
	hc.Transport = w
	return hc
}

func (w *loginWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(req)
	if lre, ok := errors.AsType[*oauth.LoginRequiredError](err); ok {
		w.mu.Lock()
		if w.err == nil {
			w.err = lre
		}
		w.mu.Unlock()
	}
	return resp, err
}

func (w *loginWatch) first() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		return nil
	}
	return w.err
}

// wrapped is an error with a message of its own that wraps err.
type wrapped struct {
	msg string
	err error
}

func (w wrapped) Error() string { return w.msg }
func (w wrapped) Unwrap() error { return w.err }

// sse reports whether the server speaks the legacy HTTP+SSE transport.
func (c *Client) sse() bool {
	if c.srv.Transport != "" {
		return c.srv.Transport == "sse"
	}
	u, err := url.Parse(c.srv.URL)
	return err == nil && (strings.HasSuffix(u.Path, "/sse") || strings.HasSuffix(u.Path, "/messages/"))
}

func (c *Client) httpClient() *http.Client {
	var rt http.RoundTripper = limitTransport{c.opts.MaxMessageBytes, http.DefaultTransport}
	if c.srv.OAuth != nil {
		rt = oauth.NewTransport(c.srv.URL, rt, c.srv.OAuth) // under Headers: its Authorization wins
	}
	if len(c.srv.Headers) > 0 {
		u, err := url.Parse(c.srv.URL)
		if err == nil {
			rt = headerTransport{c.srv.Headers, origin(u), rt}
		}
	}
	return &http.Client{Transport: rt, CheckRedirect: sessionStaysWithOrigin}
}

// sessionStaysWithOrigin follows up to 10 redirects, as net/http does, but
// one to another origin goes without the session's id (and the stream's
// resume point): they are the configured server's, and with them another
// origin could act in the session. (net/http drops Authorization and
// cookies there, not these; the configured headers are headerTransport's.)
func sessionStaysWithOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if origin(req.URL) != origin(via[0].URL) {
		req.Header.Del("Mcp-Session-Id")
		req.Header.Del("Last-Event-Id")
	}
	return nil
}

// stderrTail is the end of the standard error of the current stdio
// server; "" for other servers.
func (c *Client) stderrTail() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proc == nil {
		return ""
	}
	return strings.TrimSpace(c.proc.stderr.String())
}

// failure says what became of the stdio server of session s when a
// request on it failed (see stdioServer.failure); "" for other servers.
func (c *Client) failure(s *sdk.ClientSession) string {
	c.mu.Lock()
	p := c.proc
	if c.session != s {
		p = nil
	}
	c.mu.Unlock()
	return p.failure(time.Second)
}

// headerTransport adds the configured headers to the requests to the
// configured server's origin. A RoundTripper sees every request, those
// that follow a redirect too: adding the headers to all would hand the
// server's credentials to whatever origin it (or whoever controls its
// responses) redirects to.
type headerTransport struct {
	h      map[string]string
	origin string // see origin
	next   http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if origin(r.URL) != t.origin {
		return t.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	for k, v := range t.h {
		r.Header.Set(k, v)
	}
	return t.next.RoundTrip(r)
}

// origin is u's origin (oauth.Origin): headers and tokens stay with it.
func origin(u *url.URL) string { return oauth.Origin(u) }

// use runs f with a session: the client's (stateful) or a new one
// (stateless). A stateful session that has ended is renewed first. When f
// fails because the session was lost, f runs once more on a new session if
// that cannot do harm: the server answered that it does not know the
// session (it restarted, so the request never ran), or the request failed
// on its way and may be sent twice (resend: a listing, or a call of a tool
// the server marks read-only or idempotent).
func (c *Client) use(ctx context.Context, resend bool, f func(*sdk.ClientSession) error) error {
	if c.opts.Stateless {
		s, _, err := c.open(ctx)
		if err != nil {
			return err
		}
		defer s.Close()
		return f(s)
	}
	s, err := c.current(ctx, nil)
	if err != nil {
		return err
	}
	err = f(s)
	if err == nil || ctx.Err() != nil || errors.Is(err, errMessageTooLarge) || errors.Is(err, ErrNoResources) || errors.Is(err, ErrNoPrompts) || !(sessionUnknown(err) || resend && transportFailed(err)) {
		return err // (an answer too large would be too large again)
	}
	c.logger.Warn("mcp: the session with the server was lost; reconnecting", "server", c.name, "err", err)
	if s, err = c.current(ctx, s); err != nil {
		return err
	}
	return f(s)
}

// current returns the live session, renewing it when it ended or when it
// is stale (the one a failed request used).
func (c *Client) current(ctx context.Context, stale *sdk.ClientSession) (*sdk.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == nil {
		return nil, fmt.Errorf("mcp: server %q is not connected (call Connect first)", c.name)
	}
	ended := false
	select {
	case <-c.dead:
		ended = true
	default:
	}
	if !ended && (stale == nil || c.session != stale) {
		return c.session, nil
	}
	c.session.Close()
	c.session = nil
	if err := c.connectLocked(ctx); err != nil {
		return nil, err
	}
	return c.session, nil
}

// sessionUnknown reports whether err is the server's refusal of a request
// of a session it does not know: 404 (the spec), or the 400 of the
// TypeScript SDK ("No valid session ID provided"), which the Go SDK
// reports by the status text alone. A request the server refused with
// such a status did not run.
func sessionUnknown(err error) bool {
	if errors.Is(err, sdk.ErrSessionMissing) {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "session") && (strings.Contains(msg, "bad request") || strings.Contains(msg, "not found")) ||
		strings.HasSuffix(msg, ": bad request") || strings.HasSuffix(msg, ": not found")
}

// transportFailed reports whether err is a failure to carry a request, not
// an answer of the server (a JSON-RPC error).
func transportFailed(err error) bool {
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		return true
	}
	// The SDK's own codes for a request the transport did not carry:
	// client closing, server closing, rejected by transport.
	return we.Code == -32003 || we.Code == -32004 || we.Code == -32005
}

// Tools lists the server's tools, filtered by EnableTools and DisableTools,
// as tools named mcp__NAME__TOOL.
func (c *Client) Tools(ctx context.Context) ([]tool.Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.ListTimeout)
	defer cancel()
	var remote []*sdk.Tool
	err := c.use(ctx, true, func(s *sdk.ClientSession) error {
		remote = remote[:0]
		for t, err := range s.Tools(ctx, nil) {
			if err != nil {
				return err
			}
			remote = append(remote, t)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("mcp: listing the tools of server %q: %w", c.name, err)
	}
	var out []tool.Tool
	for _, t := range remote {
		if len(c.opts.EnableTools) > 0 && !slices.Contains(c.opts.EnableTools, t.Name) || slices.Contains(c.opts.DisableTools, t.Name) {
			continue
		}
		rt, err := newRemoteTool(c, t)
		if err != nil {
			c.logger.Warn("mcp: skipping a tool", "server", c.name, "tool", t.Name, "err", err)
			continue
		}
		out = append(out, rt)
	}
	return out, nil
}

// newToken returns a progress token unique in this client.
func (c *Client) newToken() string {
	return "toolscope-" + strconv.FormatUint(c.tokens.Add(1), 10)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

var _ io.Writer = (*tail)(nil)
