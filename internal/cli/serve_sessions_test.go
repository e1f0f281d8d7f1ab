package cli

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Abandoned HTTP sessions end after --session-idle: their goroutines go,
// and a request on one gets 404 (the client starts a new session). Today
// they stayed forever.
func TestServeHTTPSessionsExpire(t *testing.T) {
	url := serveHTTP(t, "--session-idle", "1s", "--max-sessions", "0")
	warm := &mcpHTTP{url: url}
	warm.initialize(t)
	http.DefaultClient.CloseIdleConnections()
	base := settledGoroutines()
	const n = 200
	var first *mcpHTTP
	for i := range n {
		c := &mcpHTTP{url: url}
		c.initialize(t)
		if i == 0 {
			first = c
		}
	}
	http.DefaultClient.CloseIdleConnections()
	during := runtime.NumGoroutine()
	if during < base+n {
		t.Fatalf("%d goroutines with %d sessions open, %d before: the sessions should hold some", during, n, base)
	}
	deadline := time.Now().Add(15 * time.Second)
	after := runtime.NumGoroutine()
	for ; after > base+10 && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("goroutines: %d before, %d with %d idle sessions, %d after the idle timeout", base, during, n, after)
	if after > base+10 {
		t.Errorf("%d goroutines %v after the sessions went idle, %d before", after, 15*time.Second, base)
	}
	if code, _, err := first.post(context.Background(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); err != nil || code != http.StatusNotFound {
		t.Errorf("a request on an expired session: %d %v, want 404", code, err)
	}
}

// settledGoroutines is the number of goroutines once it stops falling.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for range 20 {
		time.Sleep(50 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m >= n {
			return m
		}
		n = m
	}
	return n
}

// Past --max-sessions a new session is refused with an error that says
// why and what to do; ending a session makes room.
func TestServeHTTPMaxSessions(t *testing.T) {
	url := serveHTTP(t, "--max-sessions", "3")
	var open []*mcpHTTP
	for range 3 {
		c := &mcpHTTP{url: url}
		c.initialize(t)
		open = append(open, c)
	}
	extra := &mcpHTTP{url: url}
	code, m, err := extra.post(context.Background(), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if err != nil || code != http.StatusForbidden || !strings.Contains(string(m["error"]), "too many sessions") || string(m["id"]) != "0" {
		t.Errorf("a 4th session: %d %v %s", code, err, m["error"])
	}
	// A real client shows the server's reason.
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	if s, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url}, nil); err == nil {
		s.Close()
		t.Error("the go-sdk client opened a 4th session")
	} else if !strings.Contains(err.Error(), "too many sessions") || !strings.Contains(err.Error(), "DELETE") {
		t.Errorf("the go-sdk client's error does not say why: %v", err)
	}
	// The sessions open still work; ending one makes room for another.
	if _, m, err := open[0].post(context.Background(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); err != nil || m["result"] == nil {
		t.Errorf("tools/list on an open session: %v %s", err, m["error"])
	}
	if code := open[1].delete(t); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d", code)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		extra = &mcpHTTP{url: url}
		code, m, err := extra.post(context.Background(), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
		if err == nil && code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no room after a DELETE: %d %v %s", code, err, m["error"])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
