package web

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strings"
	"time"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

//go:embed search.md
var searchDescription string

// DefaultMaxResults is how many results WebSearch gives back at most.
const DefaultMaxResults = 10

// Provider is a web search engine.
type Provider interface {
	// Search runs q. The results need not respect q's domain lists:
	// WebSearch filters them again.
	Search(ctx context.Context, q *Query) ([]Result, error)
}

// Query is one search.
type Query struct {
	Query string
	// AllowedDomains, when not empty, keeps only results from these
	// domains (and their subdomains); BlockedDomains drops results from
	// them. At most one of the two is set.
	AllowedDomains []string
	BlockedDomains []string
	// Count is how many results are wanted.
	Count int
}

// Result is one search result.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
}

// SearchOptions configures [NewSearch].
type SearchOptions struct {
	// Provider runs the searches. Nil means [NewBrave](nil): the Brave
	// Search API with the key in the BRAVE_API_KEY environment variable.
	Provider Provider
	// MaxResults bounds the results given back; 0 means
	// [DefaultMaxResults].
	MaxResults int
	// Timeout bounds a search; 0 means 30 seconds.
	Timeout time.Duration
}

// Search is the WebSearch tool. See the package documentation.
type Search struct{ o SearchOptions }

// NewSearch returns the WebSearch tool. Nil options mean the defaults.
func NewSearch(opts *SearchOptions) *Search {
	var o SearchOptions
	if opts != nil {
		o = *opts
	}
	if o.Provider == nil {
		o.Provider = NewBrave(nil)
	}
	if o.MaxResults <= 0 {
		o.MaxResults = DefaultMaxResults
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	return &Search{o: o}
}

type searchInput struct {
	Query          string   `json:"query"`
	AllowedDomains []string `json:"allowed_domains,omitempty"`
	BlockedDomains []string `json:"blocked_domains,omitempty"`
}

var searchSchema = json.RawMessage(`{"type":"object","properties":{
"query":{"type":"string","minLength":2,"description":"The search query to use"},
"allowed_domains":{"type":"array","items":{"type":"string"},"description":"Only include search results from these domains"},
"blocked_domains":{"type":"array","items":{"type":"string"},"description":"Never include search results from these domains"}},
"required":["query"]}`)

// Info implements [tool.Tool]. Like WebFetch, WebSearch changes nothing
// but is not ReadOnly for the permission engine: the query leaves the
// machine, so a search asks unless a WebSearch rule allows it, as in
// Claude Code. WebSearch rules have no content.
func (s *Search) Info() tool.Info {
	t, fa := true, false
	return tool.Info{Name: "WebSearch", Title: "Search the web", Description: searchDescription, InputSchema: searchSchema,
		ConcurrencySafe: true, Annotations: &tool.Annotations{ReadOnlyHint: &t, DestructiveHint: &fa, IdempotentHint: &fa, OpenWorldHint: &t}}
}

// SchemaTested implements [tool.TestedSchema].
func (s *Search) SchemaTested() {}

// CheckPermissions implements [tool.Tool]: no opinion; the rules and the
// mode decide.
func (s *Search) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Passthrough}, nil
}

// Call implements [tool.Tool].
func (s *Search) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		var in searchInput
		_ = json.Unmarshal(call.Input, &in)
		yield(s.search(ctx, in), nil)
	}
}

func (s *Search) search(ctx context.Context, in searchInput) *tool.Chunk {
	start := time.Now()
	q := strings.TrimSpace(in.Query)
	if len(q) < 2 {
		return tool.Errorf("Error: the query must have at least 2 characters")
	}
	if len(in.AllowedDomains) > 0 && len(in.BlockedDomains) > 0 {
		return tool.Errorf("Error: give allowed_domains or blocked_domains, not both")
	}
	allowed, err := domains(in.AllowedDomains)
	if err != nil {
		return tool.Errorf("Error: allowed_domains: %v", err)
	}
	blocked, err := domains(in.BlockedDomains)
	if err != nil {
		return tool.Errorf("Error: blocked_domains: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.o.Timeout)
	defer cancel()
	res, err := s.o.Provider.Search(ctx, &Query{Query: q, AllowedDomains: allowed, BlockedDomains: blocked, Count: s.o.MaxResults})
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return tool.Errorf("Error: the search timed out after %v", s.o.Timeout)
		}
		return tool.Errorf("Error: the search failed: %v", err)
	}
	var kept []Result
	for _, r := range res {
		host := resultHost(r.URL)
		if host == "" || len(allowed) > 0 && !inDomains(host, allowed) || inDomains(host, blocked) {
			continue
		}
		kept = append(kept, Result{Title: oneLine(r.Title), URL: r.URL, Snippet: strings.Join(strings.Fields(r.Snippet), " ")})
		if len(kept) == s.o.MaxResults {
			break
		}
	}
	links, _ := json.Marshal(kept)
	var b strings.Builder
	fmt.Fprintf(&b, "Web search results for query: %q\n\n", q)
	if len(kept) == 0 {
		b.WriteString("No results found.\n")
	} else {
		fmt.Fprintf(&b, "Links: %s\n\n", links)
		for i, r := range kept {
			fmt.Fprintf(&b, "%d. [%s](%s)\n", i+1, r.Title, r.URL)
			if r.Snippet != "" {
				fmt.Fprintf(&b, "   %s\n", r.Snippet)
			}
		}
		b.WriteString("\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.")
	}
	return &tool.Chunk{Content: []tool.Block{tool.TextBlock(strings.TrimRight(b.String(), "\n"))},
		Metadata: map[string]any{"query": q, "results": len(kept), "durationSeconds": time.Since(start).Seconds()}}
}

// domains canonicalises a list of domains: "docs.example.com",
// "https://example.com/path" and "*.example.com" name a host (and, when
// filtering, its subdomains).
func domains(list []string) ([]string, error) {
	var out []string
	for _, d := range list {
		d = strings.TrimSpace(d)
		if u, err := url.Parse(d); err == nil && u.Host != "" {
			d = u.Hostname()
		}
		d = strings.TrimPrefix(d, "*.")
		h, _, err := canonicalHost(d)
		if err != nil {
			return nil, fmt.Errorf("%q is not a domain", d)
		}
		out = append(out, h)
	}
	return out, nil
}

func resultHost(raw string) string {
	t, err := parseTarget(raw)
	if err != nil {
		return ""
	}
	return t.host
}

// inDomains reports whether host is one of list or a subdomain of one.
func inDomains(host string, list []string) bool {
	for _, d := range list {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}
