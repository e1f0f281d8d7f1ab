package oauth

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Config configures OAuth for one remote MCP server. The nil *Config and
// the zero Config are valid: a client registered dynamically (RFC 7591),
// a random callback port, tokens in [DefaultDir].
type Config struct {
	// ClientID is a client registered with the server's authorization
	// server beforehand, with ClientSecret if it is a confidential
	// client. "" means the client is registered dynamically, where the
	// authorization server offers it. A pre-registered client must allow
	// the redirect URI http://127.0.0.1:PORT/callback, so give it a fixed
	// CallbackPort.
	ClientID     string
	ClientSecret string
	// ClientMetadataURL is an https URL where a Client ID Metadata
	// Document describing this client is published; it is used as the
	// client id with authorization servers that accept such documents
	// (client_id_metadata_document_supported). "" means none.
	ClientMetadataURL string
	// CallbackPort is the loopback port of the redirect URI
	// (http://127.0.0.1:PORT/callback); 0 means one the system picks (or
	// the one of the last dynamic registration, when it is free).
	CallbackPort int
	// Scopes, when set, are the scopes asked for, instead of those the
	// server names (its WWW-Authenticate challenge, else its protected
	// resource metadata).
	Scopes []string
	// Dir is where tokens and client registrations are kept, one
	// directory (0700) per server, one file (0600) in it; "" means
	// [DefaultDir].
	Dir string
	// HTTPClient makes the requests to the authorization server and for
	// the metadata; nil means a client with a 30 s timeout. Redirects are
	// never followed.
	HTTPClient *http.Client
	// OpenURL shows the user the authorization URL ([Login] only): the
	// toolscope command prints it and starts a browser; a test fetches
	// it. Login fails when it is nil.
	OpenURL func(url string) error
	// LoginHint ends the message of a [LoginRequiredError]: what the user
	// should do, e.g. `run "toolscope mcp login github"`.
	LoginHint string
}

// ErrLoginRequired is matched (errors.Is) by every [LoginRequiredError].
var ErrLoginRequired = errors.New("oauth: login required")

// LoginRequiredError is returned by a [Transport] that cannot authorize a
// request without the user: no token is stored, the stored one was
// refused and cannot be refreshed, or the server asks for more scope.
// Only [Login] can help then.
type LoginRequiredError struct {
	Server string // the server's URL
	Reason string
	Hint   string // Config.LoginHint
	Err    error  // the underlying failure, if any (a refresh's)
}

func (e *LoginRequiredError) Error() string {
	msg := fmt.Sprintf("MCP server %s needs authorization: %s", e.Server, e.Reason)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

func (e *LoginRequiredError) Is(target error) bool { return target == ErrLoginRequired }
func (e *LoginRequiredError) Unwrap() error        { return e.Err }

// canonical is the canonical URI of the MCP server at u (RFC 8707, as
// the MCP spec gives it): scheme and host in lower case, no default
// port, no fragment, no lone trailing slash.
func canonical(u *url.URL) string {
	c := *u
	c.Scheme = strings.ToLower(c.Scheme)
	host := strings.ToLower(c.Hostname())
	port := c.Port()
	if c.Scheme == "http" && port == "80" || c.Scheme == "https" && port == "443" {
		port = ""
	}
	c.Host = host
	if strings.Contains(host, ":") {
		c.Host = "[" + host + "]"
	}
	if port != "" {
		c.Host = net.JoinHostPort(host, port)
	}
	c.Fragment, c.RawFragment, c.User = "", "", nil
	if c.Path == "/" && c.RawQuery == "" {
		c.Path, c.RawPath = "", ""
	}
	return c.String()
}

// origin is Origin.
func origin(u *url.URL) string { return Origin(u) }

// Origin is u's scheme, host and port, as browsers compare origins: case
// does not matter and a default port is the same as none. A credential
// for one origin goes to no other (package mcp's headers use it too).
func Origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), port)
}

// secureURL checks that an authorization endpoint or metadata URL is https,
// or http on a loopback address (for development), as the spec requires.
func secureURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%q is not an absolute URL", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return u, nil
	case "http":
		if loopback(u.Hostname()) {
			return u, nil
		}
	}
	return nil, fmt.Errorf("%q is neither https nor a loopback address", raw)
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (c *Config) httpClient() *http.Client {
	base := c.HTTPClient
	if base == nil {
		base = &http.Client{Timeout: 30 * time.Second}
	}
	hc := *base
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &hc
}
