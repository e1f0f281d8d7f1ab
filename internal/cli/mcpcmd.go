package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/internal/proc"
	"github.com/toolscope/toolscope/mcp/oauth"
)

const mcpUsage = "usage: toolscope mcp login NAME [--no-browser] | toolscope mcp logout NAME | toolscope mcp list [--config FILE] [--cwd DIR]"

// loginWait bounds how long mcp login waits for the user to authorize.
const loginWait = 5 * time.Minute

// runMCP is `toolscope mcp`: login and logout of the remote MCP servers
// of the settings that use OAuth, and a list of the servers with their
// login status.
func runMCP(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newFlags("mcp", stdout, false)
	noBrowser := c.fs.Bool("no-browser", false, "login: print the authorization URL without starting a browser")
	if err := c.parse(args); err != nil {
		return err
	}
	if len(c.args) == 0 {
		return usageErr("%s", mcpUsage)
	}
	settings, err := host.LoadSettings(c.hostOptions(stderr))
	if err != nil {
		return usage(err)
	}
	switch verb := c.args[0]; {
	case verb == "list" && len(c.args) == 1:
		for _, sv := range settings.Servers() {
			url, cfg, err := settings.OAuthServer(sv.Name)
			if err != nil {
				fmt.Fprintf(stdout, "%s\t-\t%s\n", sv.Name, noLogin(err))
				continue
			}
			st, err := oauth.Lookup(url, cfg)
			fmt.Fprintf(stdout, "%s\t%s\t%s\n", sv.Name, url, loginStatus(st, err))
		}
		return nil
	case (verb == "login" || verb == "logout") && len(c.args) == 2:
		name := c.args[1]
		url, cfg, err := settings.OAuthServer(name)
		if err != nil {
			return usage(err)
		}
		if verb == "logout" {
			if err := oauth.Logout(url, cfg); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "logged out of MCP server %q (the token stored for %s is deleted)\n", name, url)
			return nil
		}
		cfg.OpenURL = func(u string) error {
			fmt.Fprintf(stderr, "To authorize toolscope for MCP server %q, open this URL in a browser:\n\n  %s\n\n", name, u)
			if !*noBrowser {
				if err := openBrowser(u); err != nil {
					fmt.Fprintf(stderr, "(no browser started: %v)\n", err)
				}
			}
			return nil
		}
		lctx, cancel := context.WithTimeout(ctx, loginWait)
		defer cancel()
		if err := oauth.Login(lctx, url, cfg); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "logged in to MCP server %q (%s)\n", name, url)
		return nil
	}
	return usageErr("%s", mcpUsage)
}

// noLogin says why a server of the list has no login.
func noLogin(err error) string {
	var he *host.Error
	switch {
	case !errors.As(err, &he):
		return err.Error()
	case strings.Contains(he.Msg, "not a remote server"):
		return "stdio (no login)"
	case strings.Contains(he.Msg, "Authorization header"):
		return "Authorization header (no login)"
	}
	return he.Msg
}

// loginStatus says what is stored for a server.
func loginStatus(st oauth.Status, err error) string {
	switch {
	case err != nil:
		return "error: " + err.Error()
	case !st.LoggedIn:
		return "not logged in"
	}
	s := "logged in"
	if !st.Expiry.IsZero() {
		if time.Now().After(st.Expiry) {
			s += ", token expired " + st.Expiry.Local().Format(time.DateTime)
		} else {
			s += ", token expires " + st.Expiry.Local().Format(time.DateTime)
		}
	}
	if st.Refreshable {
		s += ", refreshable"
	}
	if st.Scope != "" {
		s += ", scope " + st.Scope
	}
	return s
}

// openBrowser opens u in the user's browser: $BROWSER, else the system's
// opener. Tests replace it.
var openBrowser = func(u string) error {
	var cmd *exec.Cmd
	switch b := os.Getenv("BROWSER"); {
	case b != "":
		cmd = proc.Command(context.Background(), b, u)
	case runtime.GOOS == "darwin":
		cmd = proc.Command(context.Background(), "open", u)
	case runtime.GOOS == "windows":
		cmd = proc.Command(context.Background(), "rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = proc.Command(context.Background(), "xdg-open", u)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
