// Package oauthtest runs, for tests, an OAuth authorization server and an
// MCP server protected by it, both real HTTP servers on 127.0.0.1, and a
// "browser" that follows an authorization URL back to the client's
// callback.
//
// The authorization server checks what a real one checks: the client and
// its redirect URI, the PKCE code verifier against the challenge (S256),
// the state round trip, single-use codes, the resource of the code at the
// token endpoint, and it rotates refresh tokens (an old one is refused).
// It records the parameters of every authorization and token request.
package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure an [AS].
type Options struct {
	// NoS256 advertises PKCE with "plain" only.
	NoS256 bool
	// NoRegistration offers no dynamic client registration.
	NoRegistration bool
	// TTL is the access tokens' lifetime; 0 means an hour.
	TTL time.Duration
	// IssuerPath is the path of the issuer ("/tenant"): the metadata is
	// then at the well-known URI with the path inserted.
	IssuerPath string
	// OpenIDOnly serves the metadata as OpenID Connect Discovery only.
	OpenIDOnly bool
	// Clients are pre-registered clients: id -> redirect URI.
	Clients map[string]string
	// ScopesSupported are advertised in the metadata.
	ScopesSupported []string
}

// Request is one authorization or token request the server received.
type Request struct {
	Endpoint string // "authorize", "token" or "register"
	Params   url.Values
}

// AS is an authorization server.
type AS struct {
	URL  string // the issuer
	opts Options
	srv  *httptest.Server

	mu        sync.Mutex
	clients   map[string]*client
	codes     map[string]*grant
	access    map[string]*grant
	refresh   map[string]*grant
	requests  []Request
	refreshes int
	failNext  bool
}

type client struct {
	redirects []string
	secret    string
}

type grant struct {
	client, redirect, challenge, resource, scope string
	expiry                                       time.Time
}

// NewAS starts an authorization server, closed at the end of the test.
func NewAS(t testing.TB, opts *Options) *AS {
	a := &AS{clients: map[string]*client{}, codes: map[string]*grant{}, access: map[string]*grant{}, refresh: map[string]*grant{}}
	if opts != nil {
		a.opts = *opts
	}
	if a.opts.TTL == 0 {
		a.opts.TTL = time.Hour
	}
	for id, r := range a.opts.Clients {
		a.clients[id] = &client{redirects: []string{r}}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/", a.metadata)
	if a.opts.IssuerPath != "" {
		mux.HandleFunc("GET "+a.opts.IssuerPath+"/.well-known/", a.metadata)
	}
	mux.HandleFunc("GET /authorize", a.authorize)
	mux.HandleFunc("POST /token", a.token)
	if !a.opts.NoRegistration {
		mux.HandleFunc("POST /register", a.register)
	}
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	a.URL = a.srv.URL + a.opts.IssuerPath
	return a
}

// Requests returns the requests received so far.
func (a *AS) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.requests)
}

// Refreshes is the number of refresh token grants made.
func (a *AS) Refreshes() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.refreshes
}

// FailRefreshes makes every refresh token grant fail with invalid_grant
// (the refresh token was revoked).
func (a *AS) FailRefreshes() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.failNext = true
}

// Expire makes every access token issued so far expired.
func (a *AS) Expire() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, g := range a.access {
		g.expiry = time.Now().Add(-time.Minute)
	}
}

// Verify is the resource server's check of a token.
func (a *AS) Verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	g := a.access[token]
	if g == nil || time.Now().After(g.expiry) {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Scopes: strings.Fields(g.scope), Expiration: g.expiry}, nil
}

func (a *AS) metadata(w http.ResponseWriter, r *http.Request) {
	oauthPaths := []string{"/.well-known/oauth-authorization-server" + a.opts.IssuerPath}
	oidcPaths := []string{"/.well-known/openid-configuration" + a.opts.IssuerPath, a.opts.IssuerPath + "/.well-known/openid-configuration"}
	ok := slices.Contains(oidcPaths, r.URL.Path) || !a.opts.OpenIDOnly && slices.Contains(oauthPaths, r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	pkce := []string{"S256"}
	if a.opts.NoS256 {
		pkce = []string{"plain"}
	}
	m := map[string]any{
		"issuer":                                         a.URL,
		"authorization_endpoint":                         a.srv.URL + "/authorize",
		"token_endpoint":                                 a.srv.URL + "/token",
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported":               pkce,
		"token_endpoint_auth_methods_supported":          []string{"none", "client_secret_basic", "client_secret_post"},
		"authorization_response_iss_parameter_supported": true,
	}
	if !a.opts.NoRegistration {
		m["registration_endpoint"] = a.srv.URL + "/register"
	}
	if a.opts.ScopesSupported != nil {
		m["scopes_supported"] = a.opts.ScopesSupported
	}
	writeJSON(w, http.StatusOK, m)
}

func (a *AS) record(endpoint string, p url.Values) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests = append(a.requests, Request{Endpoint: endpoint, Params: p})
}

func (a *AS) register(w http.ResponseWriter, r *http.Request) {
	var m struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
		AppType      string   `json:"application_type"`
	}
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || len(m.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	a.record("register", url.Values{"redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": {m.AuthMethod}, "application_type": {m.AppType}})
	id := "client-" + random()
	a.mu.Lock()
	a.clients[id] = &client{redirects: m.RedirectURIs}
	a.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (a *AS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.record("authorize", q)
	a.mu.Lock()
	c := a.clients[q.Get("client_id")]
	a.mu.Unlock()
	if c == nil || !slices.Contains(c.redirects, q.Get("redirect_uri")) {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(q.Get("redirect_uri"))
	bq := url.Values{"state": {q.Get("state")}, "iss": {a.URL}}
	switch {
	case q.Get("response_type") != "code":
		bq.Set("error", "unsupported_response_type")
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		bq.Set("error", "invalid_request")
		bq.Set("error_description", "PKCE S256 required")
	default:
		code := random()
		a.mu.Lock()
		a.codes[code] = &grant{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), resource: q.Get("resource"), scope: q.Get("scope")}
		a.mu.Unlock()
		bq.Set("code", code)
	}
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (a *AS) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	p := r.PostForm
	a.record("token", p)
	id := p.Get("client_id")
	if u, _, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(u)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.clients[id]
	if c == nil {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	fail := func(desc string) {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": desc})
	}
	var g *grant
	switch p.Get("grant_type") {
	case "authorization_code":
		g = a.codes[p.Get("code")]
		delete(a.codes, p.Get("code")) // single use
		sum := sha256.Sum256([]byte(p.Get("code_verifier")))
		switch {
		case g == nil:
			fail("unknown or used code")
			return
		case g.client != id || g.redirect != p.Get("redirect_uri"):
			fail("code issued to another client or redirect_uri")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			fail("PKCE verification failed")
			return
		case g.resource != p.Get("resource"):
			fail("resource differs from the authorization request's")
			return
		}
	case "refresh_token":
		g = a.refresh[p.Get("refresh_token")]
		delete(a.refresh, p.Get("refresh_token")) // rotated
		switch {
		case a.failNext:
			fail("refresh token revoked")
			return
		case g == nil:
			fail("unknown or used refresh token")
			return
		case g.client != id:
			fail("refresh token of another client")
			return
		}
		a.refreshes++
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	at, rt := "at-"+random(), "rt-"+random()
	ng := *g
	ng.expiry = time.Now().Add(a.opts.TTL)
	a.access[at] = &ng
	a.refresh[rt] = &ng
	writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(a.opts.TTL / time.Second), "refresh_token": rt, "scope": g.scope})
}

// ResourceOptions configure a [Resource].
type ResourceOptions struct {
	// NoChallengeURL leaves resource_metadata out of the WWW-Authenticate
	// challenge: the client must find the metadata at a well-known URI.
	NoChallengeURL bool
	// MetadataResource replaces the resource the metadata names.
	MetadataResource string
	// Scopes are required of a token (403 insufficient_scope otherwise),
	// and named in the challenge.
	Scopes []string
	// ScopesSupported go in the metadata.
	ScopesSupported []string
}

// Resource is an MCP server (go-sdk, streamable HTTP, tool "hello") at
// URL, behind a bearer token check against an AS.
type Resource struct {
	URL string
	srv *httptest.Server

	mu   sync.Mutex
	seen []string // Authorization headers received
}

// NewResource starts a protected MCP server at path /mcp.
func NewResource(t testing.TB, as *AS, opts *ResourceOptions) *Resource {
	var o ResourceOptions
	if opts != nil {
		o = *opts
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "protected", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "hello", Description: "says hello"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello from the protected server"}}}, nil, nil
	})
	r := &Resource{}
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	mux := http.NewServeMux()
	prm := func(w http.ResponseWriter, req *http.Request) {
		res := o.MetadataResource
		if res == "" {
			res = r.URL
		}
		m := map[string]any{"resource": res, "authorization_servers": []string{as.URL}}
		if o.ScopesSupported != nil {
			m["scopes_supported"] = o.ScopesSupported
		}
		writeJSON(w, http.StatusOK, m)
	}
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", prm)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", prm)
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.Header.Get("Authorization"))
		r.mu.Unlock()
		challenge := "Bearer "
		if !o.NoChallengeURL {
			challenge += fmt.Sprintf("resource_metadata=%q", r.srv.URL+"/.well-known/oauth-protected-resource/mcp")
		}
		if len(o.Scopes) > 0 {
			challenge = strings.TrimSuffix(challenge, " ")
			if !o.NoChallengeURL {
				challenge += ","
			}
			challenge += fmt.Sprintf(" scope=%q", strings.Join(o.Scopes, " "))
		}
		tok, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
		info, err := as.Verify(req.Context(), tok, req)
		if !ok || err != nil {
			w.Header().Set("WWW-Authenticate", strings.TrimSpace(challenge))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		for _, sc := range o.Scopes {
			if !slices.Contains(info.Scopes, sc) {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf("Bearer error=\"insufficient_scope\", scope=%q", strings.Join(o.Scopes, " ")))
				http.Error(w, "insufficient scope", http.StatusForbidden)
				return
			}
		}
		mcpHandler.ServeHTTP(w, req)
	}))
	r.srv = httptest.NewServer(mux)
	t.Cleanup(r.srv.Close)
	r.URL = r.srv.URL + "/mcp"
	return r
}

// Seen returns the Authorization headers the server received.
func (r *Resource) Seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// Browser returns a Config.OpenURL that does what a user's browser does
// when the user agrees: it gets the authorization URL and follows the
// authorization server's redirect to the client's callback. tamper, when
// set, may change the callback URL first (a forged answer).
func Browser(tamper func(*url.URL)) func(string) error {
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 10 * time.Second}
	return func(authURL string) error {
		resp, err := hc.Get(authURL)
		if err != nil {
			return err
		}
		resp.Body.Close()
		loc, err := resp.Location()
		if err != nil {
			return fmt.Errorf("the authorization server answered %d without a redirect", resp.StatusCode)
		}
		if tamper != nil {
			tamper(loc)
		}
		resp, err = hc.Get(loc.String())
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil // what the callback answered is the client's business
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func random() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
