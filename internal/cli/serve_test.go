package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveStdio runs `toolscope serve args...` in this process on pipes and
// returns a go-sdk client session connected to it.
func serveStdio(t *testing.T, copts *sdk.ClientOptions, args ...string) *sdk.ClientSession {
	t.Helper()
	return serveStdioAt(t, "2025-11-25", copts, args...)
}

// protocols are the MCP revisions a test of serve runs under: the one
// before 2026-07-28 (approvals asked by a request to the client), and
// what the go-sdk client asks for by default (2026-07-28: asked by an
// input_required result, answered by a retry).
var protocols = []string{"2025-11-25", ""}

// serveStdioAt is serveStdio with the client asking for protocol version
// ("" for the go-sdk client's default); the session must agree on it.
func serveStdioAt(t *testing.T, version string, copts *sdk.ClientOptions, args ...string) *sdk.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := run(ctx, append([]string{"serve"}, args...), inR, outW, io.Discard)
		outW.Close()
		done <- err
	}()
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, copts)
	s, err := c.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	want := version
	if want == "" {
		want = "2026-07-28"
	}
	if got := s.InitializeResult().ProtocolVersion; got != want {
		t.Fatalf("the session agreed on protocol %s, want %s", got, want)
	}
	t.Cleanup(func() {
		s.Close()
		inW.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("serve did not end")
		}
	})
	return s
}

func callTool(t *testing.T, s *sdk.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	r, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), r.IsError
}

// serve lists the built-ins with their annotations, runs a read-only call,
// and refuses a call that needs approval when the client cannot be asked.
func TestServeStdio(t *testing.T) {
	for _, v := range protocols {
		t.Run("protocol="+v, func(t *testing.T) { testServeStdio(t, v) })
	}
}

func testServeStdio(t *testing.T, version string) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	s := serveStdioAt(t, version, nil, "--cwd", dir)
	lr, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*sdk.Tool{}
	for _, tl := range lr.Tools {
		got[tl.Name] = tl
	}
	for _, name := range []string{"Bash", "Read", "Write", "Edit", "Glob", "Grep"} {
		if got[name] == nil {
			t.Fatalf("tools/list lacks %s: %v", name, lr.Tools)
		}
	}
	if a := got["Read"].Annotations; a == nil || !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
		t.Errorf("Read annotations: %+v", a)
	}
	if a := got["Bash"].Annotations; a == nil || a.ReadOnlyHint || !*a.DestructiveHint || !*a.OpenWorldHint || a.IdempotentHint {
		t.Errorf("Bash annotations: %+v", a)
	}
	if a := got["Write"].Annotations; a == nil || a.ReadOnlyHint || !*a.DestructiveHint || !a.IdempotentHint || *a.OpenWorldHint {
		t.Errorf("Write annotations: %+v", a)
	}
	if text, isErr := callTool(t, s, "Read", map[string]any{"file_path": filepath.Join(dir, "a.txt")}); isErr || !strings.Contains(text, "alpha") {
		t.Errorf("Read: error=%v %q", isErr, text)
	}
	text, isErr := callTool(t, s, "Write", map[string]any{"file_path": filepath.Join(dir, "b.txt"), "content": "x"})
	if !isErr || !strings.Contains(text, "does not support elicitation") {
		t.Errorf("Write without elicitation: error=%v %q", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Error("Write ran without approval")
	}
	if text, isErr := callTool(t, s, "Bash", map[string]any{"command": "rm -rf /"}); !isErr || text == "" {
		t.Errorf("rm -rf /: error=%v %q", isErr, text)
	}
}

// A client that supports elicitation is asked; "allow" runs the call,
// declining refuses it, "always" adds the suggested rule for the session.
func TestServeElicitation(t *testing.T) {
	for _, v := range protocols {
		t.Run("protocol="+v, func(t *testing.T) { testServeElicitation(t, v) })
	}
}

func testServeElicitation(t *testing.T, version string) {
	dir := t.TempDir()
	var asked atomic.Int32
	var answer atomic.Value
	answer.Store(map[string]any{"allow": true})
	s := serveStdioAt(t, version, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked.Add(1)
			if !strings.Contains(r.Params.Message, "Tool: Write") {
				t.Errorf("elicitation message: %q", r.Params.Message)
			}
			a := answer.Load().(map[string]any)
			if a == nil {
				return &sdk.ElicitResult{Action: "decline"}, nil
			}
			return &sdk.ElicitResult{Action: "accept", Content: a}, nil
		},
	}, "--cwd", dir)
	write := func(name string) (string, bool) {
		return callTool(t, s, "Write", map[string]any{"file_path": filepath.Join(dir, name), "content": name})
	}
	if text, isErr := write("one.txt"); isErr {
		t.Errorf("approved Write: %q", text)
	}
	answer.Store(map[string]any(nil))
	if text, isErr := write("two.txt"); !isErr || !strings.Contains(text, "rejected") {
		t.Errorf("declined Write: error=%v %q", isErr, text)
	}
	answer.Store(map[string]any{"allow": true, "always": true})
	write("three.txt")
	callTool(t, s, "Read", map[string]any{"file_path": filepath.Join(dir, "three.txt")}) // Write wants a read first
	n := asked.Load()
	if text, isErr := write("three.txt"); isErr { // the suggested rule covers the same file
		t.Errorf("Write after always: %q", text)
	}
	if asked.Load() != n {
		t.Error("asked again after the user said always")
	}
	for name, want := range map[string]bool{"one.txt": true, "two.txt": false, "three.txt": true} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s exists=%v, want %v", name, err == nil, want)
		}
	}
}

// serveHTTP runs `toolscope serve --http 127.0.0.1:0 args...` in this
// process and returns its URL.
func serveHTTP(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errR, errW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--http", "127.0.0.1:0"}, args...), strings.NewReader(""), io.Discard, errW)
		errW.Close()
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	sc := bufio.NewScanner(errR)
	for sc.Scan() {
		if m := regexp.MustCompile(`serving MCP on (\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, errR)
			return m[1]
		}
	}
	t.Fatalf("serve --http did not say where it listens: %v", <-done)
	return ""
}

func httpSession(t *testing.T, url string) *sdk.ClientSession {
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	s, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Over stateless HTTP with a shared --state file, a Read in one request is
// known to an Edit in another, from another client (another replica would
// do the same).
func TestServeStatelessHTTP(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.txt")
	os.WriteFile(f, []byte("alpha\n"), 0o644)
	state := filepath.Join(t.TempDir(), "state.json")
	url := serveHTTP(t, "--stateless", "--cwd", dir, "--state", state, "--mode", "accept_edits")
	if text, isErr := callTool(t, httpSession(t, url), "Read", map[string]any{"file_path": f}); isErr {
		t.Fatalf("Read: %q", text)
	}
	if text, isErr := callTool(t, httpSession(t, url), "Edit", map[string]any{"file_path": f, "old_string": "alpha", "new_string": "beta"}); isErr {
		t.Fatalf("Edit in another request: %q", text)
	}
	if b, _ := os.ReadFile(f); string(b) != "beta\n" {
		t.Errorf("file: %q", b)
	}
	var st struct {
		Slots map[string]json.RawMessage `json:"slots"`
	}
	if b, err := os.ReadFile(state); err != nil || json.Unmarshal(b, &st) != nil || st.Slots["builtin.read_files"] == nil {
		t.Errorf("state file: %v %s", err, st.Slots["builtin.read_files"])
	}
}

// Stateful HTTP: the tools and a read-only call.
func TestServeHTTP(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644)
	s := httpSession(t, serveHTTP(t, "--cwd", dir))
	if text, isErr := callTool(t, s, "Glob", map[string]any{"pattern": "*.go"}); isErr || !strings.Contains(text, "a.go") {
		t.Errorf("Glob: error=%v %q", isErr, text)
	}
}

// The elicitation shows the input whole and escaped: padding cannot push
// "; touch PWNED" out of sight, an ESC or CR in it cannot redraw the
// client's display, and an input with a key twice is not asked about.
func TestServeElicitationShowsWholeInput(t *testing.T) {
	dir := t.TempDir()
	var msg atomic.Value
	msg.Store("")
	s := serveStdio(t, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			msg.Store(r.Params.Message)
			return &sdk.ElicitResult{Action: "decline"}, nil
		},
	}, "--cwd", dir)
	cmd := "echo " + strings.Repeat("a", 3000) + "\x1b[2K\r\u202e; touch PWNED"
	callTool(t, s, "Bash", map[string]any{"command": cmd})
	m := msg.Load().(string)
	if !strings.Contains(m, `\u001b[2K\r\u202e; touch PWNED`) { // JSON's escapes, then ours for U+202E

		t.Errorf("the elicitation does not show the whole command, escaped: ...%q", m[max(0, len(m)-200):])
	}
	if strings.ContainsAny(m, "\x1b\r\u202e") {
		t.Error("the elicitation carries a raw ESC, CR or bidi override")
	}
	msg.Store("")
	text, isErr := callTool(t, s, "Bash", json.RawMessage(`{"command":"ls","command":"touch PWNED"}`))
	if !isErr || !strings.Contains(text, `holds the key "command" twice`) || msg.Load() != "" {
		t.Errorf("a duplicate key: error=%v %q, asked %q", isErr, text, msg.Load())
	}
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Error("PWNED was created")
	}
}

// Stateless HTTP replicas sharing one --state file: concurrent TaskCreates,
// each in its own request to either replica, all survive with distinct ids
// (the task tools run one at a time under the state file's lock).
func TestServeStatelessReplicasTaskIDs(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(t.TempDir(), "state.json")
	urls := []string{
		serveHTTP(t, "--stateless", "--cwd", dir, "--state", state),
		serveHTTP(t, "--stateless", "--cwd", dir, "--state", state),
	}
	created := regexp.MustCompile(`Task \(id=(\d+)\) created successfully: (\S+)`)
	const n = 12
	var mu sync.Mutex
	ids := map[string]string{}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			subject := fmt.Sprintf("s%d", i)
			text, isErr := callTool(t, httpSession(t, urls[i%2]), "TaskCreate", map[string]any{"subject": subject, "description": "d"})
			m := created.FindStringSubmatch(text)
			if isErr || m == nil {
				t.Errorf("TaskCreate %d: %q", i, text)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if prev, dup := ids[m[1]]; dup {
				t.Errorf("id %s given to %s and %s", m[1], prev, subject)
			}
			ids[m[1]] = subject
		}(i)
	}
	wg.Wait()
	var file struct {
		Slots struct {
			Tasks []struct{ ID, Subject string } `json:"builtin.tasks"`
		} `json:"slots"`
	}
	b, err := os.ReadFile(state)
	if err != nil || json.Unmarshal(b, &file) != nil {
		t.Fatalf("state file: %v", err)
	}
	st := file.Slots
	if len(st.Tasks) != n {
		t.Fatalf("%d tasks in the file, want %d: %+v", len(st.Tasks), n, st.Tasks)
	}
	for _, task := range st.Tasks {
		if ids[task.ID] != task.Subject {
			t.Errorf("task %s in the file is %q, the create reported %q", task.ID, task.Subject, ids[task.ID])
		}
	}
}

// Stateful HTTP with a client of default options (go-sdk: MCP 2026-07-28
// first): the server keeps its sessions on 2025-11-25, the client falls
// back to it, and an approval is asked by elicitation and runs the call.
func TestServeHTTPDefaultClient(t *testing.T) {
	dir := t.TempDir()
	var asked atomic.Int32
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked.Add(1)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}, nil
		},
	})
	s, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: serveHTTP(t, "--cwd", dir)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v := s.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Errorf("negotiated %q", v)
	}
	f := filepath.Join(dir, "n.txt")
	if text, isErr := callTool(t, s, "Write", map[string]any{"file_path": f, "content": "x"}); isErr || asked.Load() != 1 {
		t.Errorf("Write: error=%v %q, asked %d times", isErr, text, asked.Load())
	}
	if b, _ := os.ReadFile(f); string(b) != "x" {
		t.Errorf("file: %q", b)
	}
}
