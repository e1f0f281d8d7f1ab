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
	for range 3 {
		err = use(ctx, server, cfg)
		if !errors.Is(err, oauth.ErrLoginRequired) {
			return err
		}
		fmt.Fprintln(os.Stderr, "confclient:", err)
		if err := oauth.Login(ctx, server, cfg); err != nil {
			return err
		}
	}
	return err
}

func use(ctx context.Context, server string, cfg *oauth.Config) error {
	hc := &http.Client{Transport: oauth.NewTransport(server, nil, cfg)}
	c := sdk.NewClient(&sdk.Implementation{Name: "toolscope-confclient", Version: "0.1"}, nil)
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: server, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
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
