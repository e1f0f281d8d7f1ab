package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/internal/jsonscan"
)

// DefaultMaxMessageBytes bounds one JSON-RPC message, received by a
// [Server] (a stdio line, an HTTP request body) or by a [Client] (a line
// of a stdio server, an HTTP response or server-sent event), when the
// options leave it at 0.
const DefaultMaxMessageBytes = 16 << 20

// frameTransport is the stdio transport of a [Server]: newline-delimited
// JSON-RPC, as the SDK's IOTransport, except that a bad frame costs the
// client one error answer, not the session. Every line is checked before
// the SDK sees it: a line that is not JSON is answered with a parse error
// (-32700); one that is JSON but not a JSON-RPC 2.0 request, notification
// or response (an array, a batch, null, {}, another version, an id that is
// neither a string nor an integer) with an invalid request error (-32600),
// carrying the request's id when it has a usable one and null otherwise;
// a line longer than the limit is read to its end without being kept and
// refused the same way. Notifications are never answered (JSON-RPC 2.0):
// a bad one is dropped.
//
// It also lets the server end the session cleanly: stopping refuses new
// calls (answering them), and drained reports when every call read so far
// has been answered.
type frameTransport struct {
	r   io.Reader
	w   io.Writer
	max int

	conn *frameConn
}

func (t *frameTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &frameConn{
		w:        t.w,
		max:      t.max,
		incoming: make(chan jsonrpc.Message),
		closed:   make(chan struct{}),
		pending:  map[jsonrpc.ID]bool{},
		idle:     make(chan struct{}),
		cancels:  map[jsonrpc.ID]context.CancelFunc{},
		jobs:     make(chan func()),
	}
	close(c.idle) // nothing pending yet
	t.conn = c
	go c.readLoop(bufio.NewReaderSize(t.r, 64<<10))
	return c, nil
}

// frameConn is the connection of a frameTransport.
type frameConn struct {
	w   io.Writer
	max int

	wmu sync.Mutex // serialises writes of whole lines

	incoming chan jsonrpc.Message
	readErr  error // set before incoming is closed
	closed   chan struct{}
	once     sync.Once

	mu       sync.Mutex
	pending  map[jsonrpc.ID]bool // calls read and not yet answered
	writing  int                 // answers being written (their calls no longer pending)
	idle     chan struct{}       // closed while pending is empty and nothing is being written
	stopping bool

	// call, once set, is offered every tools/call request read; when it
	// takes one (returns true), it runs the call and answers it itself
	// (see Server.directCall), and the SDK never sees the request.
	call atomic.Pointer[func(id jsonrpc.ID, params json.RawMessage) bool]
	// cancels holds the calls taken by call and still running, so that
	// notifications/cancelled can cancel them; direct counts them.
	cancels map[jsonrpc.ID]context.CancelFunc
	direct  sync.WaitGroup
	// idle workers wait here for the next call to run (see run).
	jobs chan func()
}

// errShuttingDown answers a call that arrives while the server stops.
const codeShuttingDown = -32000

func (c *frameConn) readLoop(br *bufio.Reader) {
	defer close(c.incoming)
	for {
		line, size, err := readLine(br, c.max)
		if size > c.max {
			id := idPrefix(line)
			c.writeError(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message too large: %d bytes, more than this server's limit of %d bytes; it was not read. Send smaller messages (a large file is better written in parts)", size, c.max))
		} else if len(bytes.TrimSpace(line)) > 0 {
			if msg := c.check(line); msg != nil {
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.readErr = err
			return
		}
	}
}

// readLine reads one line (without its newline). A line longer than max
// is read to its end but only its first max bytes are kept; size is the
// length of the whole line.
func readLine(br *bufio.Reader, max int) (line []byte, size int, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		size += len(chunk)
		if len(line) < max {
			n := min(len(chunk), max-len(line))
			line = append(line, chunk[:n]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == nil {
			size-- // the newline
			line = bytes.TrimSuffix(line, []byte("\n"))
		}
		return line, size, err
	}
}

// idPrefix finds the "id" of a request from the start of its text (the
// part of an oversized line that was kept), so that its answer can name
// the request; the zero ID (null) when there is none before the cut.
func idPrefix(b []byte) jsonrpc.ID {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return jsonrpc.ID{}
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return jsonrpc.ID{}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return jsonrpc.ID{}
		}
		if key == "id" {
			id, _ := parseID(v)
			return id
		}
	}
	return jsonrpc.ID{}
}

// parseID returns the ID of a raw JSON-RPC id: a string or an integer that
// fits in 64 bits (the SDK's IDs). ok is false for anything else.
func parseID(raw json.RawMessage) (id jsonrpc.ID, ok bool) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return jsonrpc.ID{}, false
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(s)
		return id, err == nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n > 1<<53 || n < -(1<<53) {
		// Outside the integers a float64 holds exactly, the SDK (which
		// decodes ids as float64) would answer a different id.
		return jsonrpc.ID{}, false
	}
	id, err = jsonrpc.MakeID(float64(n))
	return id, err == nil
}

// check validates one frame. It answers a bad one itself and returns nil;
// a good one is returned decoded.
func (c *frameConn) check(line []byte) jsonrpc.Message {
	if !json.Valid(line) {
		c.writeError(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: the message is not one JSON value (each line must hold one JSON-RPC message)")
		return nil
	}
	m, isObject := objectFields(line, make([]jsonField, 0, 8))
	if !isObject {
		what := "a JSON object"
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")) {
			what = "a single JSON-RPC object (batches are not supported since MCP 2025-06-18)"
		}
		c.writeError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: a message must be "+what)
		return nil
	}
	rawID, hasID := field(m, "id")
	id, idOK := jsonrpc.ID{}, false
	if hasID {
		id, idOK = parseID(rawID)
	}
	rawMethod, hasMethod := field(m, "method")
	notification := hasMethod && !hasID
	invalid := func(msg string) jsonrpc.Message {
		if !notification { // notifications get no answer, even a bad one
			c.writeError(id, jsonrpc.CodeInvalidRequest, "invalid request: "+msg)
		}
		return nil
	}
	if v, _ := field(m, "jsonrpc"); string(v) != `"2.0"` {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	if hasID && !idOK {
		id = jsonrpc.ID{}
		return invalid(`"id" must be a string or an integer`)
	}
	var method string
	var params json.RawMessage
	if hasMethod {
		var ok bool
		if method, ok = jsonscan.Unquote(rawMethod); !ok || method == "" {
			return invalid(`"method" must be a non-empty string`)
		}
		if p, ok := field(m, "params"); ok {
			if p[0] != '{' && p[0] != '[' {
				return invalid(`"params" must be an object or an array`)
			}
			params = p
		}
	} else {
		_, hasResult := field(m, "result")
		_, hasError := field(m, "error")
		if !hasID || hasResult == hasError {
			return invalid(`a message needs a "method" (a request or notification), or an "id" and one of "result" and "error" (a response)`)
		}
	}
	var msg jsonrpc.Message
	if hasMethod {
		// A request or notification, checked field by field above: it is
		// made here from those fields rather than by the SDK's
		// DecodeMessage, which would parse the line twice more, with a
		// 32 KiB buffer each time (64 KiB a call, the largest part of what
		// a small call allocated).
		msg = &jsonrpc.Request{ID: id, Method: method, Params: params}
	} else {
		var err error
		if msg, err = jsonrpc.DecodeMessage(line); err != nil {
			return invalid(err.Error())
		}
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		switch {
		case c.stopping:
			c.mu.Unlock()
			c.writeError(req.ID, codeShuttingDown, "the server is shutting down; the request was not run")
			return nil
		case c.pending[req.ID]:
			c.mu.Unlock()
			c.writeError(req.ID, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: id %v is already in use by a request in progress", req.ID.Raw()))
			return nil
		}
		if len(c.pending) == 0 && c.writing == 0 {
			c.idle = make(chan struct{})
		}
		c.pending[req.ID] = true
		c.mu.Unlock()
		if method == "tools/call" {
			if call := c.call.Load(); call != nil && (*call)(req.ID, req.Params) {
				return nil
			}
		}
	} else if method == "notifications/cancelled" {
		c.cancelDirect(req.Params)
	}
	return msg
}

// startDirect registers a call taken by the call hook, cancelled by
// cancel, before it starts.
func (c *frameConn) startDirect(id jsonrpc.ID, cancel context.CancelFunc) {
	c.direct.Add(1)
	c.mu.Lock()
	c.cancels[id] = cancel
	c.mu.Unlock()
}

// answerDirect writes the answer (a whole JSON-RPC response) of a call
// taken by the call hook.
func (c *frameConn) answerDirect(id jsonrpc.ID, line []byte) {
	c.mu.Lock()
	delete(c.cancels, id)
	c.mu.Unlock()
	c.writeAnswer(id, line)
	c.direct.Done()
}

// run runs f in a goroutine: a worker that has finished its call and
// waits for the next, or a new one when every worker is busy. A worker
// (and its stack, grown by the calls it ran) serves the session's calls
// one after another, instead of a goroutine started, and its stack grown
// again, for each; it ends with the connection.
func (c *frameConn) run(f func()) {
	select {
	case c.jobs <- f:
	default:
		go c.worker(f)
	}
}

func (c *frameConn) worker(f func()) {
	for {
		f()
		select {
		case f = <-c.jobs:
		case <-c.closed:
			return
		}
	}
}

// waitDirect waits until the calls taken by the call hook have ended, or
// until the deadline.
func (c *frameConn) waitDirect(deadline time.Time) {
	done := make(chan struct{})
	go func() { // ends with the last call
		c.direct.Wait()
		close(done)
	}()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// cancelDirect cancels the call taken by the call hook that a
// notifications/cancelled names, if there is one. The notification goes
// on to the SDK all the same, for the calls it runs.
func (c *frameConn) cancelDirect(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, ok := parseID(p.RequestID)
	if !ok {
		return
	}
	c.mu.Lock()
	cancel := c.cancels[id]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// writeError writes a JSON-RPC error response.
func (c *frameConn) writeError(id jsonrpc.ID, code int64, msg string) {
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		return
	}
	if !id.IsValid() {
		// The SDK leaves a null id out; JSON-RPC wants it there.
		b = append([]byte(`{"jsonrpc":"2.0","id":null,`), bytes.TrimPrefix(b, []byte(`{"jsonrpc":"2.0",`))...)
	}
	c.writeLine(b)
}

func (c *frameConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

func (c *frameConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case msg, ok := <-c.incoming:
		if !ok {
			if c.readErr != nil && c.readErr != io.EOF {
				return nil, c.readErr
			}
			return nil, io.EOF
		}
		return msg, nil
	}
}

func (c *frameConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if r, ok := msg.(*jsonrpc.Response); ok {
		return c.writeAnswer(r.ID, b)
	}
	return c.writeLine(b)
}

// writeAnswer writes the answer to the call id. The call stops being
// pending before its answer is written, since the client may reuse its
// id as soon as it has the answer; the server is not idle (see stop)
// until the answer is written.
func (c *frameConn) writeAnswer(id jsonrpc.ID, b []byte) error {
	c.mu.Lock()
	was := c.pending[id]
	if was {
		delete(c.pending, id)
		c.writing++
	}
	c.mu.Unlock()
	err := c.writeLine(b)
	if was {
		c.mu.Lock()
		c.writing--
		if len(c.pending) == 0 && c.writing == 0 {
			close(c.idle)
		}
		c.mu.Unlock()
	}
	return err
}

// stop refuses the calls read from now on, and returns a channel closed
// once every call read before has been answered.
func (c *frameConn) stop() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopping = true
	return c.idle
}

func (c *frameConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *frameConn) SessionID() string { return "" }
