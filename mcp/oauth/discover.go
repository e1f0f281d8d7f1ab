package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// resourceMeta is the part of RFC 9728 Protected Resource Metadata used
// here.
type resourceMeta struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// serverMeta is the part of RFC 8414 Authorization Server Metadata (or
// OpenID Connect Discovery) used here.
type serverMeta struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`
}

// maxMetadata bounds a metadata document.
const maxMetadata = 1 << 20

// getJSON fetches the JSON document at u into v. found is false when the
// server answered with another status than 200 (the caller tries the
// next place); an error is a failure to reach it or a bad document.
func getJSON(ctx context.Context, hc *http.Client, u string, v any) (found bool, err error) {
	if _, err := secureURL(u); err != nil {
		return false, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadata))
		return false, nil
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return false, fmt.Errorf("%s: not JSON (Content-Type %q)", u, resp.Header.Get("Content-Type"))
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadata)).Decode(v); err != nil {
		return false, fmt.Errorf("%s: %v", u, err)
	}
	return true, nil
}

// wellKnown is u's origin with the well-known name, then u's path
// (RFC 8615 insertion): /.well-known/NAME/PATH.
func wellKnown(u *url.URL, name string, withPath bool) string {
	w := url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/.well-known/" + name}
	if p := strings.TrimSuffix(u.Path, "/"); withPath && p != "" {
		w.Path += p
	}
	return w.String()
}

// discoverResource finds the server's protected resource metadata: at
// the URL of the challenge's resource_metadata, else at the well-known
// URI with the server's path, else at the root. It returns nil when there
// is none (a server of the 2025-03-26 revision).
//
// The metadata's resource must be the server or a prefix of it on the
// same origin (RFC 9728 §3.3): a document naming another resource is
// refused, since a token for that resource must not be asked for, nor
// sent to it.
func discoverResource(ctx context.Context, hc *http.Client, server *url.URL, challengeURL string) (*resourceMeta, error) {
	var places []string
	if challengeURL != "" {
		places = append(places, challengeURL)
	}
	if p := strings.TrimSuffix(server.Path, "/"); p != "" {
		places = append(places, wellKnown(server, "oauth-protected-resource", true))
	}
	places = append(places, wellKnown(server, "oauth-protected-resource", false))
	var firstErr error
	for _, u := range places {
		var m resourceMeta
		found, err := getJSON(ctx, hc, u, &m)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("protected resource metadata: %w", err)
			}
			continue
		}
		if !found {
			continue
		}
		if err := checkResource(server, m.Resource); err != nil {
			return nil, fmt.Errorf("protected resource metadata at %s: %w", u, err)
		}
		if len(m.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("protected resource metadata at %s names no authorization server", u)
		}
		return &m, nil
	}
	if firstErr != nil && challengeURL != "" {
		return nil, firstErr
	}
	return nil, nil
}

// checkResource checks that resource, a protected resource's identifier,
// covers the server: same origin, and a path that is the server's or one
// of its parents.
func checkResource(server *url.URL, resource string) error {
	r, err := url.Parse(resource)
	if err != nil || r.Host == "" {
		return fmt.Errorf("resource %q is not an absolute URL", resource)
	}
	if origin(r) != origin(server) {
		return fmt.Errorf("it is for resource %s, not for this server (%s); refusing to get a token for another origin", resource, canonical(server))
	}
	rp, sp := strings.TrimSuffix(r.Path, "/"), strings.TrimSuffix(server.Path, "/")
	if sp != rp && !strings.HasPrefix(sp, rp+"/") {
		return fmt.Errorf("it is for resource %s, which does not cover this server (%s)", resource, canonical(server))
	}
	return nil
}

// discoverServer fetches the metadata of the authorization server issuer:
// RFC 8414 then OpenID Connect Discovery, with the issuer's path inserted
// after the well-known prefix (and, for OpenID, appended), in the order
// the MCP spec gives. It returns nil when none of them has it.
//
// The metadata must be for issuer (RFC 8414 §3.3), except where legacy
// is set: a server of the 2025-03-26 revision serves its authorization
// server's metadata at its own origin, whatever the issuer is called.
func discoverServer(ctx context.Context, hc *http.Client, issuer string, legacy bool) (*serverMeta, error) {
	iu, err := secureURL(issuer)
	if err != nil {
		return nil, fmt.Errorf("authorization server: %w", err)
	}
	var places []string
	if p := strings.TrimSuffix(iu.Path, "/"); p != "" {
		places = []string{
			wellKnown(iu, "oauth-authorization-server", true),
			wellKnown(iu, "openid-configuration", true),
			(&url.URL{Scheme: iu.Scheme, Host: iu.Host, Path: p + "/.well-known/openid-configuration"}).String(),
		}
	} else {
		places = []string{wellKnown(iu, "oauth-authorization-server", false), wellKnown(iu, "openid-configuration", false)}
	}
	for _, u := range places {
		var m serverMeta
		found, err := getJSON(ctx, hc, u, &m)
		if err != nil {
			return nil, fmt.Errorf("authorization server metadata: %w", err)
		}
		if !found {
			continue
		}
		if legacy && m.Issuer == "" {
			m.Issuer = issuer
		} else if legacy {
			if _, err := secureURL(m.Issuer); err != nil {
				return nil, fmt.Errorf("authorization server metadata at %s: issuer %w", u, err)
			}
		} else if strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, fmt.Errorf("authorization server metadata at %s is for issuer %q, not %q", u, m.Issuer, issuer)
		}
		for _, e := range []string{m.AuthorizationEndpoint, m.TokenEndpoint} {
			if _, err := secureURL(e); err != nil {
				return nil, fmt.Errorf("authorization server %s: endpoint %w", issuer, err)
			}
		}
		if m.RegistrationEndpoint != "" {
			if _, err := secureURL(m.RegistrationEndpoint); err != nil {
				return nil, fmt.Errorf("authorization server %s: registration endpoint %w", issuer, err)
			}
		}
		return &m, nil
	}
	return nil, nil
}

// checkPKCE refuses an authorization server that does not advertise PKCE
// with S256: the MCP spec requires the client to refuse then, since it
// cannot know that the server checks the code verifier.
func checkPKCE(m *serverMeta) error {
	if !slices.Contains(m.CodeChallengeMethodsSupported, "S256") {
		return fmt.Errorf("authorization server %s does not advertise PKCE with S256 (code_challenge_methods_supported: %q); refusing to authorize with it", m.Issuer, m.CodeChallengeMethodsSupported)
	}
	return nil
}
