package mcp_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/internal/oauthtest"
	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/mcp/oauth"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// A server behind OAuth: before a login the client fails to connect with
// an error that says what to run; after it, over streamable HTTP, its
// tools are listed and called with the stored token.
func TestClientOAuth(t *testing.T) {
	as := oauthtest.NewAS(t, nil)
	rs := oauthtest.NewResource(t, as, nil)
	cfg := &oauth.Config{Dir: filepath.Join(t.TempDir(), "tokens"), LoginHint: `run "toolscope mcp login remote"`}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	c, err := mcp.NewClient("remote", mcp.ServerConfig{URL: rs.URL, OAuth: cfg}, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Connect(ctx)
	if err == nil || !strings.Contains(err.Error(), `needs authorization: it asks for a token and none is stored (not logged in); run "toolscope mcp login remote"`) {
		t.Fatalf("Connect before a login: %v", err)
	}

	login := *cfg
	login.OpenURL = oauthtest.Browser(nil)
	if err := oauth.Login(ctx, rs.URL, &login); err != nil {
		t.Fatal(err)
	}
	for _, stateless := range []bool{false, true} {
		c, err := mcp.NewClient("remote", mcp.ServerConfig{URL: rs.URL, OAuth: cfg}, &mcp.ClientOptions{Stateless: stateless})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Connect(ctx); err != nil {
			t.Fatal(err)
		}
		tk := newKit(t, c)
		st := tool.NewState(&permission.Context{Mode: permission.Default})
		st.AddRule(permission.Rule{Tool: "mcp__remote", Behavior: permission.Allow})
		if r := call(t, tk, st, "mcp__remote__hello", `{}`); r.Status != tool.StatusSuccess || r.Text() != "hello from the protected server" {
			t.Errorf("stateless=%v: hello: %s %q", stateless, r.Status, r.Text())
		}
		c.Close()
	}
}
