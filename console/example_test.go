package console_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/toolscope/toolscope/console"
)

// The console over a directory of run files: every request carries the
// access token (here as a bearer token; a browser gets it from the URL
// once, then from a cookie).
func Example() {
	dir, _ := os.MkdirTemp("", "runs")
	defer os.RemoveAll(dir)
	runs, err := console.NewLocal(dir, nil) // answers run this executable's `run --resume`
	if err != nil {
		fmt.Println(err)
		return
	}
	defer runs.Close()
	srv, err := console.New(&console.Options{
		Sources: []console.Source{runs},
		Tokens:  map[string]string{"alice": "a-token-of-at-least-16-characters"},
		LogFile: dir + "/" + console.LogName,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()

	resp, _ := http.Get(ts.URL + "/")
	fmt.Println("without the token:", resp.StatusCode)
	resp.Body.Close()

	req, _ := http.NewRequest("GET", ts.URL+"/", nil)
	req.Header.Set("Authorization", "Bearer a-token-of-at-least-16-characters")
	resp, _ = http.DefaultClient.Do(req)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println("with it:", resp.StatusCode, strings.Contains(string(page), "No runs yet"))
	// Output:
	// without the token: 401
	// with it: 200 true
}
