package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/internal/oauthtest"
)

// TestMCPLogin: mcp login runs the flow with the server of the config
// (the test's browser follows the URL), the token lands in the user's
// configuration directory, and a call of the server's tool then uses it;
// mcp list shows the login, mcp logout forgets it, and a call then fails
// saying what to run.
func TestMCPLogin(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	as := oauthtest.NewAS(t, nil)
	rs := oauthtest.NewResource(t, as, nil)
	project := t.TempDir()
	cfgFile := filepath.Join(project, "servers.json")
	os.WriteFile(cfgFile, []byte(fmt.Sprintf(`{"mcpServers": {
		"remote": {"type": "http", "url": %q, "oauth": {"callbackPort": 0}},
		"local": {"command": "true"}
	}}`, rs.URL)), 0o644)
	opened := 0
	browser := oauthtest.Browser(nil)
	old := openBrowser
	openBrowser = func(u string) error { opened++; return browser(u) }
	t.Cleanup(func() { openBrowser = old })

	cli := func(args ...string) (string, string, error) {
		var out, errb bytes.Buffer
		err := run(context.Background(), append(args, "--config", cfgFile, "--cwd", project), nil, &out, &errb)
		return out.String(), errb.String(), err
	}
	out, errOut, err := cli("mcp", "list")
	if err != nil || !strings.Contains(out, "remote\t"+rs.URL+"\tnot logged in") || !strings.Contains(out, "local\t-\tstdio (no login)") {
		t.Fatalf("mcp list: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = cli("mcp", "login", "remote")
	if err != nil || opened != 1 || !strings.Contains(out, `logged in to MCP server "remote"`) || !strings.Contains(errOut, "open this URL in a browser") {
		t.Fatalf("mcp login: %v (browser opened %d times)\n%s%s", err, opened, out, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(home, "config", "toolscope", "mcp-oauth", "*", "token.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v", files)
	}
	var stored struct {
		AccessToken string `json:"access_token"`
	}
	b, _ := os.ReadFile(files[0])
	if json.Unmarshal(b, &stored); stored.AccessToken == "" || strings.Contains(out+errOut, stored.AccessToken) {
		t.Errorf("token %q stored, or printed", stored.AccessToken)
	}
	out, _, err = cli("mcp", "list")
	if err != nil || !strings.Contains(out, "remote\t"+rs.URL+"\tlogged in, token expires ") || !strings.Contains(out, "refreshable") {
		t.Errorf("mcp list after login: %v\n%s", err, out)
	}
	out, errOut, err = cli("call", "--yes", "mcp__remote__hello", "{}")
	if err != nil || !strings.Contains(out, "hello from the protected server") {
		t.Fatalf("call: %v\n%s%s", err, out, errOut)
	}
	if _, _, err = cli("mcp", "logout", "remote"); err != nil {
		t.Fatal(err)
	}
	out, errOut, err = cli("call", "--yes", "mcp__remote__hello", "{}")
	want := fmt.Sprintf(`needs authorization: it asks for a token and none is stored (not logged in); run "toolscope mcp login remote --config %s"`, cfgFile)
	if err == nil || !strings.Contains(errOut, want) {
		t.Errorf("call after logout: %v\n%s%s\nwant %s", err, out, errOut, want)
	}
	if _, _, err := cli("mcp", "login", "local"); err == nil || !strings.Contains(err.Error(), "not a remote server") {
		t.Errorf("login of a stdio server: %v", err)
	}
}
