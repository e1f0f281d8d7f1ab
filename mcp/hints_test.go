package mcp_test

import (
	"context"
	"testing"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// A server's readOnlyHint is its claim: by default its "read-only" tool
// asks in default mode, like any tool that may change things, and is
// denied in dont_ask and explore. A client that trusts the server's hints (TrustHints) lets it run
// without asking in every mode.
func TestClientHintsAreHints(t *testing.T) {
	u, _ := serve(t, "", false, newServer()) // "echo" says readOnlyHint
	for _, trust := range []bool{false, true} {
		c, err := mcp.NewClient("peer", mcp.ServerConfig{URL: u}, &mcp.ClientOptions{TrustHints: trust})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Connect(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		tk := newKit(t, c)
		for _, mode := range []permission.Mode{permission.Default, permission.DontAsk, permission.Explore} {
			st := tool.NewState(&permission.Context{Mode: mode})
			r := call(t, tk, st, "mcp__peer__echo", `{"message":"hi"}`)
			want := tool.StatusSuccess
			if !trust {
				want = tool.StatusDenied
				if mode == permission.Default {
					want = tool.StatusAsking
				}
			}
			if r.Status != want {
				t.Errorf("trustHints=%v, %s mode: %s %q, want %s", trust, mode, r.Status, r.Text(), want)
			}
		}
	}
}
