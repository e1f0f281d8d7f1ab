package mcp_test

import (
	"context"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/tool"
)

// lateSource is a tool source that reports its changes (a
// tool.ChangeReporter), as an MCP client of another server is.
type lateSource struct {
	mu      sync.Mutex
	tools   []tool.Tool
	version atomic.Uint64
}

func (s *lateSource) Name() string { return "late" }

func (s *lateSource) Tools(context.Context) ([]tool.Tool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tools), nil
}

func (s *lateSource) ListVersion() uint64 { return s.version.Load() }

func (s *lateSource) add(t tool.Tool) {
	s.mu.Lock()
	s.tools = append(s.tools, t)
	s.mu.Unlock()
	s.version.Add(1)
}

func echoTool(t *testing.T, name string) tool.Tool {
	t.Helper()
	f, err := tool.NewFunction("Echo.", func(_ context.Context, in echoIn) (string, error) {
		return in.Message, nil
	}, &tool.FunctionOptions{Name: name, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The served tools follow the Toolkit after every call, now that the
// server looks at the Toolkit's ListVersion instead of encoding every
// tool again: a call that makes a source add a tool, and a tool added to
// the Toolkit between calls, both reach the client (tools/list_changed)
// once a call has run.
func TestServerListChangedAfterCall(t *testing.T) {
	// On both revisions: under 2026-07-28 the client hears of changes on
	// its subscriptions/listen stream, and its lists carry cache hints.
	for _, protocol := range []string{mcp.ProtocolVersion, ""} {
		t.Run("protocol="+protocol, func(t *testing.T) { testServerListChangedAfterCall(t, protocol) })
	}
}

func testServerListChangedAfterCall(t *testing.T, protocol string) {
	src := &lateSource{}
	grow, err := tool.NewFunction("Makes the source offer one more tool.", func(context.Context, struct{}) (string, error) {
		src.add(echoTool(t, "late"))
		return "grown", nil
	}, &tool.FunctionOptions{Name: "grow", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	served, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{grow, echoTool(t, "echo")}, Sources: []tool.Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reqR, reqW := io.Pipe()
	respR, respW := io.Pipe()
	go mcp.NewServer(served, nil).Serve(ctx, reqR, respW)
	c, err := mcp.NewClient("s", mcp.ServerConfig{Conn: pipeConn{respR, reqW}}, &mcp.ClientOptions{TrustHints: true, Protocol: protocol})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if want := map[string]string{mcp.ProtocolVersion: mcp.ProtocolVersion, "": mcp.LatestProtocolVersion}[protocol]; c.NegotiatedProtocol() != want {
		t.Fatalf("protocol %q, want %q", c.NegotiatedProtocol(), want)
	}
	tk := newKit(t, c)
	names := func() []string {
		var out []string
		for _, s := range tk.Schemas(ctx, nil) {
			out = append(out, s.Name)
		}
		slices.Sort(out)
		return out
	}
	// waitFor calls a tool, then waits for the client to hear that the
	// list changed and checks the tools it then lists.
	waitFor := func(what, call string, want ...string) {
		t.Helper()
		v := c.ListVersion()
		if r := call1(t, tk, call); r.Status != tool.StatusSuccess {
			t.Fatalf("%s: %s %q", call, r.Status, r.Text())
		}
		for deadline := time.Now().Add(10 * time.Second); c.ListVersion() == v && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		if got := names(); !slices.Equal(got, want) {
			t.Errorf("after %s: the client lists %v, want %v", what, got, want)
		}
	}
	if got, want := names(), []string{"mcp__s__echo", "mcp__s__grow"}; !slices.Equal(got, want) {
		t.Fatalf("tools at first: %v, want %v", got, want)
	}
	waitFor("a call that made the source add a tool", "mcp__s__grow", "mcp__s__echo", "mcp__s__grow", "mcp__s__late")
	if err := served.Add(tool.BasicGroup, echoTool(t, "added")); err != nil {
		t.Fatal(err)
	}
	waitFor("a tool added to the Toolkit, and a call", "mcp__s__echo", "mcp__s__added", "mcp__s__echo", "mcp__s__grow", "mcp__s__late")
	served.Remove("grow")
	waitFor("a tool removed, and a call", "mcp__s__late", "mcp__s__added", "mcp__s__echo", "mcp__s__late")
}

func call1(t *testing.T, tk *tool.Toolkit, name string) *tool.Result {
	t.Helper()
	input := `{"message":"hi"}`
	if name == "mcp__s__grow" {
		input = `{}`
	}
	return call(t, tk, nil, name, input)
}
