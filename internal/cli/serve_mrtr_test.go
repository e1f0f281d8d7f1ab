package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// roundRobin is a reverse proxy that sends each request to the next of
// its backends, and counts them.
type roundRobin struct {
	backends []*httputil.ReverseProxy
	next     atomic.Int64
	served   []atomic.Int64
}

func newRoundRobin(t *testing.T, urls ...string) *roundRobin {
	rr := &roundRobin{served: make([]atomic.Int64, len(urls))}
	for _, u := range urls {
		target, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		rr.backends = append(rr.backends, httputil.NewSingleHostReverseProxy(target))
	}
	return rr
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := int(rr.next.Add(1)-1) % len(rr.backends)
	rr.served[i].Add(1)
	rr.backends[i].ServeHTTP(w, r)
}

// Two `serve --http --stateless --state F` replicas behind a round-robin
// proxy, and a client of MCP 2026-07-28 (the go-sdk client's default): an
// approval asked by one replica and answered in a retry that reaches the
// other runs the call once, since the replicas seal approvals with one
// key. A retry carrying the answer for another input asks afresh.
func TestStatelessReplicasShareApprovals(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(t.TempDir(), "state.json")
	a := serveHTTP(t, "--cwd", dir, "--stateless", "--state", state)
	b := serveHTTP(t, "--cwd", dir, "--stateless", "--state", state)
	rr := newRoundRobin(t, a, b)
	proxy := httptest.NewServer(rr)
	t.Cleanup(proxy.Close)
	// The endpoint path of the replicas (their URL's path) on the proxy.
	u, _ := url.Parse(a)
	endpoint := proxy.URL + u.Path

	var asked atomic.Int32
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked.Add(1)
			if !strings.Contains(r.Params.Message, "Tool: Write") {
				t.Errorf("elicitation message: %q", r.Params.Message)
			}
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}, nil
		},
	})
	s, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v := s.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("protocol %s, want 2026-07-28", v)
	}
	for _, name := range []string{"one.txt", "two.txt", "three.txt"} {
		before := [2]int64{rr.served[0].Load(), rr.served[1].Load()}
		text, isErr := callTool(t, s, "Write", map[string]any{"file_path": filepath.Join(dir, name), "content": name})
		if isErr {
			t.Fatalf("approved Write of %s: %q", name, text)
		}
		if rr.served[0].Load() == before[0] || rr.served[1].Load() == before[1] {
			t.Errorf("%s: the call and its retry did not reach both replicas: %v -> %d, %d", name, before, rr.served[0].Load(), rr.served[1].Load())
		}
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != name {
			t.Fatalf("%s: %q %v", name, got, err)
		}
	}
	if asked.Load() != 3 {
		t.Errorf("asked %d times, want 3", asked.Load())
	}
}
