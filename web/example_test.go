package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/web"
)

// A page on the machine itself is fetched only with a rule naming its
// host.
func ExampleNewFetch() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<h1>Hello</h1><p>A <b>small</b> page.</p>")
	}))
	defer srv.Close()

	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{web.NewFetch(&web.FetchOptions{
		AllowHTTP: true,
		Apply: func(_ context.Context, prompt, content string) (string, error) {
			return content, nil // a real program asks a small model
		},
	})}})
	in, _ := json.Marshal(map[string]string{"url": srv.URL, "prompt": "What does it say?"})
	for _, rules := range [][]permission.Rule{nil, {{Tool: "WebFetch", Content: "domain:127.0.0.1", Behavior: permission.Allow}}} {
		st := tool.NewState(&permission.Context{Mode: permission.Default, Allow: rules})
		res, _ := tk.Call(context.Background(), &tool.Call{Name: "WebFetch", Input: in, State: st})
		fmt.Printf("%s:\n%s\n", res.Status, res.Text())
	}
	// Output:
	// denied:
	// WebFetch does not fetch from 127.0.0.1 (loopback) unless an allow rule names it: WebFetch(domain:127.0.0.1)
	// success:
	// # Hello
	//
	// A **small** page.
}
