package mcp_test

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// TestServedBackgroundShell: through a served Toolkit, a background shell
// started by one call lives in the session's state, so later calls of the
// same session read it (BashOutput) and stop it (KillShell). The Server
// does not close a session's state yet when the session ends (see
// tool.State.Close): the test closes the states it made.
func TestServedBackgroundShell(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	served, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: dir, Background: true})})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var states []*tool.State
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, st := range states {
			st.Close()
		}
	})
	newState := func() *tool.State {
		st := tool.NewState(&permission.Context{Mode: permission.Bypass})
		mu.Lock()
		states = append(states, st)
		mu.Unlock()
		return st
	}
	ctx, cancelServe := context.WithCancel(context.Background())
	reqR, reqW := io.Pipe()
	respR, respW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- mcp.NewServer(served, &mcp.ServerOptions{NewState: newState}).Serve(ctx, reqR, respW) }()
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
	st := tool.NewState(&permission.Context{Mode: permission.Bypass})
	r := call(t, tk, st, "mcp__s__Bash", `{"command":"echo hello; sleep 1000","run_in_background":true}`)
	if r.Status != tool.StatusSuccess || !strings.Contains(r.Text(), "Command running in background with ID: bash_1") {
		t.Fatalf("Bash: %s %q", r.Status, r.Text())
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		r = call(t, tk, st, "mcp__s__BashOutput", `{"bash_id":"bash_1"}`)
		if r.Status != tool.StatusSuccess {
			t.Fatalf("BashOutput: %s %q", r.Status, r.Text())
		}
		if strings.Contains(r.Text(), "hello") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no output: %q", r.Text())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(r.Text(), "<status>running</status>") {
		t.Errorf("BashOutput: %q", r.Text())
	}
	r = call(t, tk, st, "mcp__s__BashOutput", `{"bash_id":"bash_7"}`)
	if r.Status != tool.StatusError || !strings.Contains(r.Text(), "This agent's shells: bash_1 (running: echo hello; sleep 1000)") {
		t.Errorf("unknown id: %s %q", r.Status, r.Text())
	}
	r = call(t, tk, st, "mcp__s__KillShell", `{"shell_id":"bash_1"}`)
	if r.Status != tool.StatusSuccess || !strings.Contains(r.Text(), "Successfully killed shell: bash_1") {
		t.Errorf("KillShell: %s %q", r.Status, r.Text())
	}
	r = call(t, tk, st, "mcp__s__BashOutput", `{"bash_id":"bash_1"}`)
	if !strings.Contains(r.Text(), "<status>killed</status>") {
		t.Errorf("after KillShell: %q", r.Text())
	}
}
