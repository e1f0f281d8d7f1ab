//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// A sandboxed curl reaches the allowed hosts through the proxy, over
// plain HTTP and over a CONNECT tunnel (HTTPS), and nothing else: a host
// not listed gets 403, a wildcard's bare domain is not in it, and a
// connection that bypasses the proxy has no route. After the command,
// neither the proxy nor its listener is left.
func TestNetworkAllowList(t *testing.T) {
	needCurl(t)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "plain-ok") }))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secure-ok") }))
	defer secure.Close()
	_, pport, _ := net.SplitHostPort(plain.Listener.Addr().String())
	_, sport, _ := net.SplitHostPort(secure.Listener.Addr().String())

	s, err := New(&Config{AllowedDomains: []string{"allowed.test", "*.wild.test"}})
	if err != nil {
		t.Fatal(err)
	}
	s.lookup = testLookup
	st, err := s.Status(t.Context())
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	need(t, st, NetworkProxy)
	if st.Has(Network) || !st.Confines() || strings.Join(st.AllowedDomains, " ") != "allowed.test *.wild.test" {
		t.Errorf("status: %s; allowed %v; confines %v", st, st.AllowedDomains, st.Confines())
	}
	goroutines, fds := runtime.NumGoroutine(), openFDs(t)

	script := fmt.Sprintf(`
echo "sockets $(ls -l /proc/self/fd/ | grep -c socket)"
echo "env $HTTPS_PROXY $http_proxy $ALL_PROXY no=$NO_PROXY"
one() { "$@" 2>&1 | tr '\n' ' '; echo; }
echo "plain $(one curl -sS http://allowed.test:%[1]s/)"
echo "secure $(one curl -sSk https://allowed.test:%[2]s/)"
echo "other $(one curl -sS -w ' %%{http_code}' http://other.test:%[1]s/)"
echo "connect-other $(one curl -sSk https://other.test:%[2]s/)"
echo "bare $(one curl -sS -w ' %%{http_code}' http://wild.test:%[1]s/)"
echo "sub $(one curl -sS -w ' %%{http_code}' http://a.wild.test:%[1]s/)"
echo "direct $(curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:%[1]s/ 2>&1 | tr '\n' ' '; echo " rc=${PIPESTATUS[0]}")"
echo "tcp $( (exec 3<>/dev/tcp/127.0.0.1/%[1]s && echo open) 2>&1 | tr '\n' ' ')"
`, pport, sport)
	out, err, _ := run(t, s, t.TempDir(), script, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(l, " ")
		lines[k] = v
	}
	check := func(key string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(lines[key], w) {
				t.Errorf("%s: %q, want %q", key, lines[key], w)
			}
		}
	}
	check("sockets", "0") // the listener is the proxy's only
	check("env", "http://127.0.0.1:", "no=localhost,127.0.0.1,::1")
	if f := strings.Fields(lines["env"]); len(f) < 3 || f[0] != f[1] || f[1] != f[2] {
		t.Errorf("proxy variables differ: %q", lines["env"])
	}
	check("plain", "plain-ok")
	check("secure", "secure-ok")
	check("other", "403", `add "other.test" to sandbox.network.allowedDomains`)
	check("connect-other", "403")
	check("bare", "403", "allowedDomains")
	check("sub", "403", "a wildcard does not allow")
	check("direct", "rc=7")
	if strings.Contains(lines["direct"], "plain-ok") || strings.Contains(lines["tcp"], "open") {
		t.Errorf("a connection around the proxy reached the host: %q %q", lines["direct"], lines["tcp"])
	}
	// run closed the Run: the proxy's goroutines and descriptors are gone.
	waitGoroutines(t, goroutines)
	if n := openFDs(t); n > fds {
		t.Errorf("descriptors: %d before the command, %d after", fds, n)
	}
}

// A caller that never calls Report (an MCP server's client) gets the
// proxy too: it starts at Wrap, and waits for the listener on its own.
func TestNetworkAllowListWithoutReport(t *testing.T) {
	needCurl(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "reached") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	s, err := New(&Config{AllowedDomains: []string{"allowed.test"}})
	if err != nil {
		t.Fatal(err)
	}
	s.lookup = testLookup
	st, err := s.Status(t.Context())
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	need(t, st, NetworkProxy)
	goroutines := runtime.NumGoroutine()
	r, err := s.NewRun([]string{t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("curl", "-sS", "http://allowed.test:"+port+"/")
	if err := r.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "reached" {
		t.Errorf("%v: %s", err, out)
	}
	r.Close()
	waitGoroutines(t, goroutines)
}

// Where network namespaces are not available, an allow-list cannot be
// enforced: the network is off, and the status says so.
func TestNetworkAllowListFallback(t *testing.T) {
	lv := levelNone
	forceLevel = &lv
	defer func() { forceLevel = nil }()
	s, st := newSandbox(t, &Config{AllowedDomains: []string{"allowed.test"}})
	if st.Has(NetworkProxy) || st.Confines() {
		t.Fatalf("status: %s", st)
	}
	found := false
	for _, m := range st.Missing {
		found = found || m.Name == NetworkProxy && strings.Contains(m.Why, "the network is off instead")
	}
	if !found {
		t.Errorf("%s not reported missing: %s", NetworkProxy, st)
	}
	need(t, st, NetworkTCP)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "reached") }))
	defer srv.Close()
	out, _, _ := run(t, s, t.TempDir(), "echo ${HTTP_PROXY:-none}; exec 3<>/dev/tcp/"+strings.Replace(srv.Listener.Addr().String(), ":", "/", 1)+" && echo open", nil)
	if strings.Contains(out, "open") || !strings.HasPrefix(out, "none") {
		t.Errorf("the network is not off: %s", out)
	}
	// Required refuses instead.
	r, err := New(&Config{AllowedDomains: []string{"allowed.test"}, Required: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err, _ := run(t, r, t.TempDir(), "true", nil); err == nil || !strings.Contains(err.Error(), "required") {
		t.Errorf("required: %v", err)
	}
}

func TestNewRefusesBadDomains(t *testing.T) {
	for _, cfg := range []Config{
		{AllowedDomains: []string{"*"}},
		{AllowedDomains: []string{"*.com"}},
		{AllowedDomains: []string{"https://example.com/"}},
		{AllowedDomains: []string{"example.com"}, Network: "on"},
		{DeniedDomains: []string{"a*b.com"}},
		{Network: "[\"example.com\"]"},
	} {
		if _, err := New(&cfg); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

// needCurl skips a test that runs curl in the sandbox where curl is
// absent, except in CI (.ci/run installs it), where that fails.
func needCurl(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is not installed; .ci/run installs it for the sandbox's proxy tests")
		}
		t.Skip("no curl (apt-get install curl): the proxy tests run it in the sandbox")
	}
}
