package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serveProc is `toolscope serve` running as a process of its own (the
// binary buildCLI built), spoken to as a client would: JSON-RPC lines on
// its standard input and output (stdio), or HTTP requests (--http).
type serveProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // its standard output, line by line
	stderr syncBuffer
	exited chan struct{}
	err    error // cmd.Wait's, once exited is closed
	url    string
}

// startServe starts `toolscope serve args...` in dir.
func startServe(t *testing.T, bin, dir string, args ...string) *serveProc {
	t.Helper()
	if bin == "" {
		t.Skip("needs the CLI built: main's signal handling is not in the test binary")
	}
	p := &serveProc{lines: make(chan []byte, 64), exited: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"serve"}, args...)...)
	p.cmd.Dir = dir
	p.cmd.Stderr = &p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		br := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				p.lines <- line
			}
			if err != nil {
				close(p.lines)
				return
			}
		}
	}()
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// send writes one line to the server's standard input.
func (p *serveProc) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		t.Fatalf("writing to serve: %v (stderr: %s)", err, p.stderr.String())
	}
}

// recv returns the next message the server writes, within d.
func (p *serveProc) recv(t *testing.T, d time.Duration) map[string]json.RawMessage {
	t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			t.Fatalf("serve closed its output (stderr: %s)", p.stderr.String())
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("serve wrote a line that is not a JSON object: %q", line)
		}
		return m
	case <-time.After(d):
		t.Fatalf("no message from serve within %v (stderr: %s)", d, p.stderr.String())
	}
	return nil
}

// reply sends the request and returns the response with its id, skipping
// notifications.
func (p *serveProc) reply(t *testing.T, id int, method, params string) map[string]json.RawMessage {
	t.Helper()
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	for {
		m := p.recv(t, 20*time.Second)
		if string(m["id"]) == fmt.Sprint(id) {
			return m
		}
	}
}

// initialize opens the MCP session (stdio).
func (p *serveProc) initialize(t *testing.T) {
	t.Helper()
	if m := p.reply(t, 0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}`); m["result"] == nil {
		t.Fatalf("initialize: %s", m["error"])
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// wait waits up to d for the server to exit and returns its exit status.
func (p *serveProc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(d):
		t.Fatalf("serve did not exit within %v (stderr: %s)", d, p.stderr.String())
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if p.err != nil {
		return -1
	}
	return 0
}

// listening waits for an HTTP server to say where it listens.
func (p *serveProc) listening(t *testing.T) string {
	t.Helper()
	re := regexp.MustCompile(`serving MCP on (http://\S+)`)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(p.stderr.String()); m != nil {
			p.url = m[1]
			return p.url
		}
		select {
		case <-p.exited:
			t.Fatalf("serve --http exited: %s", p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("serve --http did not say where it listens: %s", p.stderr.String())
	return ""
}

// toolText is the text of a tools/call result, and whether it is an error
// result.
func toolText(t *testing.T, m map[string]json.RawMessage) (string, bool) {
	t.Helper()
	if m["error"] != nil {
		return "JSON-RPC error: " + string(m["error"]), true
	}
	var r struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(m["result"], &r); err != nil {
		t.Fatalf("result %s: %v", m["result"], err)
	}
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String(), r.IsError
}

// waitProcs waits up to d for at least n processes with arg in their
// command line.
func waitProcs(arg string, n int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if len(processesWith(arg)) >= n {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// noneLeft reports (and kills) the processes with arg that remain after
// d.
func noneLeft(t *testing.T, arg string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for len(processesWith(arg)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := processesWith(arg); len(left) > 0 {
		for _, p := range left {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Errorf("processes of the call left after %v: %v", d, left)
	}
}

// mcpHTTP is a raw streamable HTTP client: one POST per message.
type mcpHTTP struct {
	url string
	sid string
}

// post sends msg and returns the HTTP status and the JSON-RPC response in
// the answer (a JSON body or the first response event of a stream).
func (c *mcpHTTP) post(ctx context.Context, msg string) (int, map[string]json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(msg))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.sid = id
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "data: ")
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(line), &m) == nil && m["id"] != nil {
			return resp.StatusCode, m, nil
		}
	}
	return resp.StatusCode, nil, sc.Err()
}

// initialize opens a session (HTTP).
func (c *mcpHTTP) initialize(t *testing.T) {
	t.Helper()
	code, m, err := c.post(context.Background(), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if err != nil || code != http.StatusOK || m["result"] == nil || c.sid == "" {
		t.Fatalf("initialize: %d %v %s (session %q)", code, err, m["error"], c.sid)
	}
	if code, _, err := c.post(context.Background(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil || code != http.StatusAccepted {
		t.Fatalf("initialized: %d %v", code, err)
	}
}

// delete ends the session.
func (c *mcpHTTP) delete(t *testing.T) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, c.url, nil)
	req.Header.Set("Mcp-Session-Id", c.sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// syncBuffer is a bytes.Buffer safe for a process's writes and the test's
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
