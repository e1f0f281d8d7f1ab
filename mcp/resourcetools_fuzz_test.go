package mcp

import (
	"strings"
	"testing"

	"github.com/toolscope/toolscope/permission"
)

// An allow rule for URIs covers no more than its deny twin does: whatever
// "ReadMcpResource(s:P)" allows, the same rule as a deny rule denies, and a
// URI allowed by a prefix is a clean URI that begins with the prefix.
func FuzzMatchResource(f *testing.F) {
	for _, s := range [][2]string{
		{"s:file:///docs/*", "file:///docs/a"},
		{"s:file:///docs/*", "file:///docs/../x"},
		{"s:file:///docs/*", "FILE:///docs/a"},
		{"s:file:///a", "file:///a"},
		{"s", "x"},
		{"t:*", "%2e"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, content, uri string) {
		allow := matchResource(permission.Rule{Tool: ReadResourceTool, Content: content, Behavior: permission.Allow}, "s", uri)
		deny := matchResource(permission.Rule{Tool: ReadResourceTool, Content: content, Behavior: permission.Deny}, "s", uri)
		if allow && !deny {
			t.Fatalf("%q allows %q but does not deny it", content, uri)
		}
		srv, pat, ok := strings.Cut(content, ":")
		if allow && srv != "s" {
			t.Fatalf("%q allows a read of server s", content)
		}
		if prefix, wild := strings.CutSuffix(pat, "*"); ok && wild && allow && (uncleanURI(uri) || !strings.HasPrefix(uri, prefix)) {
			t.Fatalf("%q allows %q", content, uri)
		}
		if prefix, wild := strings.CutSuffix(pat, "*"); ok && wild && srv == "s" && strings.HasPrefix(strings.ToLower(uri), strings.ToLower(prefix)) && len(strings.ToLower(uri)) == len(uri) && !deny {
			t.Fatalf("%q does not deny %q", content, uri)
		}
	})
}
