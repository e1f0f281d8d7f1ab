package oauth_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/toolscope/toolscope/mcp/oauth"
)

// A Transport with no stored token reaches a server that wants one with
// an error that says how to log in.
func ExampleTransport() {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer scope="tools"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer server.Close()
	dir, _ := os.MkdirTemp("", "tokens")
	defer os.RemoveAll(dir)

	hc := &http.Client{Transport: oauth.NewTransport(server.URL+"/mcp", nil, &oauth.Config{
		Dir:       dir,
		LoginHint: `run "toolscope mcp login example"`,
	})}
	_, err := hc.Post(server.URL+"/mcp", "application/json", strings.NewReader(`{}`))
	fmt.Println(errors.Is(err, oauth.ErrLoginRequired))
	var le *oauth.LoginRequiredError
	if errors.As(err, &le) {
		fmt.Println(le.Reason)
		fmt.Println(le.Hint)
	}
	// Output:
	// true
	// it asks for a token and none is stored (not logged in)
	// run "toolscope mcp login example"
}
