package host

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/toolscope/toolscope/mcp/oauth"
)

// oauthConfig is the "oauth" key of a remote server's entry, in Claude
// Code's shape: {"clientId": "...", "callbackPort": 8080}, for an
// authorization server without dynamic client registration (the client
// registered there beforehand, with redirect URI
// http://127.0.0.1:PORT/callback). "scopes" replaces the scopes the
// server names. A client secret does not belong in a settings file.
type oauthConfig struct {
	ClientID     string   `json:"clientId"`
	CallbackPort int      `json:"callbackPort"`
	Scopes       []string `json:"scopes"`
}

// oauth is the OAuth configuration of the remote server name, described
// by sc at where: every remote server has one (a server that asks for no
// token is reached as without), unless its headers carry an Authorization
// of their own. Its errors tell the user to run toolscope mcp login.
func (sc *serverConfig) oauth(name, where string) (*oauth.Config, error) {
	if sc.URL == "" {
		return nil, nil
	}
	for k := range sc.Headers {
		if http.CanonicalHeaderKey(k) == "Authorization" {
			if sc.OAuth != nil {
				return nil, errorf("%s: \"oauth\" and an Authorization header exclude each other", where)
			}
			return nil, nil
		}
	}
	cfg := &oauth.Config{LoginHint: fmt.Sprintf("run \"toolscope mcp login %s%s\"", name, loginFlags(where))}
	if o := sc.OAuth; o != nil {
		if o.CallbackPort < 0 || o.CallbackPort > 65535 {
			return nil, errorf("%s: oauth.callbackPort %d is not a port", where, o.CallbackPort)
		}
		cfg.ClientID, cfg.CallbackPort, cfg.Scopes = o.ClientID, o.CallbackPort, o.Scopes
	}
	return cfg, nil
}

// loginFlags are the flags that make toolscope mcp login find a server
// configured at where: the --config file, when it came from one.
func loginFlags(where string) string {
	if rest, ok := strings.CutPrefix(where, "--config "); ok {
		file, _, _ := strings.Cut(rest, ": mcpServers.")
		return " --config " + file
	}
	return ""
}

// OAuthServer returns the URL of the remote MCP server name of the
// settings and its OAuth configuration, for toolscope mcp login, logout
// and list. A server that is not there, or not remote, or that sends an
// Authorization header of its own, is an [*Error].
func (s *Settings) OAuthServer(name string) (url string, cfg *oauth.Config, err error) {
	sc, ok := s.cfg.MCPServers[name]
	if !ok || sc.Disabled {
		return "", nil, errorf("no MCP server %q in the settings (see toolscope config)", name)
	}
	where := s.cfg.mcpFrom[name]
	if where == "" {
		where = fmt.Sprintf("--config %s: mcpServers.%s", s.cfg.path, name)
	}
	if sc.URL == "" {
		return "", nil, errorf("MCP server %q is not a remote server (it has no \"url\"): it needs no login", name)
	}
	if cfg, err = sc.oauth(name, where); err != nil {
		return "", nil, err
	}
	if cfg == nil {
		return "", nil, errorf("MCP server %q sends an Authorization header of its own (%s): it needs no login", name, where)
	}
	return sc.URL, cfg, nil
}
