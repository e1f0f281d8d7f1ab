package web

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// BraveEndpoint is the Brave Search API's web search endpoint.
const BraveEndpoint = "https://api.search.brave.com/res/v1/web/search"

// BraveOptions configures [NewBrave].
type BraveOptions struct {
	// Key is the API key (the X-Subscription-Token header). "" means the
	// BRAVE_API_KEY environment variable, read at each search.
	Key string
	// Endpoint is the search endpoint; "" means [BraveEndpoint].
	Endpoint string
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
}

// Brave is a [Provider] for the Brave Search API
// (https://api-dashboard.search.brave.com/docs): a GET of the web search
// endpoint with the query in q and the key in X-Subscription-Token, whose
// JSON answer lists the results in web.results.
type Brave struct{ o BraveOptions }

// NewBrave returns a Brave Search provider. Nil options mean the
// defaults.
func NewBrave(opts *BraveOptions) *Brave {
	var o BraveOptions
	if opts != nil {
		o = *opts
	}
	o.Endpoint = cmp.Or(o.Endpoint, BraveEndpoint)
	if o.Client == nil {
		o.Client = http.DefaultClient
	}
	return &Brave{o: o}
}

// braveResponse is the part of Brave's WebSearchApiResponse used here.
type braveResponse struct {
	Web struct {
		Results []struct {
			Title         string   `json:"title"`
			URL           string   `json:"url"`
			Description   string   `json:"description"`
			ExtraSnippets []string `json:"extra_snippets"`
		} `json:"results"`
	} `json:"web"`
}

// braveError is Brave's error answer.
type braveError struct {
	Error struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	} `json:"error"`
}

// maxBraveResponse bounds the answer read.
const maxBraveResponse = 4 << 20

// Search implements [Provider]. One allowed domain is also given to Brave
// as a site: operator, so that its results are not all filtered away.
func (b *Brave) Search(ctx context.Context, q *Query) ([]Result, error) {
	key := cmp.Or(b.o.Key, os.Getenv("BRAVE_API_KEY"))
	if key == "" {
		return nil, fmt.Errorf("no Brave Search API key: set BRAVE_API_KEY")
	}
	query := q.Query
	if len(q.AllowedDomains) == 1 {
		query += " site:" + q.AllowedDomains[0]
	}
	v := url.Values{"q": {query}, "count": {strconv.Itoa(min(max(q.Count*2, 1), 20))}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.o.Endpoint+"?"+v.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", key)
	resp, err := b.o.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBraveResponse+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxBraveResponse {
		return nil, fmt.Errorf("Brave Search answered more than %d bytes", maxBraveResponse)
	}
	if resp.StatusCode != http.StatusOK {
		var e braveError
		if json.Unmarshal(body, &e) == nil && e.Error.Detail != "" {
			return nil, fmt.Errorf("Brave Search: %d %s: %s", resp.StatusCode, e.Error.Code, e.Error.Detail)
		}
		return nil, fmt.Errorf("Brave Search: %s", resp.Status)
	}
	var r braveResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("Brave Search: reading the answer: %v", err)
	}
	var out []Result
	for _, x := range r.Web.Results {
		out = append(out, Result{Title: stripTags(x.Title), URL: x.URL, Snippet: stripTags(x.Description)})
	}
	return out, nil
}

// stripTags removes the <strong> marks Brave puts around matched words
// and unescapes its entities.
func stripTags(s string) string {
	s, _ = Markdown([]byte(s), nil, 4096)
	return strings.NewReplacer("**", "", "\n", " ").Replace(s)
}
