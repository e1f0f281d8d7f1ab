package oauth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Login runs the authorization code flow for the MCP server at serverURL
// and stores the token it gets (see the package doc for the steps). The
// user authorizes in a browser that Config.OpenURL opens on the
// authorization URL; the authorization server sends the browser back to
// a listener on http://127.0.0.1:PORT/callback, which Login runs until
// the answer comes or ctx ends.
func Login(ctx context.Context, serverURL string, cfg *Config) error {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	if c.OpenURL == nil {
		return errors.New("oauth: Login needs Config.OpenURL to show the authorization URL")
	}
	server, err := url.Parse(serverURL)
	if err != nil || (server.Scheme != "http" && server.Scheme != "https") || server.Host == "" {
		return fmt.Errorf("oauth: %q is not an http or https URL", serverURL)
	}
	key := canonical(server)
	st, err := newStore(&c, key)
	if err != nil {
		return err
	}
	old, err := st.load()
	if err != nil {
		old = nil // damaged: replaced below
	}
	hc := c.httpClient()

	// 1. Ask the server, without a token, and read its challenge.
	params, err := probe(ctx, hc, serverURL)
	if err != nil {
		return fmt.Errorf("oauth: %s: %w", key, err)
	}
	// 2. Its protected resource metadata names the authorization server.
	prm, err := discoverResource(ctx, hc, server, params["resource_metadata"])
	if err != nil {
		return fmt.Errorf("oauth: %s: %w", key, err)
	}
	resource, issuer := key, ""
	var scopes []string
	if prm != nil {
		resource, issuer = prm.Resource, prm.AuthorizationServers[0]
		scopes = prm.ScopesSupported
	} else {
		// 2025-03-26: the server's origin is its authorization server.
		issuer = (&url.URL{Scheme: server.Scheme, Host: server.Host}).String()
	}
	if s := params["scope"]; s != "" {
		scopes = strings.Fields(s)
	} else if old != nil && old.Challenged != "" {
		scopes = strings.Fields(old.Challenged)
	}
	// 3. The authorization server's metadata.
	as, err := discoverServer(ctx, hc, issuer, prm == nil)
	if err != nil {
		return fmt.Errorf("oauth: %s: %w", key, err)
	}
	if as == nil {
		if prm != nil {
			return fmt.Errorf("oauth: %s: authorization server %s publishes no metadata (RFC 8414 or OpenID Connect)", key, issuer)
		}
		// The 2025-03-26 revision's default endpoints, for a server with
		// neither kind of metadata.
		as = &serverMeta{Issuer: issuer, AuthorizationEndpoint: issuer + "/authorize", TokenEndpoint: issuer + "/token",
			RegistrationEndpoint: issuer + "/register", CodeChallengeMethodsSupported: []string{"S256"}}
	}
	if err := checkPKCE(as); err != nil {
		return fmt.Errorf("oauth: %s: %w", key, err)
	}
	if len(c.Scopes) > 0 {
		scopes = c.Scopes
	}
	if old != nil && old.Issuer == as.Issuer {
		// Step-up: what was granted before and what the server asked for
		// since are asked for again, so that no grant is lost.
		scopes = union(scopes, strings.Fields(old.Scope), strings.Fields(old.StepUp))
	}
	if len(scopes) > 0 && slices.Contains(as.ScopesSupported, "offline_access") {
		scopes = union(scopes, []string{"offline_access"}) // for a refresh token
	}

	// 4. The callback listener, then the client.
	port := c.CallbackPort
	if port == 0 && c.ClientID == "" && old != nil && old.Registered && old.Issuer == as.Issuer {
		if u, err := url.Parse(old.RedirectURI); err == nil {
			port, _ = strconv.Atoi(u.Port()) // the registration's, if it is free
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil && c.CallbackPort == 0 && port != 0 {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return fmt.Errorf("oauth: the callback listener: %w", err)
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	e := &entry{Server: key, Resource: resource, Issuer: as.Issuer, TokenEndpoint: as.TokenEndpoint, RedirectURI: redirect}
	if err := register(ctx, hc, &c, as, old, e); err != nil {
		return fmt.Errorf("oauth: %s: %w", key, err)
	}

	// 5. The authorization request, with PKCE and the resource.
	verifier, state := randomString(32), randomString(24)
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{
		"response_type":         {"code"},
		"client_id":             {e.ClientID},
		"redirect_uri":          {redirect},
		"state":                 {state},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
		"resource":              {resource},
	}
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	authURL, err := url.Parse(as.AuthorizationEndpoint)
	if err != nil {
		return fmt.Errorf("oauth: %s: authorization endpoint: %w", key, err)
	}
	aq := authURL.Query()
	for k, v := range q {
		aq[k] = v
	}
	authURL.RawQuery = aq.Encode()

	answers := make(chan callback, 1)
	srv := &http.Server{Handler: callbackHandler(state, answers), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	if err := c.OpenURL(authURL.String()); err != nil {
		return fmt.Errorf("oauth: showing the authorization URL: %w", err)
	}
	var cb callback
	select {
	case cb = <-answers:
	case <-ctx.Done():
		return fmt.Errorf("oauth: %s: waiting for the authorization: %w", key, context.Cause(ctx))
	}
	if cb.err != nil {
		return fmt.Errorf("oauth: %s: %w", key, cb.err)
	}
	// RFC 9207: an issuer in the answer must be ours, and a server that
	// promises one must send it (a mix-up attack otherwise).
	// The comparison is exact: no case folding, no trailing slash.
	if cb.iss != "" && cb.iss != as.Issuer || cb.iss == "" && as.IssParameterSupported {
		return fmt.Errorf("oauth: %s: the authorization answer comes from issuer %q, not %q; refused", key, printable(cb.iss, 100), as.Issuer)
	}

	// 6. The code for a token.
	tr, err := requestToken(ctx, hc, e, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {cb.code},
		"redirect_uri":  {redirect},
		"code_verifier": {verifier},
		"resource":      {resource},
	})
	if err != nil {
		return fmt.Errorf("oauth: %s: exchanging the authorization code: %w", key, err)
	}
	e.apply(tr, time.Now())
	if e.Scope == "" {
		e.Scope = strings.Join(scopes, " ")
	}
	unlock, err := st.lock()
	if err != nil {
		return err
	}
	defer unlock()
	return st.save(e)
}

// probe sends the server MCP requests without a token and returns the
// parameters of its Bearer challenge (empty when it asked for none:
// discovery then uses the well-known URIs alone). It asks first as a
// 2025-11-25 client (initialize), then as a 2026-07-28 one
// (server/discover), since a server of one revision may refuse the
// other's request before it looks for a token.
func probe(ctx context.Context, hc *http.Client, serverURL string) (map[string]string, error) {
	for _, p := range []struct{ version, body string }{
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"toolscope","version":"0.1"}}}`},
		{"2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`},
	} {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(p.body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", p.version)
		resp, err := hc.Do(req)
		if err != nil {
			return nil, fmt.Errorf("reaching the server: %w", err)
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		if ch := bearer(resp.Header); ch != nil {
			return ch, nil
		}
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode < 300 {
			break // it asked without saying more, or asks for nothing
		}
	}
	return map[string]string{}, nil
}

// register sets e's client: the configured one, else the Client ID
// Metadata Document's URL where the authorization server accepts it,
// else the one registered dynamically before (same server and redirect
// URI), else a new dynamic registration (RFC 7591), which the 2026-07-28
// revision deprecates but which is the only way left to a command-line
// client that publishes no document.
func register(ctx context.Context, hc *http.Client, c *Config, as *serverMeta, old, e *entry) error {
	switch {
	case c.ClientID != "":
		e.ClientID, e.ClientSecret, e.AuthMethod = c.ClientID, c.ClientSecret, "none"
		if c.ClientSecret != "" {
			e.AuthMethod = "client_secret_basic"
			if !slices.Contains(as.TokenEndpointAuthMethodsSupported, "client_secret_basic") && slices.Contains(as.TokenEndpointAuthMethodsSupported, "client_secret_post") {
				e.AuthMethod = "client_secret_post"
			}
		}
		return nil
	case c.ClientMetadataURL != "" && as.ClientIDMetadataDocumentSupported:
		e.ClientID, e.AuthMethod = c.ClientMetadataURL, "none"
		return nil
	case old != nil && old.Registered && old.Issuer == as.Issuer && old.RedirectURI == e.RedirectURI && old.ClientID != "":
		e.ClientID, e.ClientSecret, e.AuthMethod, e.Registered = old.ClientID, old.ClientSecret, old.AuthMethod, true
		return nil
	case as.RegistrationEndpoint == "":
		return fmt.Errorf("authorization server %s offers no dynamic client registration: register a client there and configure it (\"oauth\": {\"clientId\": \"...\", \"callbackPort\": PORT}, redirect URI http://127.0.0.1:PORT/callback)", as.Issuer)
	}
	meta, _ := json.Marshal(map[string]any{
		"client_name":                "toolscope",
		"redirect_uris":              []string{e.RedirectURI},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"application_type":           "native",
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.RegistrationEndpoint, bytes.NewReader(meta))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("registering the client: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		var re struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		json.Unmarshal(b, &re)
		return fmt.Errorf("registering the client at %s: status %d %s %s", as.RegistrationEndpoint, resp.StatusCode, printable(re.Error, 64), printable(re.Description, 200))
	}
	var r struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.ClientID == "" {
		return fmt.Errorf("registering the client at %s: the answer has no client_id", as.RegistrationEndpoint)
	}
	e.ClientID, e.ClientSecret, e.Registered = r.ClientID, r.ClientSecret, true
	switch {
	case r.AuthMethod != "":
		e.AuthMethod = r.AuthMethod
	case r.ClientSecret != "":
		e.AuthMethod = "client_secret_basic" // RFC 7591's default
	default:
		e.AuthMethod = "none"
	}
	return nil
}

// callback is what came back to the redirect URI.
type callback struct {
	code, iss string
	err       error
}

// callbackHandler answers the browser's return to /callback: the first
// answer is sent on answers. One whose state is not ours is refused, and
// ends the login: it was not caused by this login (a forged request, or a
// stale tab), and its code must not be used.
func callbackHandler(state string, answers chan<- callback) http.Handler {
	var once sync.Once
	send := func(c callback) { once.Do(func() { answers <- c }) }
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		page := func(status int, msg string) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(status)
			fmt.Fprintf(w, "<!doctype html><title>toolscope</title><p>%s</p>\n", html.EscapeString(msg))
		}
		switch {
		case q.Get("state") != state:
			page(http.StatusBadRequest, "toolscope: this answer does not belong to the login in progress (state mismatch); it was refused.")
			send(callback{err: errors.New("the authorization answer's state does not match the request's; refused (start the login again)")})
		case q.Get("error") != "":
			page(http.StatusOK, "toolscope: the authorization was refused. You can close this window.")
			send(callback{err: fmt.Errorf("the authorization server refused: %s %s", printable(q.Get("error"), 64), printable(q.Get("error_description"), 200))})
		case q.Get("code") == "":
			page(http.StatusBadRequest, "toolscope: the answer has no authorization code.")
			send(callback{err: errors.New("the authorization answer has no code")})
		default:
			page(http.StatusOK, "toolscope: logged in. You can close this window.")
			send(callback{code: q.Get("code"), iss: q.Get("iss")})
		}
	})
	return mux
}

// randomString is n random bytes, base64url: a PKCE verifier (43
// characters for 32 bytes) or a state.
func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// union is the scopes of all the lists, each once, in order.
func union(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// Status is what is stored for a server.
type Status struct {
	// LoggedIn is true when a token is stored (it may have expired).
	LoggedIn bool
	// Expiry is when the access token expires (zero: not said).
	Expiry time.Time
	// Refreshable is true when a refresh token is stored.
	Refreshable bool
	// Scope is the scope granted, Issuer the authorization server.
	Scope, Issuer string
}

// Lookup returns what is stored for the server at serverURL.
func Lookup(serverURL string, cfg *Config) (Status, error) {
	st, err := storeFor(serverURL, cfg)
	if err != nil {
		return Status{}, err
	}
	e, err := st.load()
	if err != nil || e == nil || e.AccessToken == "" {
		return Status{}, err
	}
	return Status{LoggedIn: true, Expiry: e.Expiry, Refreshable: e.RefreshToken != "", Scope: e.Scope, Issuer: e.Issuer}, nil
}

// Logout forgets the token (and the client registration) stored for the
// server at serverURL. It does not revoke the token at the authorization
// server.
func Logout(serverURL string, cfg *Config) error {
	st, err := storeFor(serverURL, cfg)
	if err != nil {
		return err
	}
	return st.remove()
}

func storeFor(serverURL string, cfg *Config) (*store, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("oauth: %q is not an http or https URL", serverURL)
	}
	return newStore(&c, canonical(u))
}
