package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
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
//   - refuses (403) a request whose Host header names neither a loopback
//     name or address, nor the IP address the request arrived on, nor one
//     of ServerOptions.AllowedHosts, on every listener (the SDK checks
//     loopback listeners only): a browser led to this server by a name
//     that an attacker's DNS resolves to its address (DNS rebinding) sends
//     that name;
//   - with ServerOptions.AuthToken, refuses (401, with a JSON-RPC error) a
//     request that does not carry "Authorization: Bearer TOKEN";
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
	token     [sha256.Size]byte // of ServerOptions.AuthToken, when it is set
	hosts     map[string]bool   // ServerOptions.AllowedHosts, normalised

	mu          sync.Mutex
	opening     int // requests that may open a session, in progress
	active      int // POSTs in progress
	stopped     bool
	interrupted int
	stopCause   error
}

// Handler serves clients over streamable HTTP. A stateless handler keeps no
// session: any replica behind a load balancer can answer any request (see
// ServerOptions.State for the agent state). A client of a revision before
// MCP 2026-07-28 cannot be asked for approval there (elicitation then
// needs a session), so its calls that need one are refused; a 2026-07-28
// client is asked by an input_required result, and its answer counts when
// the retry reaches this same Server (the key that seals the answer is
// the process's own).
//
// When ctx ends, the handler stops as [HTTPHandler.Shutdown] says, without
// waiting; call Shutdown to wait for the calls' answers.
func (s *Server) Handler(ctx context.Context, stateless bool) (*HTTPHandler, error) {
	if err := s.sync(ctx, nil); err != nil {
		return nil, err
	}
	h := &HTTPHandler{s: s, stateless: stateless, hosts: map[string]bool{}}
	if s.opts.AuthToken != "" {
		h.token = sha256.Sum256([]byte(strings.TrimSpace(s.opts.AuthToken)))
	}
	for _, name := range s.opts.AllowedHosts {
		h.hosts[hostName(name)] = true
	}
	h.h = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, &sdk.StreamableHTTPOptions{
		// hostAllowed does the SDK's check (loopback listeners), on
		// every listener, and knows AllowedHosts.
		DisableLocalhostProtection: true,
		Stateless:                  stateless,
		Logger:                     s.opts.Logger,
		SessionTimeout:             s.opts.SessionIdle,
		MaxRequestBodyBytes:        int64(s.opts.MaxMessageBytes),
	})
	context.AfterFunc(ctx, func() { h.stop(context.Cause(ctx)) })
	return h, nil
}

// ServeHTTP implements [http.Handler].
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.hostAllowed(r) {
		refuse(w, r, http.StatusForbidden, fmt.Sprintf(
			"the Host header %q names neither this machine's loopback nor an address or name this server answers to "+
				"(a guard against DNS rebinding); connect by IP address, or start the server with that name allowed (toolscope serve --allow-host NAME)", r.Host))
		return
	}
	if h.s.opts.AuthToken != "" && !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="toolscope"`)
		refuse(w, r, http.StatusUnauthorized,
			"unauthorized: this server needs the header \"Authorization: Bearer TOKEN\" with the token it was started with (--auth-token or TOOLSCOPE_AUTH_TOKEN)")
		return
	}
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
	var opened sync.Once
	counted := func() {
		h.mu.Lock()
		h.opening--
		h.mu.Unlock()
	}
	if opening {
		// The session is among the SDK's before its answer starts: from
		// then on it is counted there, not as opening. (Counted twice
		// until this request's end, a client's next session, asked for
		// as soon as it had its answer, was refused.)
		w = &firstWrite{ResponseWriter: w, once: &opened, f: counted}
	}
	defer func() {
		h.mu.Lock()
		h.active--
		h.mu.Unlock()
		if opening {
			opened.Do(counted)
		}
	}()
	tok := rand.Text()
	r.Header.Set(requestHeader, tok)
	h.s.reqs.Store(tok, r.Context())
	defer h.s.reqs.Delete(tok)
	h.h.ServeHTTP(w, r)
}

// hostAllowed reports whether r's Host header names a loopback name or
// address, the IP address r arrived on, or one of the allowed hosts.
func (h *HTTPHandler) hostAllowed(r *http.Request) bool {
	name := hostName(r.Host)
	if name == "" {
		return false
	}
	if name == "localhost" || h.hosts[name] {
		return true
	}
	ip, err := netip.ParseAddr(name)
	if err != nil {
		return false
	}
	if ip.Unmap().IsLoopback() {
		return true
	}
	// The address this connection reached: a wildcard listener (0.0.0.0)
	// answers to every address of the machine, and a name that resolves
	// to one of them is what rebinding would send, not the address.
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && la != nil {
		if ap, err := netip.ParseAddrPort(la.String()); err == nil && ap.Addr().WithZone("").Unmap() == ip.WithZone("").Unmap() {
			return true
		}
	}
	return false
}

// hostName is the host of a Host header or a --http address, without
// port, brackets, zone or a trailing dot, in lower case.
func hostName(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	return strings.ToLower(host)
}

// authorized reports whether r carries the bearer token, comparing hashes
// in constant time (so that neither the token's bytes nor its length can
// be learnt from the time an answer takes).
func (h *HTTPHandler) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(got[:], h.token[:]) == 1
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

// firstWrite calls f once, when the handler first writes its answer (the
// header, a body, or a flush).
type firstWrite struct {
	http.ResponseWriter
	once *sync.Once
	f    func()
}

func (w *firstWrite) WriteHeader(code int) {
	w.once.Do(w.f)
	w.ResponseWriter.WriteHeader(code)
}

func (w *firstWrite) Write(b []byte) (int, error) {
	w.once.Do(w.f)
	return w.ResponseWriter.Write(b)
}

func (w *firstWrite) Flush() {
	w.once.Do(w.f)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *firstWrite) Unwrap() http.ResponseWriter { return w.ResponseWriter }
