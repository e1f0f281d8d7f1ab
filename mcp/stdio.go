package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/internal/proc"
)

// stdioServer is the transport of a server the client starts: the SDK's
// newline-delimited JSON over the process's standard input and output, but
// with what a failure report needs: how the process ended, its standard
// error's tail, and whether it sent a message over the size limit (which
// ends the session rather than the client's memory).
type stdioServer struct {
	cmd       *exec.Cmd
	stderr    *tail
	max       int
	terminate time.Duration

	exited  chan struct{} // closed once the process has exited
	waitErr error         // cmd.Wait's, set before exited is closed
	// released is closed once the session's end is dealt with: for a
	// sandboxed server, what it left in the protected class moved aside
	// and the sandbox's placeholders removed (see Client.open).
	released chan struct{}

	mu       sync.Mutex
	tooLarge int // the size of the line that broke the limit, when one did
	stdin    *os.File
	stdout   *os.File
}

// Connect starts the process and returns the connection to it.
func (p *stdioServer) Connect(ctx context.Context) (sdk.Connection, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p.cmd.Stdin, p.cmd.Stdout = inR, outW
	// A process that leaves children holding its stderr open must not hold
	// up Wait for long.
	p.cmd.WaitDelay = time.Second
	err = p.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	p.stdin, p.stdout, p.exited = inW, outR, make(chan struct{})
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t := &sdk.IOTransport{
		Reader:        &lineLimit{r: outR, max: p.max, over: p.over},
		Writer:        stdinCloser{p},
		MaxLineLength: -1, // lineLimit bounds the lines, and says so
	}
	return t.Connect(ctx)
}

func (p *stdioServer) over(n int) {
	p.mu.Lock()
	p.tooLarge = n
	p.mu.Unlock()
}

// close ends the process as the MCP spec asks: close its standard input,
// wait, SIGTERM, wait, SIGKILL. The signals go to its process group, and
// once the server has exited what is left of its group is killed: a
// server started through a launcher (npx, uvx, a shell script) ends with
// the processes it started.
func (p *stdioServer) close() error {
	// Closing its output too unblocks a server stuck writing an answer
	// nobody reads (one over the limit), and the reader when a child of
	// the server holds the pipe.
	p.stdin.Close()
	p.stdout.Close()
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
		if sig != 0 {
			proc.EndGroup(p.cmd, sig)
		}
		select {
		case <-p.exited:
			proc.EndGroup(p.cmd, syscall.SIGKILL)
			return nil
		case <-time.After(p.terminate):
		}
	}
	return fmt.Errorf("the server process %d did not exit after SIGKILL", p.cmd.Process.Pid)
}

// failure says why the connection to the server failed, for the model: the
// process exited (with its status), or sent a message over the limit; with
// the tail of its standard error. It waits up to wait for the process to
// exit (its output ends before its exit is seen). "" when it knows no more
// than the error itself.
func (p *stdioServer) failure(wait time.Duration) string {
	if p == nil || p.exited == nil {
		return ""
	}
	var msg string
	p.mu.Lock()
	tooLarge := p.tooLarge
	p.mu.Unlock()
	if tooLarge > 0 {
		msg = fmt.Sprintf("it sent a message larger than the limit of %d bytes (ClientOptions.MaxMessageBytes), so the connection was closed and the server stopped", p.max)
	} else {
		select {
		case <-p.exited:
		case <-time.After(wait):
			return ""
		}
		status := "exit status 0"
		if p.waitErr != nil {
			status = p.waitErr.Error()
		}
		msg = "the server process exited (" + status + ")"
	}
	if s := strings.TrimSpace(p.stderr.String()); s != "" {
		msg += "; its standard error ended with:\n" + s
	}
	return msg
}

// stdinCloser is the writing half of the connection; closing it ends the
// process.
type stdinCloser struct{ p *stdioServer }

func (w stdinCloser) Write(b []byte) (int, error) { return w.p.stdin.Write(b) }
func (w stdinCloser) Close() error                { return w.p.close() }

// errMessageTooLarge is the read error of a message over the limit.
var errMessageTooLarge = errors.New("the MCP server sent a message larger than the client's limit (ClientOptions.MaxMessageBytes)")

// lineLimit passes on a newline-delimited stream until a line is longer
// than max bytes, then fails with errMessageTooLarge (after calling over
// with the length seen). Closing it does nothing: the stream's owner
// closes it.
type lineLimit struct {
	r    io.Reader
	max  int
	line int // bytes since the last newline
	over func(int)
}

func (l *lineLimit) Read(b []byte) (int, error) {
	if l.max > 0 && l.line > l.max {
		return 0, errMessageTooLarge
	}
	n, err := l.r.Read(b)
	if l.max <= 0 {
		return n, err
	}
	for _, c := range b[:n] {
		if c == '\n' {
			l.line = 0
		} else {
			l.line++
		}
	}
	if l.line > l.max {
		if l.over != nil {
			l.over(l.line)
		}
		return n, errMessageTooLarge
	}
	return n, err
}

func (l *lineLimit) Close() error { return nil }

// limitTransport bounds the responses of an HTTP server: a JSON body as a
// whole, an event stream line by line (one event's data is one line).
type limitTransport struct {
	max  int
	next http.RoundTripper
}

func (t limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil || t.max <= 0 {
		return resp, err
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = readCloser{&lineLimit{r: resp.Body, max: t.max}, resp.Body}
	} else {
		resp.Body = readCloser{&bodyLimit{r: resp.Body, left: int64(t.max)}, resp.Body}
	}
	return resp, nil
}

// bodyLimit fails with errMessageTooLarge past its budget.
type bodyLimit struct {
	r    io.Reader
	left int64
}

func (l *bodyLimit) Read(b []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, err := l.r.Read(one[:]); n == 0 {
			return 0, err // the body ended within the limit
		}
		return 0, errMessageTooLarge
	}
	if int64(len(b)) > l.left {
		b = b[:l.left]
	}
	n, err := l.r.Read(b)
	l.left -= int64(n)
	return n, err
}

type readCloser struct {
	io.Reader
	io.Closer
}
