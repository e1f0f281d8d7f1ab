package web

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
	"golang.org/x/net/html/charset"

	"github.com/toolscope/toolscope/internal/netaddr"
)

//go:embed fetch.md
var fetchDescription string

// The defaults of [FetchOptions], Claude Code's limits.
const (
	DefaultMaxBytes     = 10 << 20 // 10 MiB of response body
	DefaultMaxContent   = 100_000  // bytes of Markdown or text given back
	DefaultTimeout      = 60 * time.Second
	DefaultMaxRedirects = 10
)

// FetchOptions configures [NewFetch]. The zero value is Claude Code's
// behaviour without its small model: the content comes back with the
// prompt, for the calling model to apply.
type FetchOptions struct {
	// MaxBytes bounds the response body; a larger one is an error the
	// model sees. 0 means [DefaultMaxBytes].
	MaxBytes int64
	// MaxContent bounds the text given back (after the HTML is converted
	// to Markdown); longer text is cut and marked. 0 means
	// [DefaultMaxContent].
	MaxContent int
	// Timeout bounds a whole fetch, redirects included. 0 means
	// [DefaultTimeout].
	Timeout time.Duration
	// MaxRedirects is how many same-host redirects are followed. 0 means
	// [DefaultMaxRedirects]; negative means none.
	MaxRedirects int
	// AllowHTTP keeps http:// URLs as they are. By default they are
	// upgraded to https://, as Claude Code does (but for a local address
	// a rule names: a development server speaks http).
	AllowHTTP bool
	// Apply, when set, applies the prompt to the fetched content (Claude
	// Code asks a small, fast model) and its answer is the result. Nil
	// means the result is the prompt followed by the content.
	Apply func(ctx context.Context, prompt, content string) (string, error)
	// Resolver looks up the addresses of host names. Nil means
	// net.DefaultResolver. Every address it returns is checked (see the
	// package documentation) and the connection is made to a checked one.
	Resolver Resolver
	// TLSConfig is the TLS configuration of the connections (tests give
	// their own roots here). Nil means the default.
	TLSConfig *tls.Config
	// UserAgent is sent with every request. "" means a default naming
	// toolscope.
	UserAgent string
}

// Resolver is what WebFetch needs of a DNS resolver; *net.Resolver is
// one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Fetch is the WebFetch tool. See the package documentation.
type Fetch struct{ o FetchOptions }

// NewFetch returns the WebFetch tool. Nil options mean the defaults.
func NewFetch(opts *FetchOptions) *Fetch {
	var o FetchOptions
	if opts != nil {
		o = *opts
	}
	o.MaxBytes = cmp.Or(o.MaxBytes, DefaultMaxBytes)
	o.MaxContent = cmp.Or(o.MaxContent, DefaultMaxContent)
	o.Timeout = cmp.Or(o.Timeout, DefaultTimeout)
	o.MaxRedirects = cmp.Or(o.MaxRedirects, DefaultMaxRedirects)
	if o.MaxRedirects < 0 {
		o.MaxRedirects = 0
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	o.UserAgent = cmp.Or(o.UserAgent, "toolscope-WebFetch/1 (+https://github.com/toolscope/toolscope)")
	return &Fetch{o: o}
}

type fetchInput struct {
	URL    string `json:"url"`
	Prompt string `json:"prompt"`
}

var fetchSchema = json.RawMessage(`{"type":"object","properties":{
"url":{"type":"string","format":"uri","description":"The URL to fetch content from"},
"prompt":{"type":"string","description":"The prompt to run on the fetched content"}},
"required":["url","prompt"]}`)

// Info implements [tool.Tool]. WebFetch changes nothing, but it is not
// ReadOnly for the permission engine: a fetch is judged by the
// WebFetch(domain:...) rules and asks without one, as in Claude Code.
// It is StateInjected: its connections read the allow rules (see
// [BlockedError]).
func (f *Fetch) Info() tool.Info {
	t, fa := true, false
	desc := fetchDescription
	if f.o.AllowHTTP {
		desc = strings.Replace(desc, " HTTP URLs are upgraded to HTTPS (but for a local address a rule allows, such as a development server on localhost).", "", 1)
	}
	return tool.Info{Name: "WebFetch", Title: "Fetch a web page", Description: desc, InputSchema: fetchSchema,
		ConcurrencySafe: true, StateInjected: true, Annotations: &tool.Annotations{ReadOnlyHint: &t, DestructiveHint: &fa, IdempotentHint: &t, OpenWorldHint: &t}}
}

// SchemaTested implements [tool.TestedSchema].
func (f *Fetch) SchemaTested() {}

func fetchArgs(input json.RawMessage) fetchInput {
	var in fetchInput
	_ = json.Unmarshal(input, &in)
	return in
}

// ruleHost returns the host a WebFetch rule names: its content is
// "domain:HOST" (HOST exactly, in any spelling of it; not its subdomains,
// as in Claude Code). ok is false for any other content.
func ruleHost(r permission.Rule) (string, bool) {
	h, ok := strings.CutPrefix(r.Content, "domain:")
	if !ok {
		return "", false
	}
	host, _, err := canonicalHost(strings.TrimSpace(h))
	return host, err == nil
}

// explicitlyAllowed reports whether pc has an allow rule naming host, the
// only thing that lets WebFetch reach a non-public address.
func explicitlyAllowed(pc *permission.Context, host string) bool {
	if pc == nil {
		return false
	}
	for _, r := range pc.Allow {
		if r.Tool != "WebFetch" {
			continue
		}
		if h, ok := ruleHost(r); ok && h == host {
			return true
		}
	}
	return false
}

// CheckPermissions implements [tool.Tool]: an unparseable URL is denied
// (fail closed); a URL whose host is a non-public IP address in any
// spelling, or localhost, is denied unless an allow rule names that host
// (a mode does not do: not even bypass). The rest is left to the rules
// and the mode.
func (f *Fetch) CheckPermissions(_ context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error) {
	t, err := parseTarget(fetchArgs(input).URL)
	if err != nil {
		return permission.Decision{Behavior: permission.Deny, Message: "WebFetch: " + err.Error(), Reason: "Tool check: WebFetch: unparseable URL"}, nil
	}
	if why := literalNonPublic(t); why != "" && !explicitlyAllowed(pc, t.host) {
		return permission.Decision{Behavior: permission.Deny,
			Message: fmt.Sprintf("WebFetch does not fetch from %s (%s) unless an allow rule names it: WebFetch(domain:%s)", t.host, why, t.host),
			Reason:  "Tool check: WebFetch: non-public address"}, nil
	}
	return permission.Decision{Behavior: permission.Passthrough}, nil
}

// literalNonPublic says why a target's host is not public without asking
// DNS: an IP literal of a non-public class, or localhost.
func literalNonPublic(t *target) string {
	if t.ip.IsValid() {
		return netaddr.NonPublic(t.ip)
	}
	if localName(t.host) {
		return "loopback"
	}
	return ""
}

// MatchRule implements [tool.RuleMatcher]: "domain:HOST" matches a URL
// whose host is HOST (compared in canonical form). A rule with other
// content, or a URL that does not parse, fails closed: no allow rule
// matches it, every deny and ask rule does.
func (f *Fetch) MatchRule(_ context.Context, rule permission.Rule, input json.RawMessage) bool {
	closed := rule.Behavior != permission.Allow
	h, ok := ruleHost(rule)
	if !ok {
		return closed
	}
	t, err := parseTarget(fetchArgs(input).URL)
	if err != nil {
		return closed
	}
	return t.host == h
}

// Suggestions implements [tool.Suggester]: the URL's host.
func (f *Fetch) Suggestions(_ context.Context, input json.RawMessage) []permission.Rule {
	t, err := parseTarget(fetchArgs(input).URL)
	if err != nil {
		return nil
	}
	return []permission.Rule{{Tool: "WebFetch", Content: "domain:" + t.host, Behavior: permission.Allow, Source: "suggested"}}
}

// BlockedError is the error of a connection WebFetch refused to make: the
// host resolved to an address that is not public, and no allow rule named
// the host.
type BlockedError struct {
	Host   string
	Addr   netip.Addr
	Reason string // "loopback", "private", "link-local", ...
}

func (e *BlockedError) Error() string {
	if e.Addr.String() == e.Host {
		return fmt.Sprintf("%s is a %s address; WebFetch connects to it only with an allow rule naming it: WebFetch(domain:%s)", e.Host, e.Reason, e.Host)
	}
	return fmt.Sprintf("%s resolves to %s, a %s address; WebFetch connects to it only with an allow rule naming it: WebFetch(domain:%s)", e.Host, e.Addr, e.Reason, e.Host)
}

// dialer makes WebFetch's connections: it resolves the host itself,
// checks every address, and connects to a checked address, never to the
// name (a second lookup could answer differently).
type dialer struct {
	resolver Resolver
	pc       *permission.Context
}

func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	host, ip, err := canonicalHost(host)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	switch {
	case ip.IsValid():
		addrs = []netip.Addr{ip}
	case localName(host):
		addrs = []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()}
	default:
		addrs, err = d.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("no address for %s", host)
		}
	}
	// Every address is checked before any is dialled: a name that resolves
	// to a public and a private address is refused.
	allowed := explicitlyAllowed(d.pc, host)
	for _, a := range addrs {
		if why := netaddr.NonPublic(a); why != "" && !allowed {
			return nil, &BlockedError{Host: host, Addr: a.Unmap(), Reason: why}
		}
	}
	var nd net.Dialer
	var first error
	for _, a := range addrs {
		c, err := nd.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		first = cmp.Or(first, err)
	}
	return nil, first
}

// Call implements [tool.Tool].
func (f *Fetch) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		in := fetchArgs(call.Input)
		var pc *permission.Context
		if call.State != nil {
			pc = call.State.Permissions()
		}
		yield(f.fetch(ctx, in, pc), nil)
	}
}

// fetchResult is what one fetch found.
type fetchResult struct {
	code     int
	status   string
	url      string // the URL of the response (after same-host redirects)
	body     []byte
	ctype    string
	redirect string // set when the server redirected to another host
}

func (f *Fetch) fetch(ctx context.Context, in fetchInput, pc *permission.Context) *tool.Chunk {
	start := time.Now()
	t, err := parseTarget(in.URL)
	if err != nil {
		return tool.Errorf("Error: %v", err)
	}
	// http is upgraded, as Claude Code does, but for a local address a
	// rule names (a development server on localhost speaks http).
	if t.u.Scheme == "http" && !f.o.AllowHTTP && !(literalNonPublic(t) != "" && explicitlyAllowed(pc, t.host)) {
		t.u.Scheme = "https"
	}
	if why := literalNonPublic(t); why != "" && !explicitlyAllowed(pc, t.host) {
		// Also when the call was approved: only a rule opens these.
		return tool.Errorf("Error: %v", &BlockedError{Host: t.host, Addr: t.ip, Reason: why})
	}
	ctx, cancel := context.WithTimeout(ctx, f.o.Timeout)
	defer cancel()
	r, err := f.get(ctx, t, pc)
	if err != nil {
		if b, ok := errors.AsType[*BlockedError](err); ok {
			return tool.Errorf("Error: %v", b)
		}
		if ctx.Err() == context.DeadlineExceeded {
			return tool.Errorf("Error: fetching %s timed out after %v", t.u, f.o.Timeout)
		}
		return tool.Errorf("Error: fetching %s: %v", t.u, err)
	}
	meta := map[string]any{"code": r.code, "codeText": r.status, "url": r.url, "bytes": len(r.body)}
	if r.redirect != "" {
		meta["redirect"] = r.redirect
		text := fmt.Sprintf("REDIRECT DETECTED: The URL redirects to a different host.\n\nOriginal URL: %s\nRedirect URL: %s\nStatus: %d %s\n\nTo complete your request, fetch the redirected URL if you want its content: use WebFetch again with these parameters:\n- url: %q\n- prompt: %q",
			r.url, r.redirect, r.code, r.status, r.redirect, in.Prompt)
		return &tool.Chunk{Content: []tool.Block{tool.TextBlock(text)}, Metadata: meta}
	}
	if r.code < 200 || r.code > 299 {
		return tool.Errorf("Error: fetching %s: the server answered %d %s", r.url, r.code, r.status)
	}
	content, truncated, err := f.convert(r)
	if err != nil {
		return tool.Errorf("Error: %s: %v", r.url, err)
	}
	meta["truncated"] = truncated
	if truncated {
		content += "\n\n...[content truncated]"
	}
	var text string
	if f.o.Apply != nil {
		text, err = f.o.Apply(ctx, in.Prompt, content)
		if err != nil {
			return tool.Errorf("Error: applying the prompt to %s: %v", r.url, err)
		}
	} else {
		text = fmt.Sprintf("Prompt: %s\n\nContent of %s (%d %s):\n---\n%s\n---\n\nAnswer the prompt from the content above only.", in.Prompt, r.url, r.code, r.status, content)
	}
	meta["durationMs"] = time.Since(start).Milliseconds()
	return &tool.Chunk{Content: []tool.Block{tool.TextBlock(text)}, Metadata: meta}
}

// get fetches t, following redirects to the same origin (scheme, host and
// port) up to the limit; a redirect anywhere else ends the fetch with the
// redirect's target.
func (f *Fetch) get(ctx context.Context, t *target, pc *permission.Context) (*fetchResult, error) {
	tr := &http.Transport{
		Proxy:                  nil, // the connection goes to the checked address, not through a proxy
		DialContext:            (&dialer{resolver: f.o.Resolver, pc: pc}).DialContext,
		TLSClientConfig:        f.o.TLSConfig,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    f.o.Timeout,
		MaxResponseHeaderBytes: 256 << 10,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for hops := 0; ; hops++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.u.String(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("User-Agent", f.o.UserAgent)
		req.Header.Set("Accept", "text/markdown, text/html, */*")
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		r := &fetchResult{code: resp.StatusCode, status: http.StatusText(resp.StatusCode), url: t.u.String(), ctype: resp.Header.Get("Content-Type")}
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			resp.Body.Close()
			loc := resp.Header.Get("Location")
			if loc == "" {
				return nil, fmt.Errorf("redirect %d without a Location", resp.StatusCode)
			}
			u, err := t.u.Parse(loc)
			if err != nil {
				return nil, fmt.Errorf("redirect to an invalid URL: %v", err)
			}
			next, err := parseTarget(u.String())
			if err != nil || next.u.Scheme != t.u.Scheme || next.host != t.host || port(next) != port(t) {
				r.redirect = u.String()
				return r, nil
			}
			if hops >= f.o.MaxRedirects {
				return nil, fmt.Errorf("too many redirects (more than %d)", f.o.MaxRedirects)
			}
			t = next
			continue
		}
		defer resp.Body.Close()
		if resp.ContentLength > f.o.MaxBytes {
			return nil, fmt.Errorf("the content is %d bytes, more than the limit of %d", resp.ContentLength, f.o.MaxBytes)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, f.o.MaxBytes+1))
		if err != nil {
			return nil, err
		}
		if int64(len(body)) > f.o.MaxBytes {
			return nil, fmt.Errorf("the content is more than the limit of %d bytes", f.o.MaxBytes)
		}
		r.body = body
		return r, nil
	}
}

func port(t *target) string {
	if p := t.u.Port(); p != "" {
		return p
	}
	if t.u.Scheme == "http" {
		return "80"
	}
	return "443"
}

// convert turns a response body into text for the model: HTML becomes
// Markdown, other text stays as it is, both decoded to UTF-8 from the
// charset the response declares (or, for HTML, its <meta> or a guess);
// binary content is refused.
func (f *Fetch) convert(r *fetchResult) (string, bool, error) {
	mt, _, _ := mime.ParseMediaType(r.ctype)
	isHTML := mt == "text/html" || mt == "application/xhtml+xml" || mt == "" && looksHTML(r.body)
	isText := strings.HasPrefix(mt, "text/") || mt == "" || strings.HasSuffix(mt, "json") || strings.HasSuffix(mt, "xml") || mt == "application/javascript"
	switch {
	case isHTML:
	case isText:
		if bytes.IndexByte(r.body, 0) >= 0 {
			return "", false, fmt.Errorf("the content (%s) is not text", cmp.Or(mt, "no content type"))
		}
	default:
		return "", false, fmt.Errorf("the content type %s is not text; WebFetch reads text and HTML only", mt)
	}
	body := r.body
	if !utf8.Valid(body) {
		if dr, err := charset.NewReader(bytes.NewReader(body), r.ctype); err == nil {
			// A single-byte charset at most triples the size in UTF-8.
			if b, err := io.ReadAll(io.LimitReader(dr, 4*int64(len(body))+4)); err == nil {
				body = b
			}
		}
	}
	if isHTML {
		base, _ := parseTarget(r.url)
		s, cut := Markdown(body, base.u, f.o.MaxContent)
		return s, cut, nil
	}
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	if len(s) > f.o.MaxContent {
		return strings.ToValidUTF8(s[:f.o.MaxContent], ""), true, nil
	}
	return s, false, nil
}

func looksHTML(b []byte) bool {
	s := strings.ToLower(strings.TrimSpace(string(b[:min(len(b), 512)])))
	return strings.HasPrefix(s, "<!doctype html") || strings.HasPrefix(s, "<html")
}
