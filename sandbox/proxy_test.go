package sandbox

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"
)

// testLookup resolves every name ending in .test to 127.0.0.1, the way a
// DNS server would; others fail.
func testLookup(_ context.Context, host string) ([]netip.Addr, error) {
	if strings.HasSuffix(host, ".test") || host == "localhost" {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

// startProxy serves a proxy for allow and deny on a loopback listener of
// this process; the cleanup closes it and checks no goroutine is left.
func startProxy(t *testing.T, allow, deny []string, setup func(*proxy)) (*proxy, string) {
	t.Helper()
	before := runtime.NumGoroutine()
	al, err := parseDomainList("allowedDomains", allow)
	if err != nil {
		t.Fatal(err)
	}
	dl, err := parseDomainList("deniedDomains", deny)
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(al, dl, testLookup)
	if setup != nil {
		setup(p)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.serve(ln)
	t.Cleanup(func() {
		p.close()
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		waitGoroutines(t, before)
	})
	return p, ln.Addr().String()
}

// waitGoroutines fails unless the goroutines come back to n (the
// clients' own take a moment to end).
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if runtime.NumGoroutine() <= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	t.Errorf("goroutines: %d before, %d after\n%s", n, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
}

// client is an HTTP client that goes through the proxy and trusts srv.
func client(t *testing.T, proxyAddr string, srv *httptest.Server) *http.Client {
	pu, _ := url.Parse("http://" + proxyAddr)
	tr := &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}
	if srv != nil && srv.TLS != nil {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestProxyAllowsOnlyTheList(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "plain %s %s", r.Host, r.Header.Get("Proxy-Authorization"))
	}))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "secure")
	}))
	defer secure.Close()
	_, pport, _ := net.SplitHostPort(plain.Listener.Addr().String())
	_, sport, _ := net.SplitHostPort(secure.Listener.Addr().String())

	_, addr := startProxy(t, []string{"Allowed.TEST", "*.wild.test", "127.0.0.1:" + sport}, []string{"no.wild.test"}, nil)
	c := client(t, addr, secure)
	cases := []struct {
		url  string
		code int
		body string
	}{
		{"http://allowed.test:" + pport + "/", 200, "plain allowed.test:" + pport},
		{"http://ALLOWED.test.:" + pport + "/", 200, "plain"},
		{"https://allowed.test:" + sport + "/", 200, "secure"},
		{"https://127.0.0.1:" + sport + "/", 200, "secure"},
		// Listed for another port only.
		{"http://127.0.0.1:" + pport + "/", 403, "127.0.0.1:" + pport},
		{"http://other.test:" + pport + "/", 403, `add "other.test" to sandbox.network.allowedDomains`},
		// The bare domain of a wildcard is not in it.
		{"http://wild.test:" + pport + "/", 403, "sandbox.network.allowedDomains"},
		// A subdomain is, but a wildcard reaches no loopback address.
		{"http://a.wild.test:" + pport + "/", 403, "a loopback address, which a wildcard does not allow"},
		{"http://no.wild.test:" + pport + "/", 403, "deniedDomains"},
		{"http://localhost:" + pport + "/", 403, "allowedDomains"},
		{"http://2130706433:" + pport + "/", 400, "dotted decimal"},
	}
	for _, tc := range cases {
		code, body := get(t, c, tc.url)
		if tc.code == 403 && strings.HasPrefix(tc.url, "https") {
			// A refused CONNECT: the client reports the status only.
			if !strings.Contains(body, "Forbidden") {
				t.Errorf("%s: %d %q, want a refused CONNECT", tc.url, code, body)
			}
			continue
		}
		if code != tc.code || !strings.Contains(body, tc.body) {
			t.Errorf("%s: %d %q, want %d with %q", tc.url, code, body, tc.code, tc.body)
		}
	}
	for _, u := range []string{"https://other.test:" + sport + "/", "https://wild.test:" + sport + "/"} {
		if _, err := c.Get(u); err == nil || !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("%s: %v, want a refused CONNECT (403)", u, err)
		}
	}
}

func TestProxyWildcard(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	// As though the names resolved to public addresses: what a wildcard
	// may reach.
	_, addr := startProxy(t, []string{"*.wild.test"}, nil, func(p *proxy) { p.nonPublic = func(netip.Addr) string { return "" } })
	c := client(t, addr, nil)
	for u, want := range map[string]int{
		"http://a.wild.test:" + port:         200,
		"http://a.b.WILD.test.:" + port:      200,
		"http://wild.test:" + port:           403,
		"http://xwild.test:" + port:          403,
		"http://wild.test.evil.test:" + port: 403,
	} {
		if code, body := get(t, c, u); code != want {
			t.Errorf("%s: %d %q, want %d", u, code, body, want)
		}
	}
}

// rawProxy sends raw to the proxy and returns the first line of the
// answer and the rest.
func rawProxy(t *testing.T, addr, raw string) (string, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	go io.WriteString(c, raw)
	b, _ := io.ReadAll(bufio.NewReader(c))
	line, rest, _ := strings.Cut(string(b), "\r\n")
	return line, rest
}

func TestProxyBadRequests(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	_, addr := startProxy(t, []string{"allowed.test"}, nil, nil)
	cases := map[string]string{
		"GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n":                                                             "400",
		"CONNECT allowed.test HTTP/1.1\r\nHost: allowed.test\r\n\r\n":                                              "400",
		"CONNECT other.test:" + port + " HTTP/1.1\r\n\r\n":                                                         "403",
		"CONNECT [::1]:" + port + " HTTP/1.1\r\n\r\n":                                                              "403",
		"GET https://allowed.test:" + port + "/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n":                            "400",
		"GET http://allowed.test:" + port + "/ HTTP/1.1\r\nX: " + strings.Repeat("a", proxyMaxHeader) + "\r\n\r\n": "431",
		"nonsense\r\n\r\n": "400",
	}
	for raw, want := range cases {
		line, rest := rawProxy(t, addr, raw)
		if !strings.Contains(line, " "+want+" ") {
			t.Errorf("%.60q: %q %q, want %s", raw, line, rest, want)
		}
	}
	// A tunnel carries what follows the request at once.
	line, rest := rawProxy(t, addr, "CONNECT allowed.test:"+port+" HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	if !strings.Contains(line, " 200 ") || !strings.HasSuffix(rest, "ok") {
		t.Errorf("tunnel: %q %q", line, rest)
	}
}

// A client that holds a tunnel open keeps no goroutine of the proxy
// after close, and the idle time ends a tunnel with no traffic.
func TestProxyCloseEndsTunnels(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	p, addr := startProxy(t, []string{"allowed.test"}, nil, func(p *proxy) { p.idle = 200 * time.Millisecond })
	_, port, _ := net.SplitHostPort(echo.Addr().String())
	var conns []net.Conn
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "CONNECT allowed.test:%s HTTP/1.1\r\n\r\nping", port)
		br := bufio.NewReader(c)
		c.SetDeadline(time.Now().Add(30 * time.Second))
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%v %v", resp, err)
		}
		b := make([]byte, 4)
		if _, err := io.ReadFull(br, b); err != nil || string(b) != "ping" {
			t.Fatalf("echo: %q %v", b, err)
		}
		conns = append(conns, c)
	}
	// Idle: the proxy closes the first tunnel by itself.
	conns[0].SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := conns[0].Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("idle tunnel: %v, want EOF", err)
	}
	p.close() // the others: the cleanup checks the goroutines
}

func TestProxyBoundsConnections(t *testing.T) {
	_, addr := startProxy(t, []string{"allowed.test"}, nil, nil)
	// More clients than the bound that send nothing: each holds a slot
	// for the header time at most; the proxy does not start more
	// handlers than the bound.
	var conns []net.Conn
	for i := 0; i < proxyMaxConns+10; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	time.Sleep(100 * time.Millisecond)
	if n := runtime.NumGoroutine(); n > proxyMaxConns+50 {
		t.Errorf("%d goroutines for %d idle clients", n, len(conns))
	}
}
