package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

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
}

// Server serves a Toolkit's tools to MCP clients. Every call goes through
// the Toolkit, so through its permission engine: a call the engine denies
// is an error result; a call that needs approval is put to the client's
// user by elicitation when the Toolkit's Asker is [ElicitAsker] and the
// client supports it, and is refused with the decision's message
// otherwise. The tools are those of the basic group and of the groups
// active in the state of the latest call; when they change, clients are
// told (tools/list_changed).
type Server struct {
	tk     *tool.Toolkit
	opts   ServerOptions
	sdk    *sdk.Server
	logger *slog.Logger

	mu     sync.Mutex
	states map[*sdk.ServerSession]*tool.State
	shown  map[string]string // tool name -> its schema as served
}

// NewServer returns a server of tk's tools. To have approvals asked of the
// client's user, build tk with tool.ToolkitOptions{Asker: mcp.ElicitAsker{}}.
func NewServer(tk *tool.Toolkit, opts *ServerOptions) *Server {
	s := &Server{tk: tk, states: map[*sdk.ServerSession]*tool.State{}, shown: map[string]string{}}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Name == "" {
		s.opts.Name = "toolscope"
	}
	if s.opts.Version == "" {
		s.opts.Version = "devel"
	}
	if s.opts.NewState == nil {
		s.opts.NewState = func() *tool.State { return tool.NewState(nil) }
	}
	s.logger = s.opts.Logger
	if s.logger == nil {
		s.logger = slog.Default()
	}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: s.opts.Name, Version: s.opts.Version}, &sdk.ServerOptions{Logger: s.opts.Logger})
	return s
}

// Serve serves one client over r and w (stdio: os.Stdin and os.Stdout)
// until the client leaves or ctx ends.
func (s *Server) Serve(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	if err := s.sync(ctx, nil); err != nil {
		return err
	}
	return s.sdk.Run(ctx, &sdk.IOTransport{Reader: r, Writer: w})
}

// Handler serves clients over streamable HTTP. A stateless handler keeps no
// session: any replica behind a load balancer can answer any request (see
// ServerOptions.State for the agent state), and approvals cannot be asked
// (elicitation needs a session), so calls that need one are refused.
func (s *Server) Handler(ctx context.Context, stateless bool) (http.Handler, error) {
	if err := s.sync(ctx, nil); err != nil {
		return nil, err
	}
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk },
		&sdk.StreamableHTTPOptions{Stateless: stateless, Logger: s.opts.Logger}), nil
}

// sync makes the served tools those of the Toolkit with groups active.
func (s *Server) sync(ctx context.Context, groups []string) error {
	schemas := s.tk.Schemas(ctx, groups)
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := map[string]bool{}
	for _, sc := range schemas {
		keep[sc.Name] = true
		b := string(FormatTool(sc))
		if s.shown[sc.Name] == b {
			continue
		}
		var t sdk.Tool
		if err := json.Unmarshal([]byte(b), &t); err != nil {
			return fmt.Errorf("mcp: serving tool %q: %w", sc.Name, err)
		}
		t.InputSchema = sc.InputSchema
		if len(sc.OutputSchema) > 0 {
			t.OutputSchema = sc.OutputSchema
		}
		s.sdk.AddTool(&t, s.handle)
		s.shown[sc.Name] = b
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
	return nil
}

type sessionKey struct{}

// handle runs one tools/call through the Toolkit.
func (s *Server) handle(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if req.Session != nil {
		ctx = context.WithValue(ctx, sessionKey{}, req.Session)
	}
	st, release, err := s.state(ctx, req.Session)
	if err != nil {
		return nil, err
	}
	defer release()
	input := req.Params.Arguments
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage(`{}`)
	}
	ctx = s.tk.BeginTurn(ctx)
	r, err := s.tk.Call(ctx, &tool.Call{ID: "mcp", Name: req.Params.Name, Input: input, State: st})
	if err != nil {
		s.logger.Warn("mcp: a call failed", "tool", req.Params.Name, "err", err)
	}
	if err := s.sync(ctx, st.ActiveGroups()); err != nil {
		s.logger.Warn("mcp: updating the served tools", "err", err)
	}
	return callResult(r), nil
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
		return s.opts.NewState(), func() {}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.states[ss]
	if !ok {
		st = s.opts.NewState()
		s.states[ss] = st
		go func() { // forget it with its session
			ss.Wait()
			s.mu.Lock()
			delete(s.states, ss)
			s.mu.Unlock()
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
	if ss == nil || ss.InitializeParams() == nil || ss.InitializeParams().Capabilities == nil || ss.InitializeParams().Capabilities.Elicitation == nil {
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
	in := string(call.Input)
	if len(in) > 2000 {
		in = in[:2000] + "…"
	}
	res, err := ss.Elicit(ctx, &sdk.ElicitParams{
		Message:         fmt.Sprintf("%s\n\nTool: %s\nInput: %s", d.Message, call.Name, in),
		RequestedSchema: map[string]any{"type": "object", "properties": props, "required": []string{"allow"}},
	})
	if err != nil {
		return false, nil, fmt.Errorf("asking the MCP client's user: %w", err)
	}
	if res.Action != "accept" || res.Content["allow"] != true {
		return false, nil, nil
	}
	if res.Content["always"] == true {
		return true, d.Suggestions, nil
	}
	return true, nil, nil
}

type errNoElicitation struct{ msg string }

func (e errNoElicitation) Error() string {
	return e.msg + "; the MCP client cannot be asked (it does not support elicitation): allow the call with a rule in the server's configuration"
}
