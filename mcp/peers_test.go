package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolscope/toolscope/internal/peers"
	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// peers returns the directory where .ci/mcp-peers installed the npm MCP
// servers, and the node binary.
func peersOf(t *testing.T) (dir, node string) {
	t.Helper()
	_, node = peers.Need(t, "node_modules/@modelcontextprotocol/server-everything/dist/index.js", false)
	return peers.Dir(), node
}

func everything(dir string) string {
	return filepath.Join(dir, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

// freePort returns a TCP port nothing listens on (for a server that takes
// its port from the environment).
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startNode runs a node server in the background until the test ends (or
// stop is called), and waits until it listens on port.
func startNode(t *testing.T, port int, env []string, args ...string) (stop func()) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if os.Getenv("PEER_LOG") != "" {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stop = func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			return stop
		}
		select {
		case <-done:
			t.Fatalf("%v exited before it listened", args)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v did not listen on %d", args, port)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// connect connects a client to a server these tests know, trusting its
// hints (ClientOptions.TrustHints) so that its read-only tools run
// without an asker; TestClientHintsAreHints shows the default.
func connect(t *testing.T, name string, srv mcp.ServerConfig, opts *mcp.ClientOptions) (*mcp.Client, *tool.Toolkit) {
	t.Helper()
	o := mcp.ClientOptions{}
	if opts != nil {
		o = *opts
	}
	o.TrustHints = true
	c, err := mcp.NewClient(name, srv, &o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, newKit(t, c)
}

func toolNames(tk *tool.Toolkit) []string {
	var out []string
	for _, s := range tk.Schemas(context.Background(), nil) {
		out = append(out, s.Name)
	}
	return out
}

// server-everything over stdio: every kind of content, progress, and
// read-only tools allowed by their annotations.
func TestEverythingStdio(t *testing.T) {
	dir, node := peersOf(t)
	_, tk := connect(t, "ev", mcp.ServerConfig{Command: node, Args: []string{everything(dir), "stdio"}}, nil)
	names := toolNames(tk)
	for _, want := range []string{"mcp__ev__echo", "mcp__ev__get-sum", "mcp__ev__get-tiny-image", "mcp__ev__get-structured-content", "mcp__ev__trigger-long-running-operation"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	st := tool.NewState(&permission.Context{Mode: permission.Default})
	if r := call(t, tk, st, "mcp__ev__echo", `{"message":"hello"}`); r.Status != tool.StatusSuccess || r.Text() != "Echo: hello" {
		t.Errorf("echo: %s %q", r.Status, r.Text())
	}
	if r := call(t, tk, st, "mcp__ev__get-sum", `{"a":2,"b":40}`); !strings.Contains(r.Text(), "42") {
		t.Errorf("get-sum: %s %q", r.Status, r.Text())
	}
	r := call(t, tk, st, "mcp__ev__get-tiny-image", `{}`)
	if !slices.ContainsFunc(r.Content, func(b tool.Block) bool {
		return b.Kind == tool.KindData && b.MediaType == "image/png" && len(b.Data) > 1000
	}) {
		t.Errorf("get-tiny-image: %s %+v", r.Status, r.Content)
	}
	r = call(t, tk, st, "mcp__ev__get-structured-content", `{"location":"New York"}`)
	if r.Status != tool.StatusSuccess || !json.Valid(r.StructuredContent) || len(r.StructuredContent) < 3 {
		t.Errorf("get-structured-content: %s %s", r.Status, r.StructuredContent)
	}
	if r := call(t, tk, st, "mcp__ev__get-resource-links", `{"count":2}`); !strings.Contains(r.Text(), "Resource link: demo://") {
		t.Errorf("get-resource-links: %s %q", r.Status, r.Text())
	}
	if r := call(t, tk, st, "mcp__ev__get-resource-reference", `{"resourceType":"Text","resourceId":1}`); !strings.Contains(r.Text(), `"uri": "demo://`) {
		t.Errorf("get-resource-reference: %s %q", r.Status, r.Text())
	}
	if r := call(t, tk, st, "mcp__ev__get-sum", `{"a":"x"}`); r.Status != tool.StatusError {
		t.Errorf("bad arguments: %s %q", r.Status, r.Text())
	}
	var progress int
	for ch, err := range tk.Stream(context.Background(), &tool.Call{Name: "mcp__ev__trigger-long-running-operation", Input: json.RawMessage(`{"duration":1,"steps":2}`), State: st}) {
		if err != nil {
			t.Fatal(err)
		}
		if ch.Progress != nil {
			progress++
		}
	}
	if progress == 0 {
		t.Error("no progress from trigger-long-running-operation")
	}
}

// server-everything over streamable HTTP, killed and started again between
// two calls: the second call succeeds on a new session.
func TestEverythingHTTPRestart(t *testing.T) {
	dir, node := peersOf(t)
	port := freePort(t)
	env := []string{fmt.Sprintf("PORT=%d", port)}
	stop := startNode(t, port, env, node, everything(dir), "streamableHttp")
	_, tk := connect(t, "ev", mcp.ServerConfig{URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}, nil)
	st := tool.NewState(nil)
	if r := call(t, tk, st, "mcp__ev__echo", `{"message":"one"}`); r.Text() != "Echo: one" {
		t.Fatalf("first call: %s %q", r.Status, r.Text())
	}
	stop()
	startNode(t, port, env, node, everything(dir), "streamableHttp")
	// A tool that is neither read-only nor idempotent: sent again only
	// because the new server refused the old session.
	st.AddRule(permission.Rule{Tool: "mcp__ev", Behavior: permission.Allow})
	if r := call(t, tk, st, "mcp__ev__toggle-simulated-logging", `{}`); r.Status != tool.StatusSuccess {
		t.Fatalf("call after the restart: %s %q", r.Status, r.Text())
	}
	if r := call(t, tk, st, "mcp__ev__echo", `{"message":"two"}`); r.Text() != "Echo: two" {
		t.Fatalf("second call after the restart: %s %q", r.Status, r.Text())
	}
}

// server-filesystem over stdio: its annotations make the reading tools
// read-only (allowed), the writing ones ask; a path outside its root is
// the server's error, which the model reads.
func TestFilesystemStdio(t *testing.T) {
	dir, node := peersOf(t)
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, _ = filepath.EvalSymlinks(root)
	_, tk := connect(t, "fs", mcp.ServerConfig{Command: node, Args: []string{filepath.Join(dir, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), root}}, nil)
	st := tool.NewState(&permission.Context{Mode: permission.Default})
	in, _ := json.Marshal(map[string]string{"path": filepath.Join(root, "a.txt")})
	if r := call(t, tk, st, "mcp__fs__read_text_file", string(in)); r.Status != tool.StatusSuccess || !strings.Contains(r.Text(), "hello file") {
		t.Errorf("read_text_file: %s %q", r.Status, r.Text())
	}
	w, _ := json.Marshal(map[string]string{"path": filepath.Join(root, "b.txt"), "content": "x"})
	if r := call(t, tk, st, "mcp__fs__write_file", string(w)); r.Status != tool.StatusAsking {
		t.Errorf("write_file in default mode: %s %q", r.Status, r.Text())
	}
	if _, err := os.Stat(filepath.Join(root, "b.txt")); err == nil {
		t.Error("write_file ran before it was approved")
	}
	if r := call(t, tk, st, "mcp__fs__read_text_file", `{"path":"/etc/passwd"}`); r.Status != tool.StatusError || !strings.Contains(r.Text(), "denied") {
		t.Errorf("read outside the root: %s %q", r.Status, r.Text())
	}
}

// A stateless streamable HTTP server (supergateway in front of
// server-everything): a session per listing and per call.
func TestStatelessHTTP(t *testing.T) {
	dir, node := peersOf(t)
	port := freePort(t)
	startNode(t, port, nil, node, filepath.Join(dir, "node_modules/supergateway/dist/index.js"),
		"--stdio", node+" "+everything(dir)+" stdio", "--outputTransport", "streamableHttp", "--port", fmt.Sprint(port))
	_, tk := connect(t, "gw", mcp.ServerConfig{URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}, &mcp.ClientOptions{Stateless: true})
	if names := toolNames(tk); !slices.Contains(names, "mcp__gw__echo") {
		t.Fatalf("tools: %v", names)
	}
	if r := call(t, tk, tool.NewState(nil), "mcp__gw__echo", `{"message":"stateless"}`); r.Text() != "Echo: stateless" {
		t.Errorf("echo: %s %q", r.Status, r.Text())
	}
}

// server-everything over the legacy HTTP+SSE transport, chosen by the
// URL's path.
func TestEverythingSSE(t *testing.T) {
	dir, node := peersOf(t)
	port := freePort(t)
	startNode(t, port, []string{fmt.Sprintf("PORT=%d", port)}, node, everything(dir), "sse")
	_, tk := connect(t, "old", mcp.ServerConfig{URL: fmt.Sprintf("http://127.0.0.1:%d/sse", port)}, nil)
	if r := call(t, tk, tool.NewState(nil), "mcp__old__echo", `{"message":"sse"}`); r.Text() != "Echo: sse" {
		t.Errorf("echo: %s %q", r.Status, r.Text())
	}
}

// Protocol "auto" against a server of the TypeScript SDK v1, which does
// not offer 2026-07-28 (server-everything over stdio): the client falls
// back to 2025-11-25 and the server's tools work.
func TestProtocolAutoFallsBack(t *testing.T) {
	dir, node := peersOf(t)
	c, tk := connect(t, "ev", mcp.ServerConfig{Command: node, Args: []string{everything(dir), "stdio"}}, &mcp.ClientOptions{Protocol: "auto"})
	if got := c.NegotiatedProtocol(); got != mcp.ProtocolVersion {
		t.Errorf("server-everything: protocol %q, want %s", got, mcp.ProtocolVersion)
	}
	st := tool.NewState(&permission.Context{Mode: permission.Default})
	if r := call(t, tk, st, "mcp__ev__echo", `{"message":"hello"}`); r.Status != tool.StatusSuccess || r.Text() != "Echo: hello" {
		t.Errorf("echo: %s %q", r.Status, r.Text())
	}
}
