package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/tool/tooltest"
	"github.com/toolscope/toolscope/web"
)

// fakeResolver answers from a table; a name it lacks does not exist.
type fakeResolver map[string][]string

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, s := range r[host] {
		out = append(out, netip.MustParseAddr(s))
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

func input(u, prompt string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"url": u, "prompt": prompt})
	return b
}

// call runs the tool through a toolkit, in mode with the given rules.
func call(t *testing.T, tl tool.Tool, mode permission.Mode, rules []string, in json.RawMessage) *tool.Result {
	t.Helper()
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{tl}})
	if err != nil {
		t.Fatal(err)
	}
	pc := &permission.Context{Mode: mode}
	for _, s := range rules {
		r, err := permission.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		r.Behavior = permission.Allow
		pc.AddRule(r)
	}
	res, err := tk.Call(context.Background(), &tool.Call{ID: "1", Name: tl.Info().Name, Input: in, State: tool.NewState(pc)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// direct runs the tool without a toolkit (no permission engine), with
// the given allow rules in the state.
func direct(t *testing.T, tl tool.Tool, rules []string, in json.RawMessage) *tool.Result {
	t.Helper()
	pc := &permission.Context{Mode: permission.Default}
	for _, s := range rules {
		r, _ := permission.ParseRule(s)
		r.Behavior = permission.Allow
		pc.AddRule(r)
	}
	res := &tool.Result{Name: tl.Info().Name}
	for c, err := range tl.Call(context.Background(), &tool.Call{Name: tl.Info().Name, Input: in, State: tool.NewState(pc)}) {
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	res.Finish()
	return res
}

const page = `<!doctype html><html><head><title>T</title><style>p{}</style></head>
<body><h1>Title</h1><p>Hello <a href="/next">next</a>.</p><script>evil()</script></body></html>`

func newServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "plain *text*")
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"a":1}`)
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("x", 5000)))
	})
	mux.HandleFunc("/bigchunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for range 5 {
			w.Write([]byte(strings.Repeat("x", 1000)))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<p>"+strings.Repeat("word ", 1000)+"</p>")
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write([]byte("caf\xe9"))
	})
	mux.HandleFunc("/latin1html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><meta charset=\"windows-1252\"></head><body><p>na\xefve \x93quotes\x94</p></body></html>"))
	})
	mux.HandleFunc("/nul", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("a\x00b"))
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/same", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		// localhost is another host than 127.0.0.1, on the same port.
		_, port, _ := net.SplitHostPort(r.Host)
		http.Redirect(w, r, "http://localhost:"+port+"/page", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/otherport", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:1/page", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/noloc", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

var localRule = []string{"WebFetch(domain:127.0.0.1)"}

func TestFetchConformance(t *testing.T) {
	tooltest.Run(t, web.NewFetch(nil), &tooltest.Options{Inputs: []json.RawMessage{input("https://example.com/", "what is it?")}})
}

func TestFetchSuccess(t *testing.T) {
	srv := newServer(t)
	f := web.NewFetch(&web.FetchOptions{AllowHTTP: true})
	for _, tt := range []struct {
		path string
		want []string
		not  []string
	}{
		{"/page", []string{"Prompt: what?", "# Title", "Hello [next](" + srv.URL + "/next).", "(200 OK)"}, []string{"evil", "p{}"}},
		{"/text", []string{"plain *text*"}, nil},
		{"/json", []string{`{"a":1}`}, nil},
		{"/same", []string{"# Title", srv.URL + "/page"}, nil},
		{"/latin1", []string{"café"}, nil},
		{"/latin1html", []string{"naïve “quotes”"}, nil},
	} {
		res := call(t, f, permission.Default, localRule, input(srv.URL+tt.path, "what?"))
		if res.Status != tool.StatusSuccess {
			t.Errorf("%s: %s: %s", tt.path, res.Status, res.Text())
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(res.Text(), w) {
				t.Errorf("%s: result lacks %q:\n%s", tt.path, w, res.Text())
			}
		}
		for _, w := range tt.not {
			if strings.Contains(res.Text(), w) {
				t.Errorf("%s: result has %q:\n%s", tt.path, w, res.Text())
			}
		}
	}
}

func TestFetchApply(t *testing.T) {
	srv := newServer(t)
	var got string
	f := web.NewFetch(&web.FetchOptions{AllowHTTP: true, Apply: func(_ context.Context, prompt, content string) (string, error) {
		got = content
		return "answer to " + prompt, nil
	}})
	res := call(t, f, permission.Default, localRule, input(srv.URL+"/page", "q"))
	if res.Text() != "answer to q" || !strings.Contains(got, "# Title") {
		t.Errorf("result %q, content %q", res.Text(), got)
	}
	f = web.NewFetch(&web.FetchOptions{AllowHTTP: true, Apply: func(context.Context, string, string) (string, error) {
		return "", fmt.Errorf("model down")
	}})
	if res := call(t, f, permission.Default, localRule, input(srv.URL+"/page", "q")); !res.IsError() || !strings.Contains(res.Text(), "model down") {
		t.Errorf("%s: %s", res.Status, res.Text())
	}
}

// http:// is upgraded to https:// as Claude Code does, unless AllowHTTP,
// or the host is a local address a rule names (a development server).
func TestFetchUpgradesHTTP(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "secure")
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	// A name (the test certificate's), here resolved to the test server.
	plain := "http://example.com:" + port
	tlsConf := srv.Client().Transport.(*http.Transport).TLSClientConfig
	f := web.NewFetch(&web.FetchOptions{TLSConfig: tlsConf, Resolver: fakeResolver{"example.com": {"127.0.0.1"}}})
	res := call(t, f, permission.Default, []string{"WebFetch(domain:example.com)"}, input(plain, "q"))
	if res.Status != tool.StatusSuccess || !strings.Contains(res.Text(), "secure") || !strings.Contains(res.Text(), "https://example.com:"+port) {
		t.Errorf("%s: %s", res.Status, res.Text())
	}
	// A local address a rule names keeps http.
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "plain local")
	}))
	defer local.Close()
	if res := call(t, web.NewFetch(nil), permission.Default, localRule, input(local.URL, "q")); res.Status != tool.StatusSuccess || !strings.Contains(res.Text(), "plain local") {
		t.Errorf("a local http server: %s: %s", res.Status, res.Text())
	}
	if d := web.NewFetch(&web.FetchOptions{AllowHTTP: true}).Info().Description; strings.Contains(d, "upgraded") {
		t.Errorf("AllowHTTP description still says URLs are upgraded")
	}
}

func TestFetchErrors(t *testing.T) {
	srv := newServer(t)
	f := web.NewFetch(&web.FetchOptions{AllowHTTP: true, MaxBytes: 1000, Timeout: 300 * time.Millisecond, MaxRedirects: 3, Resolver: fakeResolver{}})
	for _, tt := range []struct{ url, want string }{
		{srv.URL + "/slow", "timed out after 300ms"},
		{srv.URL + "/big", "more than the limit of 1000"},
		{srv.URL + "/bigchunked", "more than the limit of 1000 bytes"},
		{srv.URL + "/missing", "404 Not Found"},
		{srv.URL + "/png", "image/png is not text"},
		{srv.URL + "/nul", "(text/plain) is not text"},
		{srv.URL + "/loop", "too many redirects (more than 3)"},
		{srv.URL + "/noloc", "without a Location"},
		{"ftp://example.com/x", `unsupported URL scheme "ftp"`},
		{"file:///etc/passwd", `unsupported URL scheme "file"`},
		{"javascript:alert(1)", `unsupported URL scheme "javascript"`},
		{"example.com/page", "not absolute"},
		{"http://exa mple.com/", "white space"},
		{"http://user:pw@example.com/", "user name or password"},
		{"http://0x7g.1/", "invalid IPv4 host"},
		{"http://256.1.1.1/", "invalid IPv4 host"},
		{"http://a..b/", "invalid host"},
		{"http://[::1%25eth0]/", "invalid IPv6 host"},
		{"http://example.com:99999/", "invalid port"},
		{"https://" + strings.Repeat("a", 2000) + ".com/", "longer than 2000"},
		{"http://nonexistent.invalid/", "no such host"},
	} {
		res := direct(t, f, localRule, input(tt.url, "q"))
		if !res.IsError() || !strings.Contains(res.Text(), tt.want) {
			t.Errorf("%.60s: %s: %s (want %q)", tt.url, res.Status, res.Text(), tt.want)
		}
	}
}

func TestFetchTruncates(t *testing.T) {
	srv := newServer(t)
	f := web.NewFetch(&web.FetchOptions{AllowHTTP: true, MaxContent: 100})
	res := direct(t, f, localRule, input(srv.URL+"/long", "q"))
	if res.IsError() || !strings.Contains(res.Text(), "word word") || !strings.Contains(res.Text(), "...[content truncated]") || len(res.Text()) > 400 {
		t.Errorf("%s: %s", res.Status, res.Text())
	}
	if res.Metadata["truncated"] != true {
		t.Errorf("metadata %v", res.Metadata)
	}
}

// A redirect to another host (or port, or scheme) is not followed: the
// model is told where it leads, as Claude Code does.
func TestFetchRedirectOtherHost(t *testing.T) {
	srv := newServer(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	f := web.NewFetch(&web.FetchOptions{AllowHTTP: true})
	for path, to := range map[string]string{"/other": "http://localhost:" + port + "/page", "/otherport": "http://127.0.0.1:1/page"} {
		res := direct(t, f, localRule, input(srv.URL+path, "the prompt"))
		if res.IsError() {
			t.Fatalf("%s: %s", path, res.Text())
		}
		for _, w := range []string{"REDIRECT DETECTED", "Redirect URL: " + to, `- url: "` + to + `"`, `- prompt: "the prompt"`, "Original URL: " + srv.URL + path} {
			if !strings.Contains(res.Text(), w) {
				t.Errorf("%s: result lacks %q:\n%s", path, w, res.Text())
			}
		}
		if res.Metadata["redirect"] != to {
			t.Errorf("%s: metadata %v", path, res.Metadata)
		}
	}
}

// Real servers on 127.0.0.1 are refused without a rule naming the host,
// whatever the mode and even when the user approved the call, and fetched
// with one.
func TestFetchLoopbackNeedsRule(t *testing.T) {
	srv := newServer(t)
	u, _ := url.Parse(srv.URL)
	f := web.NewFetch(&web.FetchOptions{AllowHTTP: true, Resolver: fakeResolver{"rebind.test": {"127.0.0.1"}, "mixed.test": {"93.184.216.34", "127.0.0.1"}}})
	for _, mode := range []permission.Mode{permission.Default, permission.Bypass, permission.AcceptEdits} {
		res := call(t, f, mode, nil, input(srv.URL+"/page", "q"))
		if res.Status != tool.StatusDenied || !strings.Contains(res.Text()+res.Decision.Message, "WebFetch(domain:127.0.0.1)") {
			t.Errorf("%s without a rule: %s: %s %+v", mode, res.Status, res.Text(), res.Decision)
		}
	}
	// A rule for another host does not do.
	if res := call(t, f, permission.Bypass, []string{"WebFetch(domain:example.com)", "WebFetch"}, input(srv.URL+"/page", "q")); res.Status != tool.StatusDenied {
		t.Errorf("with other rules: %s: %s", res.Status, res.Text())
	}
	if res := call(t, f, permission.Default, localRule, input(srv.URL+"/page", "q")); res.Status != tool.StatusSuccess {
		t.Errorf("with the rule: %s: %s", res.Status, res.Text())
	}
	// Approved by the user, the engine is not asked: the tool refuses.
	if res := direct(t, f, nil, input(srv.URL+"/page", "q")); !res.IsError() || !strings.Contains(res.Text(), "loopback") {
		t.Errorf("approved: %s: %s", res.Status, res.Text())
	}
	// A name that resolves to a loopback address is refused after the
	// lookup, in bypass mode too, unless a rule names it.
	for _, name := range []string{"rebind.test", "mixed.test"} {
		in := input("http://"+name+":"+u.Port()+"/page", "q")
		res := call(t, f, permission.Bypass, localRule, in)
		if !res.IsError() || !strings.Contains(res.Text(), name+" resolves to 127.0.0.1, a loopback address") {
			t.Errorf("%s: %s: %s", name, res.Status, res.Text())
		}
		res = call(t, f, permission.Default, []string{"WebFetch(domain:" + name + ")"}, in)
		if res.Status != tool.StatusSuccess || !strings.Contains(res.Text(), "# Title") {
			t.Errorf("%s with its rule: %s: %s", name, res.Status, res.Text())
		}
	}
}

func TestFetchPermissions(t *testing.T) {
	f := web.NewFetch(nil)
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{f}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		url   string
		mode  permission.Mode
		allow []string
		deny  []string
		want  permission.Behavior
	}{
		{"https://example.com/x", permission.Default, nil, nil, permission.Ask},
		{"https://example.com/x", permission.Default, []string{"WebFetch(domain:example.com)"}, nil, permission.Allow},
		{"http://EXAMPLE.com./x", permission.Default, []string{"WebFetch(domain:example.com)"}, nil, permission.Allow},
		{"https://example.com/x", permission.Default, []string{"WebFetch(domain:Example.COM.)"}, nil, permission.Allow},
		// Exactly the host, as in Claude Code: not its subdomains, not a suffix.
		{"https://docs.example.com/x", permission.Default, []string{"WebFetch(domain:example.com)"}, nil, permission.Ask},
		{"https://badexample.com/x", permission.Default, []string{"WebFetch(domain:example.com)"}, nil, permission.Ask},
		{"https://example.com/x", permission.Default, []string{"WebFetch(domain:*)"}, nil, permission.Ask},
		{"https://example.com/x", permission.Default, []string{"WebFetch(example.com)"}, nil, permission.Ask},
		{"https://example.com/x", permission.Default, []string{"WebFetch"}, nil, permission.Allow},
		{"https://bücher.example/x", permission.Default, []string{"WebFetch(domain:xn--bcher-kva.example)"}, nil, permission.Allow},
		{"https://example.com/x", permission.Bypass, nil, []string{"WebFetch(domain:example.com)"}, permission.Deny},
		{"https://example.com/x", permission.Default, []string{"WebFetch"}, []string{"WebFetch(nonsense)"}, permission.Deny},
		{"https://example.com/x", permission.DontAsk, nil, nil, permission.Deny},
		{"https://example.com/x", permission.Bypass, nil, nil, permission.Allow},
		// Non-public literals: only a rule naming the host opens them.
		{"http://127.0.0.1/", permission.Bypass, nil, nil, permission.Deny},
		{"http://127.0.0.1/", permission.Default, []string{"WebFetch(domain:127.0.0.1)"}, nil, permission.Allow},
		{"http://2130706433/", permission.Default, []string{"WebFetch(domain:127.0.0.1)"}, nil, permission.Allow},
		{"http://0x7f.1/", permission.Default, []string{"WebFetch(domain:127.0.0.1)"}, nil, permission.Allow},
		{"http://localhost:8080/", permission.Bypass, []string{"WebFetch(domain:127.0.0.1)"}, nil, permission.Deny},
		{"http://localhost:8080/", permission.Default, []string{"WebFetch(domain:localhost)"}, nil, permission.Allow},
		{"http://[::1]/", permission.Default, []string{"WebFetch(domain:[::1])"}, nil, permission.Deny}, // brackets: not a host
		{"http://[::1]/", permission.Default, []string{"WebFetch(domain:::1)"}, nil, permission.Allow},
		{"http://169.254.169.254/latest/meta-data/", permission.Bypass, []string{"WebFetch"}, nil, permission.Deny},
	} {
		pc := &permission.Context{Mode: tt.mode}
		for _, s := range tt.allow {
			r, err := permission.ParseRule(s)
			if err != nil {
				t.Fatal(err)
			}
			r.Behavior = permission.Allow
			pc.AddRule(r)
		}
		for _, s := range tt.deny {
			r, _ := permission.ParseRule(s)
			r.Behavior = permission.Deny
			pc.AddRule(r)
		}
		v, err := tk.Check(context.Background(), &tool.Call{Name: "WebFetch", Input: input(tt.url, "q"), State: tool.NewState(pc)})
		if err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		if v.Decision.Behavior != tt.want {
			t.Errorf("%s %s allow %v deny %v: %s (%s), want %s", tt.url, tt.mode, tt.allow, tt.deny, v.Decision.Behavior, v.Decision.Reason, tt.want)
		}
	}
}

func TestFetchSuggestion(t *testing.T) {
	got := web.NewFetch(nil).Suggestions(context.Background(), input("HTTPS://WWW.Example.com:8443/a?b", "q"))
	if len(got) != 1 || got[0].String() != "WebFetch(domain:www.example.com)" || got[0].Behavior != permission.Allow {
		t.Errorf("suggestions %v", got)
	}
}

// Proxies from the environment are not used: the connection goes to the
// address that was checked.
func TestFetchIgnoresProxyEnv(t *testing.T) {
	srv := newServer(t)
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	res := direct(t, web.NewFetch(&web.FetchOptions{AllowHTTP: true}), localRule, input(srv.URL+"/text", "q"))
	if res.IsError() {
		t.Errorf("%s", res.Text())
	}
}

// countingResolver counts its lookups.
type countingResolver struct {
	fakeResolver
	n int
}

func (r *countingResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.n++
	return r.fakeResolver.LookupNetIP(ctx, network, host)
}

// Every connection is checked, the redirects' too: a redirect on a new
// connection looks the host up again and checks the answer.
func TestFetchChecksEveryHop(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		if r.URL.Path == "/start" {
			http.Redirect(w, r, "/end", http.StatusFound)
			return
		}
		fmt.Fprint(w, "end")
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	r := &countingResolver{fakeResolver: fakeResolver{"hop.test": {"127.0.0.1"}}}
	f := web.NewFetch(&web.FetchOptions{AllowHTTP: true, Resolver: r})
	res := direct(t, f, []string{"WebFetch(domain:hop.test)"}, input("http://hop.test:"+u.Port()+"/start", "q"))
	if res.IsError() || !strings.Contains(res.Text(), "end") || r.n != 2 {
		t.Errorf("%d lookups: %s", r.n, res.Text())
	}
}
