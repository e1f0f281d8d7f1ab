package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/mcp"
)

// headerLog records the configured headers each request to a server
// carried.
type headerLog struct {
	mu   sync.Mutex
	seen []string // "Authorization=...", "X-Api-Key=..."
	n    int      // requests
}

func (l *headerLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.n++
		for _, k := range []string{"Authorization", "X-Api-Key"} {
			if v := r.Header.Get(k); v != "" {
				l.seen = append(l.seen, k+"="+v)
			}
		}
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// A server's configured headers go to its origin only: when it redirects
// the client to another origin (another port here, a real MCP server
// there), the client follows without its credentials.
func TestClientHeadersStayWithTheOrigin(t *testing.T) {
	var elsewhere, configured headerLog
	other := httptest.NewServer(elsewhere.wrap(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return newServer() }, &sdk.StreamableHTTPOptions{Stateless: true})))
	defer other.Close()
	redirector := httptest.NewServer(configured.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect) // 307 keeps the POST and its body
	})))
	defer redirector.Close()

	c, err := mcp.NewClient("moved", mcp.ServerConfig{URL: redirector.URL + "/mcp", Headers: map[string]string{
		"Authorization": "Bearer secret-of-the-configured-server",
		"X-Api-Key":     "key-of-the-configured-server",
	}}, &mcp.ClientOptions{Stateless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := c.Tools(context.Background())
	if err != nil {
		t.Fatalf("listing the tools through the redirect: %v", err)
	}
	if len(tools) == 0 {
		t.Fatal("no tools through the redirect")
	}
	configured.mu.Lock()
	defer configured.mu.Unlock()
	elsewhere.mu.Lock()
	defer elsewhere.mu.Unlock()
	if configured.n == 0 || len(configured.seen) != 2*configured.n {
		t.Errorf("the configured server got %d requests with headers %q; want both headers on each", configured.n, configured.seen)
	}
	if elsewhere.n == 0 {
		t.Fatal("the redirect was not followed")
	}
	if len(elsewhere.seen) > 0 {
		t.Errorf("the other origin got the configured headers: %q", elsewhere.seen)
	}
}

// A session's id stays with its origin too: when the server redirects a
// request of an open session to another origin, the client follows
// without the Mcp-Session-Id the server gave it.
func TestClientSessionStaysWithTheOrigin(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if id := r.Header.Get("Mcp-Session-Id"); id != "" {
			leaked = append(leaked, id)
		}
		mu.Unlock()
		http.Error(w, "no such session", http.StatusNotFound)
	}))
	defer other.Close()
	real := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return newServer() }, nil)
	var redirected int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") != "" && r.URL.Query().Get("moved") == "" {
			mu.Lock()
			redirected++
			mu.Unlock()
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
			return
		}
		real.ServeHTTP(w, r)
	}))
	defer srv.Close()
	c, err := mcp.NewClient("moved", mcp.ServerConfig{URL: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Fails: the other origin knows no session.
	if err := c.Connect(context.Background()); err == nil {
		c.Tools(context.Background())
	}
	mu.Lock()
	defer mu.Unlock()
	if redirected == 0 {
		t.Fatal("no request of the session was redirected")
	}
	if len(leaked) > 0 {
		t.Errorf("the other origin got the session's id: %q", leaked)
	}
}
