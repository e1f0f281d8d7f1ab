package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// requestHeader names, on a POST the [HTTPHandler] passes on, a token for
// that request, by which a call finds the request that carries it (to be
// cancelled when the client goes away). Whatever a client sends in it is
// replaced.
const requestHeader = "X-Toolscope-Request"

// HTTPHandler serves a [Server]'s tools over streamable HTTP (see
// [Server.Handler]). Besides what the SDK's handler does, it
//
//   - cancels a call when the client goes away: the POST that carries it
//     ends (a dropped connection), or the client ends its session (DELETE);
//   - refuses a new session beyond ServerOptions.MaxSessions, with a 403
//     and a JSON-RPC error that says why and what to do (sessions idle for
//     ServerOptions.SessionIdle are ended, which frees their places); 403,
//     not 503, because clients (the go-sdk's) show the error of a 4xx but
//     retry a 503 in silence;
//   - stops cleanly ([HTTPHandler.Shutdown]): new requests are refused, the
//     calls in progress are cancelled and answered as interrupted, then the
//     sessions are closed.
type HTTPHandler struct {
	s         *Server
	h         *sdk.StreamableHTTPHandler
	stateless bool

	mu          sync.Mutex
	opening     int // requests that may open a session, in progress
	active      int // POSTs in progress
	stopped     bool
	interrupted int
	stopCause   error
}

// Handler serves clients over streamable HTTP. A stateless handler keeps no
// session: any replica behind a load balancer can answer any request (see
// ServerOptions.State for the agent state), and approvals cannot be asked
// (elicitation needs a session), so calls that need one are refused.
//
// When ctx ends, the handler stops as [HTTPHandler.Shutdown] says, without
// waiting; call Shutdown to wait for the calls' answers.
func (s *Server) Handler(ctx context.Context, stateless bool) (*HTTPHandler, error) {
	if err := s.sync(ctx, nil); err != nil {
		return nil, err
	}
	h := &HTTPHandler{s: s, stateless: stateless}
	h.h = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, &sdk.StreamableHTTPOptions{
		Stateless:           stateless,
		Logger:              s.opts.Logger,
		SessionTimeout:      s.opts.SessionIdle,
		MaxRequestBodyBytes: int64(s.opts.MaxMessageBytes),
	})
	context.AfterFunc(ctx, func() { h.stop(context.Cause(ctx)) })
	return h, nil
}

// ServeHTTP implements [http.Handler].
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	h.mu.Lock()
	if h.stopped {
		h.mu.Unlock()
		refuse(w, r, http.StatusServiceUnavailable, errStopping{h.stopCause}.Error()+"; the request was not run")
		return
	}
	switch r.Method {
	case http.MethodDelete:
		h.mu.Unlock()
		if sid != "" && !h.stateless {
			h.s.interrupt(func(c *runningCall) bool { return c.http && c.session != nil && c.session.ID() == sid }, errSessionClosed)
		}
		h.h.ServeHTTP(w, r)
		return
	case http.MethodPost:
	default:
		h.mu.Unlock()
		h.h.ServeHTTP(w, r)
		return
	}
	opening := sid == "" && !h.stateless
	if opening && h.s.opts.MaxSessions > 0 {
		n := 0
		for range h.s.sdk.Sessions() {
			n++
		}
		if n+h.opening >= h.s.opts.MaxSessions {
			h.mu.Unlock()
			idle := "never"
			if h.s.opts.SessionIdle > 0 {
				idle = "after " + h.s.opts.SessionIdle.String()
			}
			refuse(w, r, http.StatusForbidden, fmt.Sprintf(
				"too many sessions: this server keeps at most %d open at once and has no room for a new one. "+
					"End the sessions you no longer use (HTTP DELETE with their Mcp-Session-Id) or retry later; idle sessions end %s",
				h.s.opts.MaxSessions, idle))
			return
		}
	}
	if opening {
		h.opening++
	}
	h.active++
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		if opening {
			h.opening--
		}
		h.active--
		h.mu.Unlock()
	}()
	tok := rand.Text()
	r.Header.Set(requestHeader, tok)
	h.s.reqs.Store(tok, r.Context())
	defer h.s.reqs.Delete(tok)
	h.h.ServeHTTP(w, r)
}

// refuse answers a request with status and a JSON-RPC error, with the id
// of the request (found in the start of its body) so that clients match
// it to the request and show it (null when there is none).
func refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	id := jsonrpc.ID{}
	if r.Body != nil {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		id = idPrefix(b)
	}
	raw, _ := json.Marshal(id.Raw())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`+"\n", raw, codeShuttingDown, "toolscope: "+msg)
}

// stop refuses new requests and cancels the calls in progress, once.
func (h *HTTPHandler) stop(cause error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return
	}
	h.stopped, h.stopCause = true, cause
	h.interrupted = h.s.interrupt(func(c *runningCall) bool { return c.http }, errStopping{cause})
}

// Shutdown stops the handler: requests are refused from now on (503), the
// calls in progress are cancelled (a Bash command's processes are killed)
// and answered as interrupted, and once their answers are sent, or ctx
// ends, the sessions are closed (which ends their event streams, so that
// an http.Server's Shutdown can return). It returns an
// [*InterruptedError] that counts the interrupted calls, or ctx's error.
func (h *HTTPHandler) Shutdown(ctx context.Context) error {
	h.stop(nil)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		h.mu.Lock()
		active := h.active
		h.mu.Unlock()
		if active == 0 || ctx.Err() != nil {
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	}
	var closing sync.WaitGroup
	for ss := range h.s.sdk.Sessions() {
		closing.Go(func() { ss.Close() })
	}
	closed := make(chan struct{})
	go func() { closing.Wait(); close(closed) }()
	select {
	case <-closed:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return &InterruptedError{Calls: h.interrupted, Cause: h.stopCause}
}
