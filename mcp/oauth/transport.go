package oauth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Transport is an [http.RoundTripper] that authorizes the requests to one
// MCP server with the token [Login] stored for it. It never asks the user:
// when a request cannot be authorized without them, it fails with a
// [*LoginRequiredError]. In detail:
//
//   - A request to another origin than the server's goes without a
//     token (a redirect elsewhere, or a URL the server names on another
//     host).
//   - A stored token that expires within 30 s is refreshed first.
//   - A 401 to a request that carried a token: the token is refreshed
//     (once) and the request sent again; a second 401, a refresh that
//     fails, or no refresh token is a LoginRequiredError.
//   - A 401 to a request without a token (no login yet): a
//     LoginRequiredError.
//   - A 403 whose challenge says insufficient_scope: the scope asked for
//     is recorded, for the next Login to ask for it too, and the request
//     fails with a LoginRequiredError.
//
// Refreshing takes the lock of the server's token directory, and reads the
// file again under it: when another process (or another Transport) has
// refreshed meanwhile, its token is used, and the refresh token, which
// the authorization server may rotate, is spent only once.
type Transport struct {
	base   http.RoundTripper
	server string // canonical URL
	origin string
	cfg    Config
	st     *store
	stErr  error
	hc     *http.Client
	now    func() time.Time
}

// NewTransport returns a Transport for the MCP server at serverURL that
// sends its requests through base (nil means http.DefaultTransport).
func NewTransport(serverURL string, base http.RoundTripper, cfg *Config) *Transport {
	t := &Transport{base: base, now: time.Now}
	if cfg != nil {
		t.cfg = *cfg
	}
	if t.base == nil {
		t.base = http.DefaultTransport
	}
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" {
		t.stErr = fmt.Errorf("oauth: %q is not an http or https URL", serverURL)
		return t
	}
	t.server, t.origin = canonical(u), origin(u)
	t.st, t.stErr = newStore(&t.cfg, t.server)
	t.hc = t.cfg.httpClient()
	return t
}

func (t *Transport) loginRequired(reason string, err error) error {
	return &LoginRequiredError{Server: t.server, Reason: reason, Hint: t.cfg.LoginHint, Err: err}
}

// RoundTrip implements [http.RoundTripper].
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.stErr != nil {
		return nil, t.stErr
	}
	if origin(req.URL) != t.origin {
		return t.base.RoundTrip(req)
	}
	ctx := req.Context()
	e, err := t.st.load()
	if err != nil {
		return nil, err
	}
	var token string
	if e != nil && e.AccessToken != "" {
		if e.expired(t.now()) {
			if e, err = t.refresh(ctx, e.AccessToken); err != nil {
				return nil, err
			}
		}
		token = e.AccessToken
	}
	resp, err := t.send(req, token)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		if token == "" {
			if p := bearer(resp.Header); p != nil {
				t.record(func(e *entry) { e.Challenged = printable(p["scope"], 500) })
			}
			discard(resp)
			return nil, t.loginRequired("it asks for a token and none is stored (not logged in)", nil)
		}
		if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
			return resp, nil // cannot be sent again: the caller sees the 401
		}
		discard(resp)
		e, err := t.refresh(ctx, token)
		if err != nil {
			return nil, err
		}
		if resp, err = t.send(req, e.AccessToken); err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusUnauthorized {
			discard(resp)
			return nil, t.loginRequired("it refused the refreshed token too", nil)
		}
	case http.StatusForbidden:
		if p := bearer(resp.Header); p != nil && p["error"] == "insufficient_scope" {
			discard(resp)
			scope := printable(p["scope"], 500)
			if scope != "" {
				t.record(func(e *entry) {
					if e.AccessToken != "" { // (a step-up of a token there is)
						e.StepUp = strings.Join(union(strings.Fields(e.StepUp), strings.Fields(scope)), " ")
					}
				})
			}
			reason := "it needs more scope than the token has"
			if scope != "" {
				reason += " (" + scope + ")"
			}
			return nil, t.loginRequired(reason, nil)
		}
	}
	return resp, nil
}

// send sends req, with the token if there is one.
func (t *Transport) send(req *http.Request, token string) (*http.Response, error) {
	r := req.Clone(req.Context())
	if req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return t.base.RoundTrip(r)
}

func discard(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}

// refresh returns a token to use instead of sent, which expired or was
// refused: the stored one if another refresh already replaced sent, else
// a new one from the refresh token.
func (t *Transport) refresh(ctx context.Context, sent string) (*entry, error) {
	unlock, err := t.st.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	e, err := t.st.load()
	if err != nil {
		return nil, err
	}
	now := t.now()
	switch {
	case e == nil || e.AccessToken == "":
		return nil, t.loginRequired("no token is stored (logged out)", nil)
	case e.AccessToken != sent && !e.expired(now):
		return e, nil // refreshed by another process, or a new login
	case e.RefreshToken == "":
		return nil, t.loginRequired("the stored token expired or was refused, and there is no refresh token", nil)
	}
	tr, err := requestToken(ctx, t.hc, e, url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {e.RefreshToken},
		"resource":      {e.Resource},
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, t.loginRequired(fmt.Sprintf("refreshing the token failed (%v)", err), err)
	}
	e.apply(tr, now)
	if err := t.st.save(e); err != nil {
		return nil, err
	}
	return e, nil
}

// record changes the stored entry (an empty one when there is none) by
// f, for the next Login: the scope a server asked for.
func (t *Transport) record(f func(*entry)) {
	unlock, err := t.st.lock()
	if err != nil {
		return
	}
	defer unlock()
	e, err := t.st.load()
	if err != nil {
		return
	}
	if e == nil {
		e = &entry{}
	}
	f(e)
	t.st.save(e)
}

var _ http.RoundTripper = (*Transport)(nil)
