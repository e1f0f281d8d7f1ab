package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

type echoIn struct {
	Message string `json:"message"`
}

type slowIn struct {
	Seconds float64 `json:"seconds"`
}

type countOut struct {
	N int `json:"n"`
}

// cancelled hears of every slow call the server saw cancelled.
var cancelled = make(chan struct{}, 1)

// newServer is a go-sdk MCP server with tools that exercise every kind of
// result.
func newServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "peer", Version: "1"}, nil)
	yes, no := true, false
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo a message.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Echo: " + in.Message}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Annotations: &sdk.ToolAnnotations{DestructiveHint: &yes}},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "boom"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "rich.v1", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, countOut, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "three"},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG")},
				&sdk.ResourceLink{URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain"},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://t", MIMEType: "text/plain", Text: "inside"}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://b", MIMEType: "application/octet-stream", Blob: []byte{1, 2}}},
			}}, countOut{N: 3}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest, in slowIn) (*sdk.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Message: "started", Progress: 1, Total: 2})
			}
			select {
			case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil, nil
			case <-ctx.Done():
				select {
				case cancelled <- struct{}{}:
				default:
				}
				return nil, nil, ctx.Err()
			}
		})
	return s
}

// serve runs srv over streamable HTTP on addr ("" for any port) and
// returns the URL and a function that stops it.
func serve(t *testing.T, addr string, stateless bool, srv *sdk.Server) (string, func()) {
	t.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the port of a server just stopped may linger
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{Stateless: stateless})
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	var once sync.Once
	stop := func() { once.Do(func() { hs.Close() }) }
	t.Cleanup(stop)
	return "http://" + ln.Addr().String() + "/mcp", stop
}

func newKit(t *testing.T, c *mcp.Client) *tool.Toolkit {
	t.Helper()
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Sources: []tool.Source{c}})
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func call(t *testing.T, tk *tool.Toolkit, st *tool.State, name, input string) *tool.Result {
	t.Helper()
	r, err := tk.Call(context.Background(), &tool.Call{ID: "1", Name: name, Input: json.RawMessage(input), State: st})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// Tools of a server come into a Toolkit named mcp__SERVER__TOOL, with
// their annotations; read-only ones (of a server whose hints are trusted)
// run without asking, the others ask;
// every kind of content is converted; isError is an error result.
func TestClientTools(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			u, _ := serve(t, "", stateless, newServer())
			c, err := mcp.NewClient("peer", mcp.ServerConfig{URL: u}, &mcp.ClientOptions{Stateless: stateless, TrustHints: true})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := c.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			tk := newKit(t, c)
			var names []string
			for _, s := range tk.Schemas(ctx, nil) {
				names = append(names, s.Name)
				if s.Name == "mcp__peer__echo" && (s.Annotations.ReadOnlyHint == nil || !*s.Annotations.ReadOnlyHint || !strings.Contains(string(s.InputSchema), `"message"`)) {
					t.Errorf("echo schema: %+v %s", s, s.InputSchema)
				}
			}
			if got := strings.Join(names, " "); got != "mcp__peer__echo mcp__peer__fail mcp__peer__richxv1 mcp__peer__slow" {
				t.Errorf("tools: %s", got)
			}
			st := tool.NewState(&permission.Context{Mode: permission.Default})
			if r := call(t, tk, st, "mcp__peer__echo", `{"message":"hi"}`); r.Status != tool.StatusSuccess || r.Text() != "Echo: hi" {
				t.Errorf("echo: %s %q", r.Status, r.Text())
			}
			if r := call(t, tk, st, "mcp__peer__fail", `{}`); r.Status != tool.StatusAsking {
				t.Errorf("fail without a rule: %s %+v", r.Status, r.Decision)
			}
			st.AddRule(permission.Rule{Tool: "mcp__peer", Behavior: permission.Allow})
			if r := call(t, tk, st, "mcp__peer__fail", ``); r.Status != tool.StatusError || r.Text() != "boom" {
				t.Errorf("fail: %s %q", r.Status, r.Text())
			}
			r := call(t, tk, st, "mcp__peer__richxv1", `{}`)
			if r.Status != tool.StatusSuccess || string(r.StructuredContent) != `{"n":3}` {
				t.Fatalf("rich: %s %s %q", r.Status, r.StructuredContent, r.Text())
			}
			var kinds []string
			for _, b := range r.Content {
				switch b.Kind {
				case tool.KindText:
					kinds = append(kinds, "text:"+strings.Join(strings.Fields(b.Text), " "))
				case tool.KindData:
					kinds = append(kinds, fmt.Sprintf("data:%s:%d", b.MediaType, len(b.Data)))
				}
			}
			want := `text:three|data:image/png:4|text:Resource link: file:///a.txt (a.txt), text/plain { "uri": "mem://t", "mimeType": "text/plain", "text": "inside" }|data:application/octet-stream:2`
			if got := strings.Join(kinds, "|"); got != want {
				t.Errorf("rich content:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// A hanging tool is cut by the call timeout with an error result; progress
// the server reports reaches the host as progress chunks, not the result.
func TestClientTimeoutAndProgress(t *testing.T) {
	u, _ := serve(t, "", false, newServer())
	_, tk := connect(t, "peer", mcp.ServerConfig{URL: u}, &mcp.ClientOptions{CallTimeout: 300 * time.Millisecond})
	ctx := context.Background()
	st := tool.NewState(nil)
	start := time.Now()
	r := call(t, tk, st, "mcp__peer__slow", `{"seconds":30}`)
	if r.Status != tool.StatusError || !strings.Contains(r.Text(), "did not answer within 300ms") {
		t.Errorf("hanging call: %s %q", r.Status, r.Text())
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the timeout took %v", d)
	}
	var progress []string
	for ch, err := range tk.Stream(ctx, &tool.Call{Name: "mcp__peer__slow", Input: json.RawMessage(`{"seconds":0.1}`), State: st}) {
		if err != nil {
			t.Fatal(err)
		}
		if ch.Progress != nil {
			progress = append(progress, fmt.Sprintf("%s %v/%v", ch.Progress.Message, ch.Progress.Done, ch.Progress.Total))
		}
	}
	if len(progress) != 1 || progress[0] != "started 1/2" {
		t.Errorf("progress: %v", progress)
	}
	// The session still works after a call was cut.
	if r := call(t, tk, st, "mcp__peer__echo", `{"message":"after"}`); r.Text() != "Echo: after" {
		t.Errorf("after the timeout: %s %q", r.Status, r.Text())
	}
}

// The server is stopped and started again between two calls: the client
// renews the session and the second call succeeds.
func TestClientReconnects(t *testing.T) {
	u, stop := serve(t, "", false, newServer())
	_, tk := connect(t, "peer", mcp.ServerConfig{URL: u}, nil)
	st := tool.NewState(nil)
	if r := call(t, tk, st, "mcp__peer__echo", `{"message":"one"}`); r.Text() != "Echo: one" {
		t.Fatalf("first call: %s %q", r.Status, r.Text())
	}
	stop()
	serve(t, strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp"), false, newServer())
	if r := call(t, tk, st, "mcp__peer__echo", `{"message":"two"}`); r.Text() != "Echo: two" {
		t.Fatalf("call after the restart: %s %q", r.Status, r.Text())
	}
}

// A server that adds a tool tells the client, and the next turn has it.
func TestClientFollowsListChanged(t *testing.T) {
	srv := newServer()
	u, _ := serve(t, "", false, srv)
	c, tk := connect(t, "peer", mcp.ServerConfig{URL: u}, &mcp.ClientOptions{DisableTools: []string{"fail"}})
	ctx := context.Background()
	if n := len(tk.Tools(ctx, nil)); n != 3 {
		t.Fatalf("%d tools before, want 3 (fail disabled)", n)
	}
	v := c.ListVersion()
	sdk.AddTool(srv, &sdk.Tool{Name: "late"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{}, nil, nil
	})
	deadline := time.Now().Add(10 * time.Second)
	for c.ListVersion() == v && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(tk.Tools(ctx, nil)); n != 4 {
		t.Errorf("%d tools after the server added one, want 4", n)
	}
}

func TestNewClientRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		srv  mcp.ServerConfig
		opts *mcp.ClientOptions
		want string
	}{
		{"a b", mcp.ServerConfig{Command: "x"}, nil, "invalid server name"},
		{"fs__x", mcp.ServerConfig{Command: "x"}, nil, `must not contain "__"`},
		{"fs_", mcp.ServerConfig{Command: "x"}, nil, `end in '_'`},
		{"s", mcp.ServerConfig{}, nil, "needs a command"},
		{"s", mcp.ServerConfig{Command: "x", URL: "http://h"}, nil, "more than one of a command, a URL"},
		{"s", mcp.ServerConfig{Command: "x"}, &mcp.ClientOptions{Stateless: true}, "cannot be stateless"},
		{"s", mcp.ServerConfig{URL: "ftp://h"}, nil, "not an http or https URL"},
		{"s", mcp.ServerConfig{URL: "http://h", Transport: "ws"}, nil, "unknown transport"},
		{"s", mcp.ServerConfig{URL: "http://h"}, &mcp.ClientOptions{EnableTools: []string{"a"}, DisableTools: []string{"a"}}, "both enabled and disabled"},
	} {
		if _, err := mcp.NewClient(c.name, c.srv, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %+v: %v, want %q", c.name, c.srv, err, c.want)
		}
	}
}

// A stdio server that dies at start-up is reported with its standard error.
func TestClientStdioStartFailure(t *testing.T) {
	c, err := mcp.NewClient("broken", mcp.ServerConfig{Command: "sh", Args: []string{"-c", "echo 'cannot find config.yaml' >&2; exit 3"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cannot find config.yaml") || !strings.Contains(err.Error(), `"broken"`) {
		t.Errorf("connect: %v", err)
	}
}

func TestToolName(t *testing.T) {
	for in, want := range map[string]string{"read_file": "mcp__fs__read_file", "get.sum": "mcp__fs__getxsum", "a b/c": "mcp__fs__axbxc", "é": "mcp__fs__xx"} {
		if got := mcp.ToolName("fs", in); got != want {
			t.Errorf("ToolName(fs, %q) = %q, want %q", in, got, want)
		}
	}
}

// A server that never answers tools/list holds a listing up for
// ListTimeout, not for ever.
func TestClientListTimeout(t *testing.T) {
	// Answers initialize (whatever its id), then reads and ignores the rest.
	script := `read l; id=$(printf '%s' "$l" | sed 's/.*"id":\([0-9]*\).*/\1/')
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"mute","version":"1"}}}\n' "$id"
while read l; do :; done`
	c, err := mcp.NewClient("mute", mcp.ServerConfig{Command: "sh", Args: []string{"-c", script}}, &mcp.ClientOptions{ListTimeout: 300 * time.Millisecond, Protocol: mcp.ProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	_, err = c.Tools(ctx)
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Errorf("listing a mute server: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the listing took %v", d)
	}
}

// Cancelling a call tells the server (notifications/cancelled), which stops
// the tool; the model reads that the call was interrupted.
func TestClientCancelTellsServer(t *testing.T) {
	select { // a token an earlier test left
	case <-cancelled:
	default:
	}
	u, _ := serve(t, "", false, newServer())
	c, err := mcp.NewClient("peer", mcp.ServerConfig{URL: u}, &mcp.ClientOptions{TrustHints: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tk := newKit(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	r, _ := tk.Call(ctx, &tool.Call{Name: "mcp__peer__slow", Input: json.RawMessage(`{"seconds":30}`), State: tool.NewState(nil)})
	if r.Status != tool.StatusInterrupted {
		t.Errorf("cancelled call: %s %q", r.Status, r.Text())
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Error("the server never saw the call cancelled")
	}
}

// A stateful client connects, closes and connects again; a second Connect
// while connected, or a Close while closed, is an error.
func TestClientReconnectAfterClose(t *testing.T) {
	u, _ := serve(t, "", false, newServer())
	c, err := mcp.NewClient("peer", mcp.ServerConfig{URL: u}, &mcp.ClientOptions{TrustHints: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Tools(ctx); err == nil || !strings.Contains(err.Error(), "not connected") {
		t.Errorf("listing before Connect: %v", err)
	}
	for i := 0; i < 2; i++ {
		if err := c.Connect(ctx); err != nil {
			t.Fatalf("connect %d: %v", i, err)
		}
		if err := c.Connect(ctx); err == nil || !strings.Contains(err.Error(), "already connected") {
			t.Errorf("second Connect: %v", err)
		}
		if ts, err := c.Tools(ctx); err != nil || len(ts) != 4 {
			t.Errorf("connection %d: %d tools, %v", i, len(ts), err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("close %d: %v", i, err)
		}
	}
	if err := c.Close(); err == nil {
		t.Error("Close of a closed client: no error")
	}
}

// A server that cannot list its tools is left out of the turn; the other
// servers' tools are there.
func TestFailingServerLeftOut(t *testing.T) {
	u1, _ := serve(t, "", false, newServer())
	u2, stop := serve(t, "", true, newServer())
	good, _ := mcp.NewClient("good", mcp.ServerConfig{URL: u1}, nil)
	bad, _ := mcp.NewClient("bad", mcp.ServerConfig{URL: u2}, &mcp.ClientOptions{Stateless: true})
	ctx := context.Background()
	if err := good.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	stop() // the stateless server is gone before the first listing
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Sources: []tool.Source{bad, good}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range tk.Schemas(ctx, nil) {
		names = append(names, s.Name)
	}
	if len(names) != 4 || !strings.HasPrefix(names[0], "mcp__good__") {
		t.Errorf("tools with one server down: %v", names)
	}
}

// A stdio server of an older revision that exits on the 2026-07-28
// discovery, or never answers it, is started again on 2025-11-25, and the
// client stays there: its next session starts the server once.
func TestClientDiscoveryFallback(t *testing.T) {
	defer mcp.SetDiscoverTimeout(500 * time.Millisecond)()
	// Answers initialize (with its id); on server/discover it exits or
	// goes mute, as $MODE says. Each start is a line in $STARTS.
	script := `echo start >> "$STARTS"
read l
case "$l" in *server/discover*) [ "$MODE" = exit ] && exit 1; while read l; do :; done; exit 0;; esac
id=$(printf '%s' "$l" | sed 's/.*"id":\([0-9]*\).*/\1/')
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"1"}}}\n' "$id"
while read l; do :; done`
	for _, mode := range []string{"exit", "mute"} {
		t.Run(mode, func(t *testing.T) {
			starts := filepath.Join(t.TempDir(), "starts")
			c, err := mcp.NewClient("old", mcp.ServerConfig{Command: "sh", Args: []string{"-c", script}, Env: map[string]string{"MODE": mode, "STARTS": starts}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := c.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			if v := c.NegotiatedProtocol(); v != mcp.ProtocolVersion {
				t.Errorf("negotiated %q", v)
			}
			c.Close()
			if err := c.Connect(ctx); err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if b, _ := os.ReadFile(starts); strings.Count(string(b), "start") != 3 {
				t.Errorf("the server started %d times, want 3 (the discovery, the fallback, the next session)", strings.Count(string(b), "start"))
			}
		})
	}
}
