package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// runServe serves the toolkit (built-ins and the configured MCP servers)
// as an MCP server, over stdio or streamable HTTP.
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c := newFlags("serve", stdout, true)
	addr := c.fs.String("http", "", "serve streamable HTTP on this address (host:port) instead of stdio")
	stateless := c.fs.Bool("stateless", false, "with --http: keep no session, so that replicas behind a load balancer can serve the same clients")
	if err := c.parse(args); err != nil {
		return err
	}
	if len(c.args) > 0 {
		return usageErr("serve takes no arguments, got %q", c.args[0])
	}
	if *stateless && *addr == "" {
		return usageErr("serve: --stateless needs --http (a stdio server is one session)")
	}
	c.asker = mcp.ElicitAsker{}
	s, err := c.setup(ctx, stderr, c.statePath != "")
	if err != nil {
		return err
	}
	defer s.close()
	opts := &mcp.ServerOptions{Version: version()}
	if s.statePath != "" {
		// Every call loads the state file and saves its changes merged
		// with those of other calls, sessions and replicas.
		opts.State = s.callState(c, stderr)
	} else {
		opts.NewState = func() *tool.State { return tool.NewState(s.effective) }
		if *stateless {
			fmt.Fprintln(stderr, "toolscope: warning: --stateless without --state: every request starts from a fresh state, so Edit and Write cannot see an earlier Read; give --state FILE on storage the replicas share")
		}
	}
	srv := mcp.NewServer(s.tk, opts)
	if *addr == "" {
		return srv.Serve(ctx, io.NopCloser(stdin), nopWriteCloser{stdout})
	}
	h, err := srv.Handler(ctx, *stateless)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return usageErr("--http %s: %v", *addr, err)
	}
	fmt.Fprintf(stderr, "toolscope: serving MCP on http://%s/mcp\n", ln.Addr())
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// callState gives each call the state of the --state file, with the
// permissions of the config and the flags, and saves it after the call:
// the persisted permissions plus the rules the user added with "always".
func (s *setup) callState(c *common, warn io.Writer) func(context.Context, string) (*tool.State, func(), error) {
	return func(ctx context.Context, _ string) (*tool.State, func(), error) {
		st, err := loadState(s.statePath)
		if err != nil {
			return nil, nil, err
		}
		base, err := json.Marshal(st)
		if err != nil {
			return nil, nil, err
		}
		persisted := st.Permissions()
		pc, err := s.cfg.context(persisted, c, nil, io.Discard)
		if err != nil {
			return nil, nil, err
		}
		st.SetPermissions(pc)
		release := func() {
			keep := persisted.Clone()
			for _, r := range addedRules(pc, st.Permissions()) {
				keep.AddRule(r)
			}
			st.SetPermissions(keep)
			if err := saveState(s.statePath, base, st); err != nil {
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
