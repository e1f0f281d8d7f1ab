package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// tokenResponse is a token endpoint's answer (RFC 6749 §5.1, §5.2).
type tokenResponse struct {
	AccessToken  string          `json:"access_token"`
	TokenType    string          `json:"token_type"`
	ExpiresIn    json.RawMessage `json:"expires_in"` // a number; some servers send a string
	RefreshToken string          `json:"refresh_token"`
	Scope        string          `json:"scope"`
}

// TokenError is an authorization server's refusal of a token request
// (RFC 6749 §5.2): Code is its error code (invalid_grant: the refresh
// token or code is no longer valid).
type TokenError struct {
	Status      int
	Code        string
	Description string
}

func (e *TokenError) Error() string {
	msg := fmt.Sprintf("the token endpoint answered %d", e.Status)
	if e.Code != "" {
		msg += " " + e.Code
	}
	if e.Description != "" {
		msg += ": " + e.Description
	}
	return msg
}

// requestToken posts form to e's token endpoint, authenticating as e's
// client, and returns the token. Neither the form nor the answer's token
// ever goes into an error.
func requestToken(ctx context.Context, hc *http.Client, e *entry, form url.Values) (*tokenResponse, error) {
	if _, err := secureURL(e.TokenEndpoint); err != nil {
		return nil, fmt.Errorf("token endpoint: %w", err)
	}
	switch e.AuthMethod {
	case "client_secret_post":
		form.Set("client_id", e.ClientID)
		form.Set("client_secret", e.ClientSecret)
	case "client_secret_basic":
	default:
		form.Set("client_id", e.ClientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if e.AuthMethod == "client_secret_basic" {
		req.SetBasicAuth(url.QueryEscape(e.ClientID), url.QueryEscape(e.ClientSecret))
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var te struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		json.Unmarshal(body, &te)
		return nil, &TokenError{Status: resp.StatusCode, Code: printable(te.Error, 64), Description: printable(te.Description, 200)}
	}
	var tr tokenResponse
	if err := json.Unmarshal(body, &tr); err != nil {
		return nil, fmt.Errorf("token endpoint %s: the answer is not a token (%v)", e.TokenEndpoint, err)
	}
	if tr.AccessToken == "" {
		return nil, fmt.Errorf("token endpoint %s: the answer has no access_token", e.TokenEndpoint)
	}
	if !strings.EqualFold(tr.TokenType, "bearer") {
		return nil, fmt.Errorf("token endpoint %s: token type %q, want Bearer", e.TokenEndpoint, printable(tr.TokenType, 32))
	}
	return &tr, nil
}

// apply stores the token of tr in e. A refresh that returns no new refresh
// token keeps the old one (RFC 6749 §6), and no scope the old scope.
func (e *entry) apply(tr *tokenResponse, now time.Time) {
	e.AccessToken = tr.AccessToken
	if tr.RefreshToken != "" {
		e.RefreshToken = tr.RefreshToken
	}
	if tr.Scope != "" {
		e.Scope = tr.Scope
	}
	e.Expiry = time.Time{}
	if s := strings.Trim(string(tr.ExpiresIn), `"`); s != "" && s != "null" {
		if n, err := strconv.ParseFloat(s, 64); err == nil && n > 0 {
			e.Expiry = now.Add(time.Duration(n * float64(time.Second))).UTC().Truncate(time.Second)
		}
	}
}

// printable is s cut to n bytes, its control characters dropped: text of
// a server's that goes into a message.
func printable(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}
