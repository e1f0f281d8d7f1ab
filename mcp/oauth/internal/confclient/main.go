// Command confclient is a client for the MCP conformance suite's auth/*
// client scenarios: it logs in with package oauth (the suite's
// authorization server approves at once), then lists the server's tools
// and calls them through an oauth.Transport, logging in again when the
// Transport says a login is needed (step-up), at most three times.
//
//	npx @modelcontextprotocol/conformance client --command "go run ./mcp/oauth/internal/confclient" --scenario auth/metadata-default
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/mcp/oauth"
)

// cimdURL is the client metadata document URL the suite's basic-cimd
// scenario expects.
const cimdURL = "https://conformance-test.local/client-metadata.json"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "confclient:", err)
		os.Exit(1)
	}
}

func run() error {
	server := os.Args[len(os.Args)-1]
	var cc struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &cc)
	dir, err := os.MkdirTemp("", "confclient")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := &oauth.Config{Dir: dir, ClientID: cc.ClientID, ClientSecret: cc.ClientSecret, ClientMetadataURL: cimdURL, OpenURL: browse}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Log in first, as the toolscope command does (toolscope mcp login):
	// under 2026-07-28 the SDK's server/discover, refused, would fall
	// back to initialize and hide the 401.
	logins := 0
	if st, _ := oauth.Lookup(server, cfg); !st.LoggedIn {
		if err := oauth.Login(ctx, server, cfg); err != nil {
			return err
		}
		logins++
	}
	for {
		err = use(ctx, server, cfg)
		if !errors.Is(err, oauth.ErrLoginRequired) || logins == 3 {
			return err
		}
		fmt.Fprintln(os.Stderr, "confclient:", err)
		if err := oauth.Login(ctx, server, cfg); err != nil {
			return err
		}
		logins++
	}
}

func use(ctx context.Context, server string, cfg *oauth.Config) error {
	// The SDK's 2026-07-28 client falls back to initialize when its
	// server/discover fails, which hides the Transport's error: keep it.
	rec := &recorder{next: oauth.NewTransport(server, nil, cfg)}
	hc := &http.Client{Transport: rec}
	c := sdk.NewClient(&sdk.Implementation{Name: "toolscope-confclient", Version: "0.1"}, nil)
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: server, HTTPClient: hc, DisableStandaloneSSE: true},
		&sdk.ClientSessionOptions{ProtocolVersion: os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")})
	if err != nil {
		if rec.err != nil {
			return rec.err
		}
		return err
	}
	defer s.Close()
	res, err := s.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	for _, t := range res.Tools {
		if _, err := s.CallTool(ctx, &sdk.CallToolParams{Name: t.Name, Arguments: map[string]any{}}); err != nil {
			return err
		}
	}
	return nil
}

// browse does what a browser does when the user agrees: it follows the
// authorization server's redirects to the callback.
func browse(u string) error {
	hc := &http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Get(u)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

type recorder struct {
	next http.RoundTripper
	err  error
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if errors.Is(err, oauth.ErrLoginRequired) && r.err == nil {
		r.err = err
	}
	return resp, err
}
