package cli

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bashSleep is the arguments of a Bash call that runs until it is
// stopped: a sleep in the call's process group and one that left it.
func bashSleep(arg string) string {
	return fmt.Sprintf(`{"name":"Bash","arguments":{"command":"setsid -f sleep %s >/dev/null 2>&1; sleep %s"}}`, arg, arg)
}

// A signal to a stdio server during a Bash call: the call is answered as
// interrupted, its processes are gone, and the server exits non-zero,
// within bounds (today it waited for the call's own timeout).
func TestServeStdioSignalInterruptsCall(t *testing.T) {
	bin := buildCLI(t)
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		arg := fmt.Sprintf("1005.%d", i+1)
		p := startServe(t, bin, t.TempDir(), "--mode", "bypass")
		p.initialize(t)
		p.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":`+bashSleep(arg)+`}`)
		if !waitProcs(arg, 2, 10*time.Second) {
			t.Fatalf("%v: the command did not start (stderr: %s)", sig, p.stderr.String())
		}
		start := time.Now()
		p.cmd.Process.Signal(sig)
		for {
			r := p.recv(t, 15*time.Second)
			if string(r["id"]) == "7" {
				text, isErr := toolText(t, r)
				if !isErr || !strings.Contains(text, "interrupted") || !strings.Contains(text, "shutting down") {
					t.Errorf("%v: answer to the call: error=%v %q", sig, isErr, text)
				}
				break
			}
		}
		if code := p.wait(t, 15*time.Second); code == 0 {
			t.Errorf("%v: serve exited 0 after a signal interrupted a call", sig)
		}
		t.Logf("%v: answered and exited %v after the signal", sig, time.Since(start))
		if !strings.Contains(p.stderr.String(), "1 call in progress was cancelled") {
			t.Errorf("%v: stderr does not say what was interrupted: %s", sig, p.stderr.String())
		}
		noneLeft(t, arg, 5*time.Second)
	}
}

// A signal to an HTTP server during a Bash call: the call is answered as
// interrupted, its processes are gone, and the server exits non-zero,
// within bounds (today it exited 0 at once, leaving the command running).
func TestServeHTTPSignalInterruptsCall(t *testing.T) {
	bin := buildCLI(t)
	arg := "1006.1"
	p := startServe(t, bin, t.TempDir(), "--http", "127.0.0.1:0", "--mode", "bypass")
	c := &mcpHTTP{url: p.listening(t)}
	c.initialize(t)
	type answer struct {
		text  string
		isErr bool
		err   error
	}
	got := make(chan answer, 1)
	go func() {
		_, m, err := c.post(context.Background(), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":`+bashSleep(arg)+`}`)
		if err != nil || m == nil {
			got <- answer{err: fmt.Errorf("no answer: %v", err)}
			return
		}
		text, isErr := toolText(t, m)
		got <- answer{text: text, isErr: isErr}
	}()
	if !waitProcs(arg, 2, 10*time.Second) {
		t.Fatalf("the command did not start (stderr: %s)", p.stderr.String())
	}
	start := time.Now()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case a := <-got:
		if a.err != nil || !a.isErr || !strings.Contains(a.text, "interrupted") {
			t.Errorf("answer to the call: %v error=%v %q", a.err, a.isErr, a.text)
		}
	case <-time.After(15 * time.Second):
		t.Error("the call got no answer")
	}
	if code := p.wait(t, 15*time.Second); code == 0 {
		t.Error("serve --http exited 0 after a signal interrupted a call")
	}
	t.Logf("answered and exited %v after SIGTERM", time.Since(start))
	noneLeft(t, arg, 5*time.Second)
}

// An HTTP client that goes away mid-call (its connection drops, or it
// ends its session with DELETE) has the call cancelled: its processes are
// gone within seconds, not at the call's timeout, and the server serves on.
func TestServeHTTPClientGoneCancelsCall(t *testing.T) {
	bin := buildCLI(t)
	p := startServe(t, bin, t.TempDir(), "--http", "127.0.0.1:0", "--mode", "bypass")
	url := p.listening(t)
	for i, how := range []string{"disconnect", "DELETE"} {
		arg := fmt.Sprintf("1007.%d", i+1)
		c := &mcpHTTP{url: url}
		c.initialize(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.post(ctx, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":`+bashSleep(arg)+`}`)
		}()
		if !waitProcs(arg, 2, 10*time.Second) {
			t.Fatalf("%s: the command did not start (stderr: %s)", how, p.stderr.String())
		}
		if how == "DELETE" {
			if code := c.delete(t); code != http.StatusNoContent {
				t.Errorf("DELETE: %d", code)
			}
		} else {
			cancel()
		}
		noneLeft(t, arg, 10*time.Second)
		cancel()
		<-done
	}
	c := &mcpHTTP{url: url}
	c.initialize(t)
	if _, m, err := c.post(context.Background(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); err != nil || m["result"] == nil {
		t.Errorf("tools/list after the clients left: %v %s", err, m["error"])
	}
}

// A stdio client that closes the server's standard input mid-call has the
// call cancelled: the server exits (0: its client left) without leaving
// the command running.
func TestServeStdioClientGoneCancelsCall(t *testing.T) {
	arg := "1008.1"
	p := startServe(t, buildCLI(t), t.TempDir(), "--mode", "bypass")
	p.initialize(t)
	p.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":`+bashSleep(arg)+`}`)
	if !waitProcs(arg, 2, 10*time.Second) {
		t.Fatalf("the command did not start (stderr: %s)", p.stderr.String())
	}
	p.stdin.Close()
	if code := p.wait(t, 15*time.Second); code != 0 {
		t.Errorf("serve exited %d when its client left (stderr: %s)", code, p.stderr.String())
	}
	noneLeft(t, arg, 5*time.Second)
}
