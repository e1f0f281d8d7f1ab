package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// lineServer is a Server over in-process pipes, spoken to a line at a time.
type lineServer struct {
	w io.Writer
	r *bufio.Reader
}

func (c *lineServer) send(line string) { io.WriteString(c.w, line+"\n") }

func (c *lineServer) recv(t *testing.T) string {
	t.Helper()
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		l, err := c.r.ReadString('\n')
		ch <- res{l, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return strings.TrimSuffix(r.line, "\n")
	case <-time.After(20 * time.Second):
		t.Fatal("no answer in 20 s")
	}
	return ""
}

// serveLines serves tk with opts and returns a client of it; the server
// ends with the test.
func serveLines(t *testing.T, tk *tool.Toolkit, opts *mcp.ServerOptions) *lineServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	reqR, reqW := io.Pipe()
	respR, respW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		mcp.NewServer(tk, opts).Serve(ctx, reqR, respW)
	}()
	t.Cleanup(func() {
		reqW.Close()
		cancel()
		respR.Close()
		<-done
	})
	return &lineServer{w: reqW, r: bufio.NewReaderSize(respR, 1<<20)}
}

func (c *lineServer) initialize(t *testing.T) {
	t.Helper()
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if got := c.recv(t); !strings.Contains(got, `"protocolVersion"`) {
		t.Fatalf("initialize: %s", got)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// Calls that the server runs itself (plain tools/call) are answered with
// the very bytes the SDK answers them with: each call goes to two servers
// of the same tools over the same files, once plain and once with an
// empty _meta in its params (which leaves it to the SDK), and the answers
// must be equal. The calls cover text results, errors, a denial, an
// image, text that JSON must escape (quotes, control characters, HTML
// characters, invalid UTF-8, U+2028), ids that are strings (escaped too)
// and large integers, and a state that fails (a JSON-RPC error).
func TestDirectCallsAnswerAsTheSDK(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\ntwo <b>&amp;</b> \"q\" \\ \t tab\n\u2028 sep \u2029\n"), 0o644)
	var img bytes.Buffer
	png.Encode(&img, image.NewGray(image.Rect(0, 0, 4, 4)))
	os.WriteFile(filepath.Join(root, "p.png"), img.Bytes(), 0o644)
	os.Mkdir(filepath.Join(root, "list"), 0o755)
	for i := range 150 {
		os.WriteFile(filepath.Join(root, "list", fmt.Sprintf("f%03d.go", i)), nil, 0o644)
	}
	weird := "ctl \x00\x01\x1f\x7f <>& \xff\xfe bad utf-8, \u2028\u2029, emoji \U0001F600, \"quoted\" back\\slash"
	odd, err := tool.NewFunction("Returns text that JSON must escape.", func(context.Context, struct{}) (string, error) {
		return weird, nil
	}, &tool.FunctionOptions{Name: "odd", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	fails, err := tool.NewFunction("Fails.", func(context.Context, struct{}) (string, error) {
		return "", errors.New("it failed <badly> & \"loudly\"")
	}, &tool.FunctionOptions{Name: "fails", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	kit := func() *tool.Toolkit {
		tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: append(builtin.All(&builtin.Options{Root: root}), odd, fails)})
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	mode := func(m permission.Mode) *mcp.ServerOptions {
		return &mcp.ServerOptions{NewState: func() *tool.State { return tool.NewState(&permission.Context{Mode: m}) }}
	}
	failing := &mcp.ServerOptions{State: func(context.Context, string) (*tool.State, func(), error) {
		return nil, nil, errors.New("no state <today> & \"tomorrow\"")
	}}
	outside := filepath.Join(t.TempDir(), "x.txt")
	type call struct{ id, name, args string }
	for _, tc := range []struct {
		name  string
		opts  *mcp.ServerOptions
		calls []call
	}{
		{"bypass", mode(permission.Bypass), []call{
			{`1`, "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(root, "a.txt"))},
			{`"s<1>&\u2028"`, "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(root, "p.png"))},
			{`9007199254740992`, "TaskList", `{}`},
			{`-7`, "Glob", fmt.Sprintf(`{"pattern":"*.go","path":%q}`, filepath.Join(root, "list"))},
			{`"x"`, "Glob", `{"pattern":"nothing-*"}`},
			{`4`, "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(root, "missing.txt"))},
			{`5`, "Read", `{"file_path":7}`},
			{`6`, "Read", `null`},
			{`7`, "odd", `{}`},
			{`8`, "fails", `{}`},
			{`9`, "TaskCreate", `{"subject":"a <task>","description":"d & e"}`},
			{`10`, "TaskList", ``},
		}},
		{"default", mode(permission.Default), []call{
			{`1`, "Write", fmt.Sprintf(`{"file_path":%q,"content":"x"}`, outside)},
			{`2`, "Bash", `{"command":"rm -rf /tmp/nothing-here"}`},
		}},
		{"failing state", failing, []call{
			{`1`, "TaskList", `{}`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			direct, viaSDK := serveLines(t, kit(), tc.opts), serveLines(t, kit(), tc.opts)
			direct.initialize(t)
			viaSDK.initialize(t)
			for _, c := range tc.calls {
				args := ""
				if c.args != "" {
					args = `,"arguments":` + c.args
				}
				direct.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q%s}}`, c.id, c.name, args))
				viaSDK.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"_meta":{},"name":%q%s}}`, c.id, c.name, args))
				got, want := direct.recv(t), viaSDK.recv(t)
				if got != want {
					t.Errorf("%s %s:\n direct %.600s\n   SDK  %.600s", c.name, c.args, got, want)
				}
				if !json.Valid([]byte(got)) {
					t.Errorf("%s: not JSON: %.300s", c.name, got)
				}
			}
		})
	}
	// The text reached the wire escaped (the Toolkit itself replaces
	// control characters).
	s := serveLines(t, kit(), mode(permission.Bypass))
	s.initialize(t)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"odd","arguments":{}}}`)
	got := s.recv(t)
	for _, want := range []string{`\u003c\u003e\u0026`, `\ufffd`, `\u2028\u2029`, `😀`, `\"quoted\" back\\slash`} {
		if !strings.Contains(got, want) {
			t.Errorf("odd: %s lacks %s", got, want)
		}
	}
}

// What the server leaves to the SDK is answered as before: a call before
// initialize, a call of a tool that is not served, params that are not
// {name, arguments}, and a name that is not a string. Every call reuses
// the id of the one before, as soon as its answer is read: a call stops
// being pending before its answer is written (it was after, and the next
// call could be refused as "already in use").
func TestDirectCallFallbacks(t *testing.T) {
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{echoTool(t, "echo")}})
	if err != nil {
		t.Fatal(err)
	}
	s := serveLines(t, tk, nil)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"early"}}}`)
	if got := s.recv(t); !strings.Contains(got, `"error"`) || !strings.Contains(got, "initialization") {
		t.Errorf("a call before initialize: %s", got)
	}
	s.initialize(t)
	for _, tc := range []struct{ params, want string }{
		{`{"name":"nope","arguments":{}}`, `unknown tool`},
		{`{"name":5,"arguments":{}}`, `"error"`},
		{`{"name":"echo","arguments":{"message":"hi"},"extra":1}`, `"text":"hi"`},
		{`{"name":"echo","arguments":{"message":"meta"},"_meta":{"progressToken":"t"}}`, `"text":"meta"`},
		{`{"name":"echo","arguments":{"message":"plain"}}`, `"text":"plain"`},
	} {
		s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":` + tc.params + `}`)
		if got := s.recv(t); !strings.Contains(got, tc.want) || !strings.Contains(got, `"id":2`) {
			t.Errorf("%s: %s, want %s", tc.params, got, tc.want)
		}
	}
}

// A client that cancels a call (notifications/cancelled) stops it: the
// tool's context ends, and the answer says the call was interrupted. The
// call is one the server runs itself; the client is toolscope's own over
// pipes, as a stdio client would be.
func TestDirectCallCancelled(t *testing.T) {
	started, stopped := make(chan struct{}), make(chan error, 1)
	slow, err := tool.NewFunction("Waits until cancelled.", func(ctx context.Context, _ struct{}) (string, error) {
		close(started)
		select {
		case <-ctx.Done():
			stopped <- context.Cause(ctx)
			return "", ctx.Err()
		case <-time.After(30 * time.Second):
			return "not cancelled", nil
		}
	}, &tool.FunctionOptions{Name: "slow", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	served, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{slow}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancelServe := context.WithCancel(context.Background())
	reqR, reqW := io.Pipe()
	respR, respW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- mcp.NewServer(served, nil).Serve(ctx, reqR, respW) }()
	defer func() {
		cancelServe()
		reqW.Close()
		respR.Close()
		<-done
	}()
	c, err := mcp.NewClient("s", mcp.ServerConfig{Conn: pipeConn{respR, reqW}}, &mcp.ClientOptions{TrustHints: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tk := newKit(t, c)
	callCtx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	start := time.Now()
	r, _ := tk.Call(callCtx, &tool.Call{Name: "mcp__s__slow", Input: json.RawMessage(`{}`), State: tool.NewState(nil)})
	if r.Status != tool.StatusInterrupted {
		t.Errorf("cancelled call: %s %q", r.Status, r.Text())
	}
	select {
	case cause := <-stopped:
		if !errors.Is(cause, context.Canceled) {
			t.Errorf("the tool's context ended with %v", cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server never cancelled the tool")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the cancelled call took %v", d)
	}
}

// The server's own encoding of a string is encoding/json's: with HTML
// escaped (content, as the SDK's json.Marshal writes it) and without (the
// id, which the SDK's encoder writes with SetEscapeHTML(false)).
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "\x00\x1f\x7f", "<>&", "\xff", "a\xc3", "\u2028\u2029", "\"\\/", "\t\n\r\b\f", "é😀", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := mcp.AppendJSONString(nil, s, true); string(got) != string(want) {
			t.Errorf("html %q: %s, want %s", s, got, want)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		if got := mcp.AppendJSONString(nil, s, false); string(got) != strings.TrimSuffix(buf.String(), "\n") {
			t.Errorf("no html %q: %s, want %s", s, got, buf.String())
		}
	})
}

// Serving leaves no goroutine behind: the workers that ran the calls
// (several at once here, so that there are several workers) end with the
// session.
func TestDirectCallsLeaveNoGoroutine(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	wait, err := tool.NewFunction("Waits.", func(ctx context.Context, _ struct{}) (string, error) {
		started.Done()
		<-release
		return "done", nil
	}, &tool.FunctionOptions{Name: "wait", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{wait, echoTool(t, "echo")}})
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	reqR, reqW := io.Pipe()
	respR, respW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- mcp.NewServer(tk, nil).Serve(context.Background(), reqR, respW) }()
	c := &lineServer{w: reqW, r: bufio.NewReader(respR)}
	c.initialize(t)
	const n = 4
	started.Add(n)
	for i := range n {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"wait","arguments":{}}}`, 10+i))
	}
	started.Wait()
	close(release)
	for range n {
		if got := c.recv(t); !strings.Contains(got, `"text":"done"`) {
			t.Errorf("answer: %s", got)
		}
	}
	for i := range 20 {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m"}}}`, 100+i))
		c.recv(t)
	}
	reqW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return when its client left")
	}
	respR.Close()
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(10 * time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	if after > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before serving, %d after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// The server reads a frame's members without decoding it into a map; it
// finds what json.Unmarshal into a map[string]json.RawMessage finds:
// whether the frame is an object, every member (the last of a repeated
// key, keys with escapes), each value's text, and strings as they decode.
func FuzzObjectFields(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Read","arguments":{"file_path":"/a \"b\" \\ c"}}}`,
		`{}`, ` { "a" : [1, {"b": "}"}], "a": null , "c\u0041": "\u00e9\ud83d\ude00", "d":-1.5e3,"e":true}`, `[]`, `null`, `"x"`, `1`,
		`{"id":"x\\"y","method":"\u006dethod"}`, "{\"k\xff\":\"v\xfe\",\"\":{}}", `{"a":{"b":{"c":[[],[{}]]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var m map[string]json.RawMessage
		err := json.Unmarshal(b, &m)
		wantObject := err == nil && m != nil
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		got, isObject := mcp.ObjectMembers(b, append(keys, "absent-key"))
		if isObject != wantObject {
			t.Fatalf("%q: object %v, want %v", b, isObject, wantObject)
		}
		if !isObject {
			return
		}
		if len(got) != len(m) {
			t.Fatalf("%q: %d members, want %d", b, len(got), len(m))
		}
		for k, v := range m {
			if string(got[k]) != string(v) {
				t.Fatalf("%q: member %q is %q, want %q", b, k, got[k], v)
			}
			var want string
			wantErr := json.Unmarshal(v, &want)
			s, ok := mcp.JSONString(v)
			if ok != (wantErr == nil && len(v) > 0 && v[0] == '"') || ok && s != want {
				t.Fatalf("%q: string %q %v, want %q %v", v, s, ok, want, wantErr)
			}
		}
	})
}
