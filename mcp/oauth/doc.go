// Package oauth authorizes a client's requests to a remote MCP server as
// the MCP authorization spec (revisions 2025-11-25 and 2026-07-28) asks:
// OAuth 2.1 with PKCE, the authorization server found from the MCP
// server's own metadata, tokens bound to the server (RFC 8707).
//
// Two pieces split the work. [Login] is interactive: it runs once, with
// the user and a browser, and stores a token. [Transport] is not: it adds
// the stored token to every request to the server, refreshes it, and when
// only the user can help (no token, a refresh refused, more scope needed)
// it fails with a [*LoginRequiredError] whose message says what to run.
// A server that needs no authorization is reached through a Transport as
// through any other.
//
//	cfg := &oauth.Config{OpenURL: openBrowser}
//	if err := oauth.Login(ctx, "https://mcp.example.com/mcp", cfg); err != nil { ... }
//	// later, in any process of the same user:
//	hc := &http.Client{Transport: oauth.NewTransport("https://mcp.example.com/mcp", nil, nil)}
//
// # What Login does
//
//  1. It sends the server an MCP initialize without a token. The 401's
//     WWW-Authenticate Bearer challenge may name the server's protected
//     resource metadata (resource_metadata) and the scope it wants.
//  2. It fetches the protected resource metadata (RFC 9728): from the
//     challenge's URL, else /.well-known/oauth-protected-resource with
//     the server's path, else at the root. The metadata's resource must
//     be the server or a parent path of it on the same origin; a document
//     naming another origin is refused, so that no token is ever asked
//     for, or sent to, another server. Without any metadata (a server of
//     the 2025-03-26 revision) the server's origin is the authorization
//     server.
//  3. It fetches the first authorization server's metadata: RFC 8414
//     /.well-known/oauth-authorization-server, then OpenID Connect
//     /.well-known/openid-configuration, with the issuer's path inserted
//     after the well-known prefix (and, for OpenID, appended), and checks
//     the issuer. An authorization server that does not advertise PKCE
//     with S256 is refused, as the spec requires. Every endpoint must be
//     https, or http on a loopback address.
//  4. It picks the client, in the spec's order: the configured client
//     (Config.ClientID); a Client ID Metadata Document
//     (Config.ClientMetadataURL, where the authorization server accepts
//     them); the client it registered dynamically before; a new dynamic
//     registration (RFC 7591, application_type native, a public client).
//     The 2026-07-28 revision prefers metadata documents, but a document
//     must be published at an https URL, which a command-line tool does
//     not have; dynamic registration stays its way in.
//  5. It opens the authorization URL (Config.OpenURL) with a PKCE S256
//     challenge, a random state, the resource parameter and the scope: the
//     challenge's, else the metadata's scopes_supported, with the scope
//     granted before and any scope a server asked for since (step-up), and
//     offline_access where the authorization server offers it. The
//     browser comes back to http://127.0.0.1:PORT/callback; an answer with
//     another state, or from another issuer (RFC 9207), is refused.
//  6. It exchanges the code, with the verifier and the resource, and
//     stores the token.
//
// # Where tokens are kept
//
// In Config.Dir, by default [DefaultDir] (~/.config/toolscope/mcp-oauth
// on Linux): one directory (mode 0700) per server, named by a hash of the
// server's canonical URL, holding token.json (mode 0600) with the token,
// the refresh token and the client registration. Never in a project.
// Every change replaces the file whole (a temporary file, synced and
// renamed) under a lock on the directory (flock(2), so other processes'
// too); a refresh reads the file again under the lock and uses a token
// another process refreshed meanwhile, so a rotated refresh token is
// spent once. Tokens are never logged nor put in errors.
package oauth
