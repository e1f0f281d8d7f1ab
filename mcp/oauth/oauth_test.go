package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/internal/oauthtest"
	"github.com/toolscope/toolscope/mcp/oauth"
)

// login logs in to rs with a fresh store directory and returns the config.
func login(t *testing.T, rs *oauthtest.Resource, cfg *oauth.Config) *oauth.Config {
	t.Helper()
	if cfg == nil {
		cfg = &oauth.Config{}
	}
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(t.TempDir(), "tokens")
	}
	if cfg.OpenURL == nil {
		cfg.OpenURL = oauthtest.Browser(nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := oauth.Login(ctx, rs.URL, cfg); err != nil {
		t.Fatalf("Login: %v", err)
	}
	return cfg
}

// callHello connects to the server through an oauth.Transport with cfg and
// calls its tool.
func callHello(t *testing.T, serverURL string, cfg *oauth.Config) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hc := &http.Client{Transport: oauth.NewTransport(serverURL, nil, cfg)}
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: serverURL, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "hello"})
	if err != nil {
		return err
	}
	if got := res.Content[0].(*sdk.TextContent).Text; got != "hello from the protected server" {
		t.Errorf("tool said %q", got)
	}
	return nil
}

func params(as *oauthtest.AS, endpoint string) []url.Values {
	var out []url.Values
	for _, r := range as.Requests() {
		if r.Endpoint == endpoint {
			out = append(out, r.Params)
		}
	}
	return out
}

func TestLoginWithChallenge(t *testing.T) {
	as := oauthtest.NewAS(t, nil)
	rs := oauthtest.NewResource(t, as, nil)
	cfg := login(t, rs, nil)

	reg := params(as, "register")
	if len(reg) != 1 || reg[0].Get("application_type") != "native" || reg[0].Get("token_endpoint_auth_method") != "none" {
		t.Errorf("registration requests: %v", reg)
	}
	auth := params(as, "authorize")
	if len(auth) != 1 {
		t.Fatalf("authorization requests: %v", auth)
	}
	a := auth[0]
	if a.Get("resource") != rs.URL || a.Get("code_challenge_method") != "S256" || len(a.Get("code_challenge")) != 43 || a.Get("state") == "" {
		t.Errorf("authorization request: %v", a)
	}
	if !strings.HasPrefix(a.Get("redirect_uri"), "http://127.0.0.1:") || !strings.HasSuffix(a.Get("redirect_uri"), "/callback") {
		t.Errorf("redirect_uri %q", a.Get("redirect_uri"))
	}
	tok := params(as, "token")
	if len(tok) != 1 || tok[0].Get("resource") != rs.URL || tok[0].Get("code_verifier") == "" {
		t.Errorf("token requests: %v", tok)
	}

	// The token is private to the user.
	dirs, _ := filepath.Glob(filepath.Join(cfg.Dir, "*"))
	if len(dirs) != 1 {
		t.Fatalf("store: %v", dirs)
	}
	for _, p := range []string{cfg.Dir, dirs[0]} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, %v", p, fi.Mode(), err)
		}
	}
	fi, err := os.Stat(filepath.Join(dirs[0], "token.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v, %v", fi, err)
	}

	// A second client, with no login of its own, uses the stored token.
	if err := callHello(t, rs.URL, &oauth.Config{Dir: cfg.Dir}); err != nil {
		t.Fatal(err)
	}
	st, err := oauth.Lookup(rs.URL, &oauth.Config{Dir: cfg.Dir})
	if err != nil || !st.LoggedIn || !st.Refreshable || st.Issuer != as.URL {
		t.Errorf("Lookup: %+v, %v", st, err)
	}
	if err := oauth.Logout(rs.URL, &oauth.Config{Dir: cfg.Dir}); err != nil {
		t.Fatal(err)
	}
	if err := callHello(t, rs.URL, &oauth.Config{Dir: cfg.Dir}); !errors.Is(err, oauth.ErrLoginRequired) {
		t.Errorf("after Logout: %v", err)
	}
}

func TestLoginWellKnownFallback(t *testing.T) {
	as := oauthtest.NewAS(t, &oauthtest.Options{IssuerPath: "/tenant", OpenIDOnly: true})
	rs := oauthtest.NewResource(t, as, &oauthtest.ResourceOptions{NoChallengeURL: true, ScopesSupported: []string{"read", "write"}})
	cfg := login(t, rs, nil)
	if a := params(as, "authorize"); len(a) != 1 || a[0].Get("scope") != "read write" {
		t.Errorf("authorization requests: %v", a)
	}
	if err := callHello(t, rs.URL, cfg); err != nil {
		t.Fatal(err)
	}
}

func TestScopeFromChallenge(t *testing.T) {
	as := oauthtest.NewAS(t, nil)
	rs := oauthtest.NewResource(t, as, &oauthtest.ResourceOptions{Scopes: []string{"tools"}, ScopesSupported: []string{"tools", "admin"}})
	login(t, rs, nil)
	if a := params(as, "authorize"); len(a) != 1 || a[0].Get("scope") != "tools" {
		t.Errorf("authorization requests: %v", a)
	}
}

func TestStepUp(t *testing.T) {
	as := oauthtest.NewAS(t, nil)
	rs := oauthtest.NewResource(t, as, &oauthtest.ResourceOptions{Scopes: []string{"write"}})
	cfg := login(t, rs, &oauth.Config{Scopes: []string{"read"}})
	err := callHello(t, rs.URL, &oauth.Config{Dir: cfg.Dir, LoginHint: "log in again"})
	if !errors.Is(err, oauth.ErrLoginRequired) || !strings.Contains(err.Error(), "more scope") || !strings.Contains(err.Error(), "write") {
		t.Fatalf("with too little scope: %v", err)
	}
	// The next login asks for what was granted and what was missing.
	login(t, rs, &oauth.Config{Dir: cfg.Dir})
	a := params(as, "authorize")
	if got := a[len(a)-1].Get("scope"); got != "write read" {
		t.Errorf("step-up scope %q", got)
	}
	if err := callHello(t, rs.URL, &oauth.Config{Dir: cfg.Dir}); err != nil {
		t.Fatal(err)
	}
}

func TestStateMismatchRefused(t *testing.T) {
	as := oauthtest.NewAS(t, nil)
	rs := oauthtest.NewResource(t, as, nil)
	dir := t.TempDir()
	err := oauth.Login(context.Background(), rs.URL, &oauth.Config{Dir: dir, OpenURL: oauthtest.Browser(func(u *url.URL) {
		q := u.Query()
		q.Set("state", "forged")
		u.RawQuery = q.Encode()
	})})
	if err == nil || !strings.Contains(err.Error(), "state") {
		t.Fatalf("Login with a forged state: %v", err)
	}
	if len(params(as, "token")) != 0 {
		t.Error("the code of a forged answer was exchanged")
	}
	if st, _ := oauth.Lookup(rs.URL, &oauth.Config{Dir: dir}); st.LoggedIn {
		t.Error("a token was stored")
	}
}

func TestNoS256Refused(t *testing.T) {
	as := oauthtest.NewAS(t, &oauthtest.Options{NoS256: true})
	rs := oauthtest.NewResource(t, as, nil)
	err := oauth.Login(context.Background(), rs.URL, &oauth.Config{Dir: t.TempDir(), OpenURL: oauthtest.Browser(nil)})
	if err == nil || !strings.Contains(err.Error(), "S256") {
		t.Fatalf("Login: %v", err)
	}
	if len(as.Requests()) != 0 {
		t.Errorf("requests made to an authorization server without S256: %v", as.Requests())
	}
}

func TestNoRegistrationNeedsClientID(t *testing.T) {
	as := oauthtest.NewAS(t, &oauthtest.Options{NoRegistration: true, Clients: map[string]string{"preset": "http://127.0.0.1:0/callback"}})
	rs := oauthtest.NewResource(t, as, nil)
	err := oauth.Login(context.Background(), rs.URL, &oauth.Config{Dir: t.TempDir(), OpenURL: oauthtest.Browser(nil)})
	if err == nil || !strings.Contains(err.Error(), "clientId") {
		t.Fatalf("Login: %v", err)
	}
}

func TestPreregisteredClient(t *testing.T) {
	port := freePort(t)
	as := oauthtest.NewAS(t, &oauthtest.Options{NoRegistration: true, Clients: map[string]string{"preset": fmt.Sprintf("http://127.0.0.1:%d/callback", port)}})
	rs := oauthtest.NewResource(t, as, nil)
	cfg := login(t, rs, &oauth.Config{ClientID: "preset", CallbackPort: port})
	if a := params(as, "authorize"); a[0].Get("client_id") != "preset" {
		t.Errorf("client_id %q", a[0].Get("client_id"))
	}
	if err := callHello(t, rs.URL, cfg); err != nil {
		t.Fatal(err)
	}
}

func freePort(t *testing.T) int {
	srv := httptest.NewServer(nil)
	u, _ := url.Parse(srv.URL)
	srv.Close()
	var p int
	fmt.Sscan(u.Port(), &p)
	return p
}

func TestResourceOfAnotherOriginRefused(t *testing.T) {
	as := oauthtest.NewAS(t, nil)
	rs := oauthtest.NewResource(t, as, &oauthtest.ResourceOptions{MetadataResource: "https://elsewhere.example/mcp"})
	err := oauth.Login(context.Background(), rs.URL, &oauth.Config{Dir: t.TempDir(), OpenURL: oauthtest.Browser(nil)})
	if err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Fatalf("Login: %v", err)
	}
	if len(as.Requests()) != 0 {
		t.Errorf("the authorization server was asked: %v", as.Requests())
	}
}

func TestNotLoggedIn(t *testing.T) {
	as := oauthtest.NewAS(t, nil)
	rs := oauthtest.NewResource(t, as, nil)
	err := callHello(t, rs.URL, &oauth.Config{Dir: t.TempDir(), LoginHint: `run "toolscope mcp login remote"`})
	var le *oauth.LoginRequiredError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a LoginRequiredError", err)
	}
	want := fmt.Sprintf(`MCP server %s needs authorization: it asks for a token and none is stored (not logged in); run "toolscope mcp login remote"`, rs.URL)
	if le.Error() != want {
		t.Errorf("error:\n%s\nwant\n%s", le.Error(), want)
	}
}

func TestRefreshBeforeExpiry(t *testing.T) {
	as := oauthtest.NewAS(t, &oauthtest.Options{TTL: 10 * time.Second}) // within the refresh margin
	rs := oauthtest.NewResource(t, as, nil)
	cfg := login(t, rs, nil)
	if err := callHello(t, rs.URL, cfg); err != nil {
		t.Fatal(err)
	}
	if as.Refreshes() == 0 {
		t.Error("a token about to expire was not refreshed")
	}
	for _, h := range rs.Seen() {
		if h != "" && !strings.HasPrefix(h, "Bearer at-") {
			t.Errorf("Authorization %q", h)
		}
	}
}

func TestRefreshAfterRefusal(t *testing.T) {
	as := oauthtest.NewAS(t, nil)
	rs := oauthtest.NewResource(t, as, nil)
	cfg := login(t, rs, nil)
	as.Expire() // the server refuses the stored token, which the client thinks valid
	if err := callHello(t, rs.URL, cfg); err != nil {
		t.Fatal(err)
	}
	if as.Refreshes() != 1 {
		t.Errorf("%d refreshes", as.Refreshes())
	}
	if p := params(as, "token"); p[len(p)-1].Get("resource") != rs.URL {
		t.Errorf("refresh without the resource: %v", p[len(p)-1])
	}
}

func TestRefreshFailureAsksToLogIn(t *testing.T) {
	as := oauthtest.NewAS(t, nil)
	rs := oauthtest.NewResource(t, as, nil)
	cfg := login(t, rs, nil)
	as.Expire()
	as.FailRefreshes()
	err := callHello(t, rs.URL, &oauth.Config{Dir: cfg.Dir, LoginHint: `run "toolscope mcp login remote"`})
	if !errors.Is(err, oauth.ErrLoginRequired) || !strings.Contains(err.Error(), "refreshing the token failed") || !strings.Contains(err.Error(), "invalid_grant") || !strings.Contains(err.Error(), "toolscope mcp login remote") {
		t.Fatalf("got %v", err)
	}
}

// TestConcurrentRefresh: transports of one store (as several toolscope
// processes would have) find the token expired at once; one refreshes,
// the others use its token, and the rotated refresh token is spent once.
func TestConcurrentRefresh(t *testing.T) {
	as := oauthtest.NewAS(t, nil)
	rs := oauthtest.NewResource(t, as, nil)
	cfg := login(t, rs, nil)
	as.Expire()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, rs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := (&http.Client{Transport: oauth.NewTransport(rs.URL, nil, &oauth.Config{Dir: cfg.Dir})}).Do(req)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					err = errors.New(resp.Status)
				}
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if as.Refreshes() != 1 {
		t.Errorf("%d refreshes, want 1", as.Refreshes())
	}
	checkStore(t, cfg.Dir)
}

// checkStore checks that the store holds one whole token file and no
// temporary files.
func checkStore(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	if len(files) != 1 || filepath.Base(files[0]) != "token.json" {
		t.Fatalf("store files: %v", files)
	}
	b, _ := os.ReadFile(files[0])
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m["access_token"] == nil {
		t.Errorf("token file: %v\n%s", err, b)
	}
}

// TestConcurrentRefreshProcesses is TestConcurrentRefresh with processes:
// the test binary, run again as TestRefreshProcess.
func TestConcurrentRefreshProcesses(t *testing.T) {
	as := oauthtest.NewAS(t, nil)
	rs := oauthtest.NewResource(t, as, nil)
	cfg := login(t, rs, nil)
	as.Expire()
	var cmds []*exec.Cmd
	for range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRefreshProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "OAUTH_TEST_SERVER="+rs.URL, "OAUTH_TEST_DIR="+cfg.Dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process: %v", err)
		}
	}
	if as.Refreshes() != 1 {
		t.Errorf("%d refreshes, want 1", as.Refreshes())
	}
	checkStore(t, cfg.Dir)
}

func TestRefreshProcess(t *testing.T) {
	server := os.Getenv("OAUTH_TEST_SERVER")
	if server == "" {
		t.Skip("run by TestConcurrentRefreshProcesses")
	}
	if err := callHello(t, server, &oauth.Config{Dir: os.Getenv("OAUTH_TEST_DIR")}); err != nil {
		t.Fatal(err)
	}
}

// TestTokenStaysWithServer: a request to another origin, directly or by a
// redirect of the server's, goes without the token.
func TestTokenStaysWithServer(t *testing.T) {
	as := oauthtest.NewAS(t, nil)
	rs := oauthtest.NewResource(t, as, nil)
	cfg := login(t, rs, nil)
	var mu sync.Mutex
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization"))
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer other.Close()
	// The same host on another port is another origin.
	redirector := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/stolen", http.StatusTemporaryRedirect)
	})
	mine := httptest.NewServer(redirector)
	defer mine.Close()

	hc := &http.Client{Transport: oauth.NewTransport(rs.URL, nil, cfg)}
	for _, u := range []string{other.URL + "/direct", mine.URL + "/mcp"} {
		resp, err := hc.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	// And a server whose own origin redirects elsewhere: the redirected
	// request goes without the token.
	rsURL, _ := url.Parse(rs.URL)
	redirecting := oauth.NewTransport(rs.URL, roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Host == rsURL.Host {
			if r.Header.Get("Authorization") == "" {
				t.Error("the server's own request went without the token")
			}
			return &http.Response{StatusCode: http.StatusTemporaryRedirect, Header: http.Header{"Location": {other.URL + "/via-redirect"}}, Body: http.NoBody, Request: r}, nil
		}
		return http.DefaultTransport.RoundTrip(r)
	}), cfg)
	resp, err := (&http.Client{Transport: redirecting}).Get(rs.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) != 3 {
		t.Fatalf("other origin saw %d requests, want 3", len(leaked))
	}
	for _, h := range leaked {
		if h != "" {
			t.Errorf("the token went to another origin: %q", h[:min(len(h), 12)])
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
