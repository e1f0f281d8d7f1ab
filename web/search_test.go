package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/tool/tooltest"
	"github.com/toolscope/toolscope/web"
)

// braveAnswer is an answer in the documented format of the Brave Search
// API's web search (WebSearchApiResponse), trimmed to a few fields of
// each kind.
const braveAnswer = `{
  "type": "search",
  "query": {"original": "go iterators", "more_results_available": true},
  "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": false}]},
  "web": {
    "type": "search",
    "family_friendly": true,
    "results": [
      {"type": "search_result", "title": "Range over function types - The <strong>Go</strong> Programming Language", "url": "https://go.dev/blog/range-functions", "is_source_local": false, "is_source_both": false, "description": "Go 1.23 added <strong>iterators</strong> &amp; range-over-func.", "age": "August 20, 2024", "language": "en", "family_friendly": true, "meta_url": {"scheme": "https", "netloc": "go.dev", "hostname": "go.dev", "favicon": "https://imgs.search.brave.com/x", "path": "› blog › range-functions"}, "extra_snippets": ["more"]},
      {"type": "search_result", "title": "iter package", "url": "https://pkg.go.dev/iter", "description": "Package iter provides basic definitions.", "meta_url": {"hostname": "pkg.go.dev"}},
      {"type": "search_result", "title": "Go iterators explained", "url": "https://blog.example.com/go-iterators", "description": "A blog post.", "meta_url": {"hostname": "blog.example.com"}},
      {"type": "search_result", "title": "bad", "url": "javascript:alert(1)", "description": "not a link"}
    ]
  }
}`

// fakeBrave is a local Brave Search API: it checks the request as the
// documentation describes it and answers with answer.
func fakeBrave(t *testing.T, status int, answer string, seen *http.Request) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if seen != nil {
			*seen = *r.Clone(context.Background())
		}
		if r.Method != http.MethodGet || r.URL.Path != "/res/v1/web/search" || r.Header.Get("Accept") != "application/json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if r.Header.Get("X-Subscription-Token") != "test-key" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"type":"ErrorResponse","error":{"id":"x","status":401,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid."}}`))
			return
		}
		if r.URL.Query().Get("q") == "slow" {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(answer))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func searchIn(q string, allowed, blocked []string) json.RawMessage {
	m := map[string]any{"query": q}
	if allowed != nil {
		m["allowed_domains"] = allowed
	}
	if blocked != nil {
		m["blocked_domains"] = blocked
	}
	b, _ := json.Marshal(m)
	return b
}

func newSearch(srv *httptest.Server, key string) *web.Search {
	return web.NewSearch(&web.SearchOptions{Timeout: 300 * time.Millisecond,
		Provider: web.NewBrave(&web.BraveOptions{Key: key, Endpoint: srv.URL + "/res/v1/web/search"})})
}

func TestSearchConformance(t *testing.T) {
	tooltest.Run(t, web.NewSearch(nil), &tooltest.Options{Inputs: []json.RawMessage{searchIn("go iterators", nil, nil)}})
}

func TestSearchBrave(t *testing.T) {
	var seen http.Request
	srv := fakeBrave(t, http.StatusOK, braveAnswer, &seen)
	res := call(t, newSearch(srv, "test-key"), permission.Default, []string{"WebSearch"}, searchIn("go iterators", nil, nil))
	if res.Status != tool.StatusSuccess {
		t.Fatalf("%s: %s", res.Status, res.Text())
	}
	want := `Web search results for query: "go iterators"

Links: [{"title":"Range over function types - The Go Programming Language","url":"https://go.dev/blog/range-functions","snippet":"Go 1.23 added iterators \u0026 range-over-func."},{"title":"iter package","url":"https://pkg.go.dev/iter","snippet":"Package iter provides basic definitions."},{"title":"Go iterators explained","url":"https://blog.example.com/go-iterators","snippet":"A blog post."}]

1. [Range over function types - The Go Programming Language](https://go.dev/blog/range-functions)
   Go 1.23 added iterators & range-over-func.
2. [iter package](https://pkg.go.dev/iter)
   Package iter provides basic definitions.
3. [Go iterators explained](https://blog.example.com/go-iterators)
   A blog post.

REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.`
	if res.Text() != want {
		t.Errorf("got\n%s\nwant\n%s", res.Text(), want)
	}
	if q := seen.URL.Query(); q.Get("q") != "go iterators" || q.Get("count") != "20" {
		t.Errorf("request %v", seen.URL)
	}
}

func TestSearchDomains(t *testing.T) {
	var seen http.Request
	srv := fakeBrave(t, http.StatusOK, braveAnswer, &seen)
	s := newSearch(srv, "test-key")
	for _, tt := range []struct {
		allowed, blocked []string
		want, not        []string
	}{
		{[]string{"go.dev"}, nil, []string{"go.dev/blog", "pkg.go.dev/iter"}, []string{"example.com"}},
		{[]string{"https://pkg.go.dev/x"}, nil, []string{"pkg.go.dev/iter"}, []string{"go.dev/blog", "example.com"}},
		{nil, []string{"*.go.dev", "go.dev"}, []string{"blog.example.com"}, []string{"go.dev/blog", "pkg.go.dev"}},
		{[]string{"nothing.example"}, nil, []string{"No results found."}, []string{"go.dev", "REMINDER"}},
	} {
		res := direct(t, s, nil, searchIn("go iterators", tt.allowed, tt.blocked))
		for _, w := range tt.want {
			if !strings.Contains(res.Text(), w) {
				t.Errorf("%v %v: lacks %q:\n%s", tt.allowed, tt.blocked, w, res.Text())
			}
		}
		for _, w := range tt.not {
			if strings.Contains(res.Text(), w) {
				t.Errorf("%v %v: has %q:\n%s", tt.allowed, tt.blocked, w, res.Text())
			}
		}
	}
	direct(t, s, nil, searchIn("go", []string{"go.dev"}, nil))
	if q := seen.URL.Query().Get("q"); q != "go site:go.dev" {
		t.Errorf("one allowed domain: q=%q", q)
	}
}

func TestSearchErrors(t *testing.T) {
	ok := fakeBrave(t, http.StatusOK, braveAnswer, nil)
	for _, tt := range []struct {
		name string
		s    *web.Search
		in   json.RawMessage
		want string
	}{
		{"bad key", newSearch(ok, "wrong"), searchIn("go", nil, nil), "401 SUBSCRIPTION_TOKEN_INVALID: The provided subscription token is invalid."},
		{"rate limited", newSearch(fakeBrave(t, http.StatusTooManyRequests, `{"type":"ErrorResponse","error":{"status":429,"code":"RATE_LIMITED","detail":"Request rate limit exceeded for plan."}}`, nil), "test-key"), searchIn("go", nil, nil), "429 RATE_LIMITED"},
		{"server error", newSearch(fakeBrave(t, http.StatusBadGateway, `<html>`, nil), "test-key"), searchIn("go", nil, nil), "502 Bad Gateway"},
		{"bad json", newSearch(fakeBrave(t, http.StatusOK, `{"web":`, nil), "test-key"), searchIn("go", nil, nil), "reading the answer"},
		{"timeout", newSearch(ok, "test-key"), searchIn("slow", nil, nil), "timed out after 300ms"},
		{"short query", newSearch(ok, "test-key"), searchIn(" a ", nil, nil), "at least 2 characters"},
		{"both lists", newSearch(ok, "test-key"), searchIn("go", []string{"a.com"}, []string{"b.com"}), "not both"},
		{"bad domain", newSearch(ok, "test-key"), searchIn("go", []string{"a b"}, nil), `"a b" is not a domain`},
		{"no server", web.NewSearch(&web.SearchOptions{Provider: web.NewBrave(&web.BraveOptions{Key: "k", Endpoint: "http://127.0.0.1:1/"})}), searchIn("go", nil, nil), "the search failed"},
	} {
		res := direct(t, tt.s, nil, tt.in)
		if !res.IsError() || !strings.Contains(res.Text(), tt.want) {
			t.Errorf("%s: %s: %s (want %q)", tt.name, res.Status, res.Text(), tt.want)
		}
	}
	t.Setenv("BRAVE_API_KEY", "")
	if res := direct(t, newSearch(ok, ""), nil, searchIn("go", nil, nil)); !strings.Contains(res.Text(), "set BRAVE_API_KEY") {
		t.Errorf("no key: %s", res.Text())
	}
	t.Setenv("BRAVE_API_KEY", "test-key")
	if res := direct(t, newSearch(ok, ""), nil, searchIn("go", nil, nil)); res.IsError() {
		t.Errorf("key from the environment: %s", res.Text())
	}
}

func TestSearchPermissions(t *testing.T) {
	s := web.NewSearch(nil)
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{s}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		mode  permission.Mode
		allow string
		want  permission.Behavior
	}{
		{permission.Default, "", permission.Ask},
		{permission.Default, "WebSearch", permission.Allow},
		{permission.Default, "WebSearch(domain:go.dev)", permission.Ask}, // content: cannot be evaluated, fails closed
		{permission.Explore, "", permission.Deny},
		{permission.Bypass, "", permission.Allow},
	} {
		pc := &permission.Context{Mode: tt.mode}
		if tt.allow != "" {
			r, _ := permission.ParseRule(tt.allow)
			r.Behavior = permission.Allow
			pc.AddRule(r)
		}
		v, err := tk.Check(context.Background(), &tool.Call{Name: "WebSearch", Input: searchIn("go", nil, nil), State: tool.NewState(pc)})
		if err != nil {
			t.Fatal(err)
		}
		if v.Decision.Behavior != tt.want {
			t.Errorf("%s %q: %s, want %s", tt.mode, tt.allow, v.Decision.Behavior, tt.want)
		}
	}
}
