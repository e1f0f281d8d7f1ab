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

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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
	idle     chan struct{}       // closed while pending is empty
	stopping bool
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
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil || m == nil {
		what := "a JSON object"
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")) {
			what = "a single JSON-RPC object (batches are not supported since MCP 2025-06-18)"
		}
		c.writeError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: a message must be "+what)
		return nil
	}
	rawID, hasID := m["id"]
	id, idOK := jsonrpc.ID{}, false
	if hasID {
		id, idOK = parseID(rawID)
	}
	_, hasMethod := m["method"]
	notification := hasMethod && !hasID
	invalid := func(msg string) jsonrpc.Message {
		if !notification { // notifications get no answer, even a bad one
			c.writeError(id, jsonrpc.CodeInvalidRequest, "invalid request: "+msg)
		}
		return nil
	}
	if v := m["jsonrpc"]; string(bytes.TrimSpace(v)) != `"2.0"` {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	if hasID && !idOK {
		id = jsonrpc.ID{}
		return invalid(`"id" must be a string or an integer`)
	}
	var method string
	if hasMethod {
		if json.Unmarshal(m["method"], &method) != nil || method == "" {
			return invalid(`"method" must be a non-empty string`)
		}
		if p, ok := m["params"]; ok {
			if p = bytes.TrimSpace(p); len(p) == 0 || p[0] != '{' && p[0] != '[' {
				return invalid(`"params" must be an object or an array`)
			}
		}
	} else {
		_, hasResult := m["result"]
		_, hasError := m["error"]
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
		msg = &jsonrpc.Request{ID: id, Method: method, Params: m["params"]}
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
		if len(c.pending) == 0 {
			c.idle = make(chan struct{})
		}
		c.pending[req.ID] = true
		c.mu.Unlock()
	}
	return msg
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
	err = c.writeLine(b)
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		if c.pending[r.ID] {
			delete(c.pending, r.ID)
			if len(c.pending) == 0 {
				close(c.idle)
			}
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
