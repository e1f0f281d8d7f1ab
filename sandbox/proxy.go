package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolscope/toolscope/internal/netaddr"
)

// The proxy's bounds.
const (
	proxyMaxConns    = 64               // client connections at once; more wait for one to end
	proxyMaxHeader   = 64 << 10         // bytes of a request's line and headers
	proxyHeaderWait  = 30 * time.Second // to read a request's line and headers
	proxyDialTimeout = 30 * time.Second // to connect to the destination, all its addresses
	proxyIdle        = 5 * time.Minute  // a tunnel or connection with no byte either way is closed
)

// lookupFunc resolves a host name to its addresses.
type lookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

func defaultLookup(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// proxy is the allow-list's proxy: an HTTP proxy (CONNECT for any TCP,
// absolute-URI requests for plain HTTP) that serves the connections of a
// listener in the command's network namespace and connects, from this
// process's network, only to the hosts the lists allow. It resolves names
// itself, refuses addresses that are not public unless the name was
// listed exactly, and connects to the address it checked.
type proxy struct {
	allow, deny domainList
	lookup      lookupFunc
	idle        time.Duration
	nonPublic   func(netip.Addr) string // netaddr.NonPublic; tests change it

	ctx    context.Context
	cancel context.CancelFunc
	sem    chan struct{}
	wg     sync.WaitGroup

	mu      sync.Mutex
	ln      net.Listener
	conns   map[net.Conn]struct{}
	closed  bool
	refused []string // hosts refused, in order, each once (at most 100)
}

func newProxy(allow, deny domainList, lookup lookupFunc) *proxy {
	if lookup == nil {
		lookup = defaultLookup
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &proxy{allow: allow, deny: deny, lookup: lookup, idle: proxyIdle, nonPublic: netaddr.NonPublic, ctx: ctx, cancel: cancel,
		sem: make(chan struct{}, proxyMaxConns), conns: map[net.Conn]struct{}{}}
}

// serve accepts on ln until close; it returns at once.
func (p *proxy) serve(ln net.Listener) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		ln.Close()
		return
	}
	p.ln = ln
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		for {
			select {
			case p.sem <- struct{}{}:
			case <-p.ctx.Done():
				return
			}
			c, err := ln.Accept()
			if err != nil {
				<-p.sem
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					continue
				}
				return // closed
			}
			if !p.track(c) {
				<-p.sem
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				defer func() { <-p.sem }()
				defer p.untrack(c)
				p.handle(c)
			}()
		}
	}()
}

func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) untrack(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// close stops the proxy: the listener and every connection close, and it
// returns when no goroutine of the proxy is left.
func (p *proxy) close() {
	p.mu.Lock()
	p.closed = true
	if p.ln != nil {
		p.ln.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.cancel()
	p.wg.Wait()
}

// Refused returns the hosts the proxy refused.
func (p *proxy) refusedHosts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.refused...)
}

func (p *proxy) noteRefused(host string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.refused {
		if h == host {
			return
		}
	}
	if len(p.refused) < 100 {
		p.refused = append(p.refused, host)
	}
}

// limitedReader reads at most n bytes more before it reports an error,
// until reset: it bounds a request's header.
type limitedReader struct {
	r io.Reader
	n int
}

// idleReader reads c with a deadline: until, when set, else the idle
// time from each read (so a body that moves is not cut off).
type idleReader struct {
	c     net.Conn
	idle  time.Duration
	until time.Time
}

func (d *idleReader) Read(b []byte) (int, error) {
	if d.until.IsZero() {
		d.c.SetReadDeadline(time.Now().Add(d.idle))
	} else {
		d.c.SetReadDeadline(d.until)
	}
	return d.c.Read(b)
}

var errHeaderTooLarge = errors.New("request header too large")

func (l *limitedReader) Read(b []byte) (int, error) {
	if l.n <= 0 {
		return 0, errHeaderTooLarge
	}
	if len(b) > l.n {
		b = b[:l.n]
	}
	n, err := l.r.Read(b)
	l.n -= n
	return n, err
}

// handle serves one client connection: CONNECT requests become tunnels;
// absolute-URI requests are forwarded one at a time.
func (p *proxy) handle(c net.Conn) {
	ir := &idleReader{c: c, idle: p.idle}
	lr := &limitedReader{r: ir}
	br := bufio.NewReaderSize(lr, 4096)
	for {
		lr.n = proxyMaxHeader
		ir.until = time.Now().Add(proxyHeaderWait)
		req, err := http.ReadRequest(br)
		if err != nil {
			if errors.Is(err, errHeaderTooLarge) {
				p.reply(c, http.StatusRequestHeaderFieldsTooLarge, "The request's header is larger than the sandbox's proxy reads.\n")
			} else if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !isTimeout(err) {
				p.reply(c, http.StatusBadRequest, "The sandbox's proxy could not read the request: "+err.Error()+"\n")
			}
			return
		}
		ir.until = time.Time{}
		lr.n = 1 << 62 // the body and the tunnel: unbounded
		if req.Method == http.MethodConnect {
			p.connect(c, br, req)
			return
		}
		if !p.forward(c, req) {
			return
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// reply writes a short response that closes the connection.
func (p *proxy) reply(c net.Conn, code int, body string) {
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, http.StatusText(code), len(body), body)
}

// refusal is why a destination is refused: the status and the text.
type refusal struct {
	code int
	msg  string
}

// dial checks hostport against the lists, resolves it and connects to a
// checked address.
func (p *proxy) dial(ctx context.Context, hostport, defaultPort string) (net.Conn, *refusal) {
	hostRaw, portRaw, err := net.SplitHostPort(hostport)
	if err != nil {
		if defaultPort == "" {
			return nil, &refusal{http.StatusBadRequest, fmt.Sprintf("The sandbox's proxy needs a host and a port, not %q.\n", hostport)}
		}
		hostRaw, portRaw = hostport, defaultPort
	}
	n, err := strconv.ParseUint(portRaw, 10, 16)
	if err != nil || n == 0 {
		return nil, &refusal{http.StatusBadRequest, fmt.Sprintf("The sandbox's proxy: invalid port %q.\n", portRaw)}
	}
	port := uint16(n)
	host, ip, err := normalizeHost(hostRaw)
	if err != nil {
		return nil, &refusal{http.StatusBadRequest, "The sandbox's proxy: " + err.Error() + ".\n"}
	}
	shown := net.JoinHostPort(host, portRaw)
	if _, denied := p.deny.match(host, ip.IsValid(), port); denied {
		p.noteRefused(shown)
		return nil, &refusal{http.StatusForbidden, fmt.Sprintf("The sandbox refused %s: it is in sandbox.network.deniedDomains.\n", shown)}
	}
	pat, ok := p.allow.match(host, ip.IsValid(), port)
	if !ok {
		p.noteRefused(shown)
		return nil, &refusal{http.StatusForbidden, fmt.Sprintf("The sandbox refused %s: the command may reach only the hosts in sandbox.network.allowedDomains (%s). To allow it, add %q to sandbox.network.allowedDomains in the settings (the user's, not the project's, when the project is not trusted).\n",
			shown, strings.Join(p.allow.strings(), ", "), host)}
	}
	exact := !pat.wildcard // listed by its own name or address
	var addrs []netip.Addr
	if ip.IsValid() {
		addrs = []netip.Addr{ip}
	} else {
		lctx, cancel := context.WithTimeout(ctx, proxyDialTimeout)
		addrs, err = p.lookup(lctx, host)
		cancel()
		if err != nil || len(addrs) == 0 {
			return nil, &refusal{http.StatusBadGateway, fmt.Sprintf("The sandbox's proxy could not resolve %s: %v.\n", host, err)}
		}
	}
	var why string
	dctx, cancel := context.WithTimeout(ctx, proxyDialTimeout)
	defer cancel()
	var d net.Dialer
	for _, a := range addrs {
		a = a.Unmap()
		if r := p.nonPublic(a); r == "unspecified" || r == "multicast" || r == "invalid" {
			why = fmt.Sprintf("%s is %s: no host to connect to", a, r)
			continue
		} else if r != "" && !exact {
			why = fmt.Sprintf("%s resolves to %s, a %s address, which a wildcard does not allow: list %q itself in sandbox.network.allowedDomains", host, a, r, host)
			continue
		}
		conn, err := d.DialContext(dctx, "tcp", netip.AddrPortFrom(a, port).String())
		if err == nil {
			return conn, nil
		}
		why = err.Error()
		if dctx.Err() != nil {
			break
		}
	}
	if strings.Contains(why, "allowedDomains") {
		p.noteRefused(shown)
		return nil, &refusal{http.StatusForbidden, "The sandbox refused " + shown + ": " + why + ".\n"}
	}
	return nil, &refusal{http.StatusBadGateway, fmt.Sprintf("The sandbox's proxy could not connect to %s: %s.\n", shown, why)}
}

// connect serves a CONNECT request: a tunnel to the destination.
func (p *proxy) connect(c net.Conn, br *bufio.Reader, req *http.Request) {
	up, ref := p.dial(p.ctx, req.RequestURI, "")
	if ref != nil {
		p.reply(c, ref.code, ref.msg)
		return
	}
	if !p.track(up) {
		return
	}
	defer p.untrack(up)
	c.SetWriteDeadline(time.Now().Add(proxyHeaderWait))
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	c.SetWriteDeadline(time.Time{})
	// What the client sent after its request (a TLS hello) goes first.
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		if _, err := up.Write(b); err != nil {
			return
		}
		br.Discard(n)
	}
	p.pipe(c, up)
}

// pipe copies both ways until either side ends or nothing moves for the
// idle time.
func (p *proxy) pipe(a, b net.Conn) {
	var last atomic.Int64
	last.Store(time.Now().UnixNano())
	// copyHalf copies until src ends; clean is true when it ended with
	// end of file, passed on to dst (the other way may go on).
	copyHalf := func(dst, src net.Conn) (clean bool) {
		buf := make([]byte, 32<<10)
		for {
			src.SetReadDeadline(time.Now().Add(p.idle))
			n, err := src.Read(buf)
			if n > 0 {
				last.Store(time.Now().UnixNano())
				dst.SetWriteDeadline(time.Now().Add(p.idle))
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return false
				}
			}
			if err != nil {
				if isTimeout(err) && time.Since(time.Unix(0, last.Load())) < p.idle {
					continue // the other way is busy
				}
				if cw, ok := dst.(interface{ CloseWrite() error }); ok && errors.Is(err, io.EOF) {
					return cw.CloseWrite() == nil
				}
				return false
			}
		}
	}
	done := make(chan bool, 1)
	go func() { done <- copyHalf(b, a) }()
	first := make(chan bool, 1)
	go func() { first <- copyHalf(a, b) }()
	// When one way ends cleanly the other goes on (a client that has sent
	// its request and waits for the answer); an error or the proxy's end
	// closes both.
	select {
	case clean := <-first:
		if !clean {
			a.Close()
			b.Close()
		}
		<-done
	case clean := <-done:
		if !clean {
			a.Close()
			b.Close()
		}
		<-first
	}
	a.Close()
	b.Close()
}

// hopHeaders are the headers of one connection, not forwarded.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// forward serves an absolute-URI request (plain HTTP through the proxy)
// on a connection of its own to the destination; it reports whether the
// client's connection may carry another request.
func (p *proxy) forward(c net.Conn, req *http.Request) bool {
	if req.URL == nil || req.URL.Scheme != "http" || req.URL.Host == "" {
		p.reply(c, http.StatusBadRequest, "This is the sandbox's proxy: it takes CONNECT host:port, or a request for an absolute http:// URL.\n")
		return false
	}
	up, ref := p.dial(p.ctx, req.URL.Host, "80")
	if ref != nil {
		// The body is not read: the connection closes.
		p.reply(c, ref.code, ref.msg)
		return false
	}
	if !p.track(up) {
		return false
	}
	defer p.untrack(up)
	for _, h := range req.Header.Values("Connection") {
		for _, f := range strings.Split(h, ",") {
			req.Header.Del(strings.TrimSpace(f))
		}
	}
	for _, h := range hopHeaders {
		req.Header.Del(h)
	}
	keep := !req.Close
	req.Close = true // one request per connection to the destination
	req.RequestURI = ""
	// An idle deadline on each side; the body of a request or response
	// moving resets none, so a transfer is bounded by the idle time per
	// read, checked below by the deadlines set before each step.
	up.SetDeadline(time.Now().Add(p.idle))
	if err := req.Write(&deadlineWriter{up, p.idle}); err != nil {
		p.reply(c, http.StatusBadGateway, "The sandbox's proxy could not send the request: "+err.Error()+"\n")
		return false
	}
	resp, err := http.ReadResponse(bufio.NewReader(&deadlineReader{up, p.idle}), req)
	if err != nil {
		p.reply(c, http.StatusBadGateway, "The sandbox's proxy could not read the response: "+err.Error()+"\n")
		return false
	}
	defer resp.Body.Close()
	for _, h := range hopHeaders[:len(hopHeaders)-2] { // Transfer-Encoding and Upgrade are framing
		resp.Header.Del(h)
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		keep = false
	}
	resp.Close = !keep
	if err := resp.Write(&deadlineWriter{c, p.idle}); err != nil {
		return false
	}
	return keep && !resp.Close
}

// deadlineReader and deadlineWriter extend the connection's deadline
// before each read or write: a transfer that moves is not cut off, an
// idle one is.
type deadlineReader struct {
	c    net.Conn
	idle time.Duration
}

func (d *deadlineReader) Read(b []byte) (int, error) {
	d.c.SetReadDeadline(time.Now().Add(d.idle))
	return d.c.Read(b)
}

type deadlineWriter struct {
	c    net.Conn
	idle time.Duration
}

func (d *deadlineWriter) Write(b []byte) (int, error) {
	d.c.SetWriteDeadline(time.Now().Add(d.idle))
	return d.c.Write(b)
}
