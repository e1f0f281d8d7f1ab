package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// runServe serves the toolkit (built-ins and the configured MCP servers)
// as an MCP server, over stdio or streamable HTTP.
//
// When ctx ends (SIGINT, SIGTERM or SIGHUP: see Main) the server stops:
// it takes no new request, cancels the calls in progress (a Bash
// command's process group is killed), answers them as interrupted, and
// returns an error (exit status 1) that says so, within drainTimeout plus
// a little.
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c := newFlags("serve", stdout, true)
	addr := c.fs.String("http", "", "serve streamable HTTP on this address (host:port; a bare :port is 127.0.0.1:port) instead of stdio")
	token := c.fs.String("auth-token", "", "with --http: require \"Authorization: Bearer TOKEN\" on every request (needed off loopback; default $TOOLSCOPE_AUTH_TOKEN, which ps cannot show)")
	var allowHosts listFlag
	c.fs.Var(&allowHosts, "allow-host", "with --http: a name clients use in the Host header, besides loopback, the IP addresses and the --http host (repeatable)")
	stateless := c.fs.Bool("stateless", false, "with --http: keep no session, so that replicas behind a load balancer can serve the same clients")
	idle := c.fs.Duration("session-idle", mcp.DefaultSessionIdle, "with --http: end a session after this long without a request (0: never)")
	maxSessions := c.fs.Int("max-sessions", mcp.DefaultMaxSessions, "with --http: refuse a new session while this many are open (0: no limit)")
	consoleDir := c.fs.String("console", "", "show the sessions in the toolscope console that watches this directory (its --runs), and have calls that need approval wait for its answer instead of asking the client")
	if err := c.parse(args); err != nil {
		return err
	}
	if *idle < 0 {
		return usageErr("serve: --session-idle must not be negative, got %v", *idle)
	}
	if *maxSessions < 0 {
		return usageErr("serve: --max-sessions must not be negative, got %d", *maxSessions)
	}
	if len(c.args) > 0 {
		return usageErr("serve takes no arguments, got %q", c.args[0])
	}
	if *stateless && *addr == "" {
		return usageErr("serve: --stateless needs --http (a stdio server is one session)")
	}
	if c.cwd == "" {
		if what := broadProject(); what != "" {
			return usageErr("serve: no --cwd, and the working directory is %s (where MCP hosts such as Claude Desktop start their servers): all of it would be the project, read without asking. Name the project: serve --cwd /path/to/project (in a host's configuration, \"args\": [\"serve\", \"--cwd\", \"/path/to/project\"])", what)
		}
	}
	if *addr == "" && (*token != "" || len(allowHosts) > 0) {
		return usageErr("serve: --auth-token and --allow-host need --http (a stdio server has no network listener)")
	}
	var ln net.Listener
	if *addr != "" {
		if *token == "" {
			*token = os.Getenv("TOOLSCOPE_AUTH_TOKEN")
		}
		var err error
		if ln, err = listen(*addr, *token); err != nil {
			return err
		}
		defer ln.Close()
		if h := hostName(*addr); h != "" {
			allowHosts = append(allowHosts, h) // the name given is one clients use
		}
	}
	c.asker = mcp.ElicitAsker{}
	var sl *serveLive
	if *consoleDir != "" {
		hub, err := startHub(*consoleDir, "serve")
		if err != nil {
			return usageErr("serve --console %s: %v", *consoleDir, err)
		}
		defer hub.Close()
		sl = newServeLive(hub, stderr)
		c.asker = sl
		c.middleware = append(c.middleware, sl.middleware)
	}
	c.tracer = startTracing(stderr)
	defer stopTracing(c.tracer)
	// Background shells live in a session's state, closed with the
	// session: not with a state file (each call loads its own) nor
	// stateless (no session).
	c.background = c.statePath == "" && !*stateless
	s, err := c.setup(ctx, stderr, c.statePath != "")
	if err != nil {
		return err
	}
	defer s.close()
	if sl != nil {
		sl.project, sl.tk = s.Root, s.Toolkit
		sl.dirs = append([]string{s.Root}, s.effective.WorkingDirs...)
	}
	opts := &mcp.ServerOptions{Version: version(), SessionIdle: *idle, MaxSessions: *maxSessions, DrainTimeout: drainTimeout,
		AuthToken: *token, AllowedHosts: allowHosts}
	if *idle == 0 {
		opts.SessionIdle = -1 // never
	}
	if *maxSessions == 0 {
		opts.MaxSessions = -1 // no limit
	}
	if s.saving {
		// Every call loads the state file and saves its changes merged
		// with those of other calls, sessions and replicas.
		opts.State = s.callState(c, stderr)
	} else {
		opts.NewState = func() *tool.State { return tool.NewState(s.effective) }
		if *stateless {
			fmt.Fprintln(stderr, "toolscope: warning: --stateless without --state: every request starts from a fresh state, so Edit and Write cannot see an earlier Read; give --state FILE on storage the replicas share")
		}
	}
	if *stateless {
		// A retry may reach another replica: they seal approvals alike.
		if opts.ApprovalKey, err = host.ApprovalKey(); err != nil {
			return err
		}
	}
	srv := mcp.NewServer(s.Toolkit, opts)
	if *addr == "" {
		in, restore := pollable(stdin)
		defer restore()
		return stopped(srv.Serve(ctx, io.NopCloser(in), nopWriteCloser{stdout}))
	}
	h, err := srv.Handler(ctx, *stateless)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "toolscope: serving MCP on http://%s/mcp\n", ln.Addr())
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err // never http.ErrServerClosed: only this function shuts hs down
	case <-ctx.Done():
	}
	// Refuse new requests and interrupt the calls in progress; once they
	// are answered (or the time is up) close the sessions, whose event
	// streams would otherwise hold hs.Shutdown, then the listener and the
	// connections.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), drainTimeout+2*time.Second)
	defer cancel()
	err = h.Shutdown(sctx)
	hs.Shutdown(sctx)
	hs.Close()
	return stopped(err)
}

// minTokenLen is the shortest --auth-token accepted: a token is a secret
// to be generated, not a password to be remembered.
const minTokenLen = 16

// listen opens the listener of `serve --http addr`. A bare ":port" means
// loopback (127.0.0.1:port): serving the tools to the network is
// something to ask for, by naming an address (0.0.0.0:port for all), and
// then it needs a token, since whoever reaches the port could otherwise
// run the tools. Whether the address is loopback is read from the bound
// socket, so a name (localhost, a host name) counts by what it resolved to.
func listen(addr, token string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usageErr("serve: --http %s: want host:port or :port (%v)", addr, err)
	}
	if host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	if token != "" && len(token) < minTokenLen {
		return nil, usageErr("serve: the auth token has %d characters, want at least %d: generate one, e.g. with `openssl rand -hex 32`", len(token), minTokenLen)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, usageErr("serve: --http %s: %v", addr, err)
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); token == "" && (!ok || !ta.IP.IsLoopback()) {
		ln.Close()
		return nil, usageErr("serve: --http %s listens beyond this machine (on %s), where anyone who reaches the port could run the tools: "+
			"give a token with --auth-token TOKEN or TOOLSCOPE_AUTH_TOKEN (clients send \"Authorization: Bearer TOKEN\"), "+
			"or listen on loopback (127.0.0.1:PORT, or :PORT)", addr, ln.Addr())
	}
	return ln, nil
}

// hostName is the host part of addr in lower case without brackets, ""
// for none or an IP address (which needs no allowing: see
// mcp.ServerOptions.AllowedHosts).
func hostName(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return ""
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return ""
	}
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

// drainTimeout bounds how long a stopping server waits for the calls it
// cancelled to end and be answered.
const drainTimeout = 5 * time.Second

// stopped turns the error of a server stopped by a signal into the
// command's error: exit status 1, saying which signal and what was
// interrupted.
func stopped(err error) error {
	var ie *mcp.InterruptedError
	if errors.As(err, &ie) {
		return Exit(1, "serve: "+ie.Error())
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return Exit(1, "serve: stopped (by a signal) before the calls in progress ended")
	}
	return err
}

// callState gives each call the state of the --state file, with the
// permissions of the config and the flags, and saves it after the call:
// the persisted permissions plus the rules the user added with "always".
func (s *setup) callState(c *common, warn io.Writer) func(context.Context, string) (*tool.State, func(), error) {
	return func(ctx context.Context, _ string) (*tool.State, func(), error) {
		// A call that changes only the state (a task tool) loads, runs and
		// saves under the state directory's lock, one at a time, as `call`
		// does: concurrent TaskCreates get distinct ids.
		snap, pc, err := s.load(c, slices.Contains(stateOnlyTools, mcp.CallName(ctx)))
		if err != nil {
			return nil, nil, err
		}
		persisted := snap.State.Permissions()
		st := snap.State
		st.SetPermissions(pc)
		release := func() {
			keep := persisted.Clone()
			for _, r := range addedRules(pc, st.Permissions()) {
				keep.AddRule(r)
			}
			st.SetPermissions(keep)
			if err := snap.Save(); err != nil {
				fmt.Fprintln(warn, "toolscope: warning:", err)
			}
		}
		return st, release, nil
	}
}

// addedRules returns the rules of after that before lacks.
func addedRules(before, after *permission.Context) []permission.Rule {
	var out []permission.Rule
	for _, l := range [][2][]permission.Rule{{before.Allow, after.Allow}, {before.Deny, after.Deny}, {before.Ask, after.Ask}} {
		for _, r := range l[1] {
			if !slices.ContainsFunc(l[0], func(x permission.Rule) bool { return x.Tool == r.Tool && x.Content == r.Content }) {
				out = append(out, r)
			}
		}
	}
	return out
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// broadProject returns "/" or "your home directory, DIR" when the working
// directory is one of them, "" otherwise: a server started there without
// --cwd would take everything below as its project (reads without asking,
// edits in accept_edits mode).
func broadProject() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return broadDir(wd)
}

// broadDir is broadProject of the directory wd.
func broadDir(wd string) string {
	if r, err := filepath.EvalSymlinks(wd); err == nil {
		wd = r
	}
	if wd == "/" {
		return "/"
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if r, err := filepath.EvalSymlinks(home); err == nil {
			home = r
		}
		if filepath.Clean(home) == wd {
			return "your home directory, " + wd
		}
	}
	return ""
}
