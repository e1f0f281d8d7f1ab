//go:build !lean

package host

import (
	"os"

	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/web"
)

// webTools are the web tools of the workspace: WebFetch always (it asks,
// as every call leaving the machine does, unless a
// WebFetch(domain:HOST) rule allows it); WebSearch when a search API is
// configured (BRAVE_API_KEY). The lean build leaves them out: their HTML
// parser's tables cost every start of toolscope 110 KB.
func webTools() []tool.Tool {
	out := []tool.Tool{web.NewFetch(nil)}
	if os.Getenv("BRAVE_API_KEY") != "" {
		out = append(out, web.NewSearch(nil))
	}
	return out
}
