package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveAt runs `toolscope serve --http addr args...` in this process. It
// returns the URL the server says it serves on, or, when the command ends
// before saying so, its exit status and output.
func serveAt(t *testing.T, addr string, args ...string) (u string, code int, out string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errR, errW := io.Pipe()
	done := make(chan error, 1)
	var errb bytes.Buffer
	go func() {
		err := run(ctx, append([]string{"serve", "--http", addr}, args...), strings.NewReader(""), io.Discard, errW)
		code := exitCode(err, &errb)
		errW.Close()
		done <- Exit(code, "")
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	sc := bufio.NewScanner(errR)
	var lines []string
	for sc.Scan() {
		if m := regexp.MustCompile(`serving MCP on (\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, errR)
			return m[1], 0, ""
		}
		lines = append(lines, sc.Text())
	}
	err := <-done
	done <- err
	return "", err.(*exitError).code, strings.Join(lines, "\n") + errb.String()
}

// bearer adds an Authorization header to every request of a client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// rawPost posts an initialize request to u with the given Host and
// Authorization headers ("" for none), and returns the status and the
// JSON-RPC error message of the answer, if any.
func rawPost(t *testing.T, u, host, auth string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host != "" {
		req.Host = host
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct {
		ID    json.RawMessage
		Error struct{ Message string }
	}
	b, _ := io.ReadAll(resp.Body)
	json.Unmarshal(b, &m)
	if resp.StatusCode >= 400 && string(m.ID) != "7" {
		t.Errorf("refusal %d is not a JSON-RPC error for request 7: %s", resp.StatusCode, b)
	}
	return resp.StatusCode, m.Error.Message
}

// `serve --http :PORT` listens on loopback only, and an address beyond
// loopback is refused (usage error, exit 2) unless a token is given.
func TestServeHTTPLoopbackUnlessTold(t *testing.T) {
	dir := t.TempDir()
	u, code, out := serveAt(t, ":0", "--cwd", dir)
	if u == "" {
		t.Fatalf("serve --http :0 did not start: exit %d: %s", code, out)
	}
	pu, _ := url.Parse(u)
	if ip := net.ParseIP(pu.Hostname()); ip == nil || !ip.IsLoopback() {
		t.Errorf("serve --http :0 listens on %s, want loopback", pu.Host)
	}
	t.Setenv("TOOLSCOPE_AUTH_TOKEN", "")
	for _, addr := range []string{"0.0.0.0:0"} {
		u, code, out := serveAt(t, addr, "--cwd", dir)
		if u != "" || code != 2 || !strings.Contains(out, "--auth-token") {
			t.Errorf("serve --http %s without a token: served at %q, exit %d, output %q; want exit 2 naming --auth-token", addr, u, code, out)
		}
	}
	var errb bytes.Buffer
	if code := exitCode(run(context.Background(), []string{"serve", "--auth-token", "s3cret-token-0123456789abcdef"}, strings.NewReader(""), io.Discard, &errb), &errb); code != 2 || !strings.Contains(errb.String(), "need --http") {
		t.Errorf("--auth-token without --http: exit %d %q, want 2", code, errb.String())
	}
	if u, code, out := serveAt(t, "0.0.0.0:0", "--cwd", dir, "--auth-token", "short"); u != "" || code != 2 || !strings.Contains(out, "at least") {
		t.Errorf("a 5-character token: served at %q, exit %d, output %q", u, code, out)
	}
}

// Off loopback with a token: a request without the token, or with another,
// gets 401 and a JSON-RPC error; a go-sdk client that sends it works; the
// token may come from the environment.
func TestServeHTTPAuthToken(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/a.go", []byte("package a\n"), 0o644)
	const token = "s3cret-token-0123456789abcdef"
	for _, fromEnv := range []bool{false, true} {
		args := []string{"--cwd", dir}
		if fromEnv {
			t.Setenv("TOOLSCOPE_AUTH_TOKEN", token)
		} else {
			args = append(args, "--auth-token", token)
		}
		u, code, out := serveAt(t, "0.0.0.0:0", args...)
		if u == "" {
			t.Fatalf("serve with a token (env %v) did not start: exit %d: %s", fromEnv, code, out)
		}
		// Reach it by loopback (the listener is on every address).
		pu, _ := url.Parse(u)
		pu.Host = net.JoinHostPort("127.0.0.1", pu.Port())
		u = pu.String()
		for _, auth := range []string{"", "Bearer wrong-token-0123456789abcdef", "Bearer " + token + "x", "Basic " + token, token} {
			status, msg := rawPost(t, u, "", auth)
			if status != http.StatusUnauthorized || !strings.Contains(msg, "Authorization: Bearer") {
				t.Errorf("Authorization %q: %d %q, want 401 saying what to send", auth, status, msg)
			}
		}
		c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
		s, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: u, HTTPClient: &http.Client{Transport: bearer{token}}}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("a client with the token: %v", err)
		}
		if text, isErr := callTool(t, s, "Glob", map[string]any{"pattern": "*.go"}); isErr || !strings.Contains(text, "a.go") {
			t.Errorf("Glob with the token: error=%v %q", isErr, text)
		}
		s.Close()
	}
}

// The Host header is checked on every listener (DNS rebinding): a name
// that is not loopback, not the bound name and not allowed is refused
// (403, a JSON-RPC error) even with the right token; the IP address the
// request arrived on, loopback names and --allow-host names pass.
func TestServeHTTPHostCheck(t *testing.T) {
	dir := t.TempDir()
	const token = "s3cret-token-0123456789abcdef"
	u, code, out := serveAt(t, "0.0.0.0:0", "--cwd", dir, "--auth-token", token, "--allow-host", "mcp.internal.example")
	if u == "" {
		t.Fatalf("serve did not start: exit %d: %s", code, out)
	}
	pu, _ := url.Parse(u)
	port := pu.Port()
	u = "http://" + net.JoinHostPort("127.0.0.1", port) + "/mcp"
	for host, want := range map[string]int{
		"attacker.example:" + port:     http.StatusForbidden,
		"attacker.example":             http.StatusForbidden,
		"localhost.attacker.example":   http.StatusForbidden,
		"127.0.0.1:" + port:            http.StatusOK,
		"localhost:" + port:            http.StatusOK,
		"[::1]:" + port:                http.StatusOK,
		"MCP.Internal.Example:" + port: http.StatusOK,
	} {
		status, msg := rawPost(t, u, host, "Bearer "+token)
		if status != want {
			t.Errorf("Host %q: %d %q, want %d", host, status, msg, want)
		}
		if want == http.StatusForbidden && !strings.Contains(msg, "--allow-host") {
			t.Errorf("Host %q: the refusal does not say what to do: %q", host, msg)
		}
	}
	// Reached by an address of this machine other than loopback (where
	// the go-sdk's own check, for loopback connections, does not look).
	if ip := outsideIP(); ip != "" {
		ou := "http://" + net.JoinHostPort(ip, port) + "/mcp"
		if status, msg := rawPost(t, ou, "attacker.example:"+port, "Bearer "+token); status != http.StatusForbidden {
			t.Errorf("via %s, Host attacker.example: %d %q, want 403", ip, status, msg)
		}
		if status, msg := rawPost(t, ou, "", "Bearer "+token); status != http.StatusOK {
			t.Errorf("via %s by address: %d %q, want 200", ip, status, msg)
		}
	} else {
		t.Log("no address beyond loopback here: the check through one is not run")
	}
	// A loopback listener is guarded the same way, token or not.
	lu, _, _ := serveAt(t, "127.0.0.1:0", "--cwd", dir)
	if status, _ := rawPost(t, lu, "attacker.example", ""); status != http.StatusForbidden {
		t.Errorf("loopback listener, Host attacker.example: %d, want 403", status)
	}
}

// outsideIP is an IPv4 address of this machine other than loopback, or "".
func outsideIP() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	return ""
}
