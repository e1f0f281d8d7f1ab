package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolscope/toolscope/internal/peers"
)

// The MCP conformance suite drives internal/confclient, built on
// mcp.Client, through every client scenario that needs no authorization.
func TestConformanceClient(t *testing.T) {
	suite, node := peers.Need(t, "node_modules/@modelcontextprotocol/conformance/dist/index.js", true)
	bin := filepath.Join(t.TempDir(), "confclient")
	if out, err := exec.Command("go", "build", "-o", bin, "../internal/confclient").CombinedOutput(); err != nil {
		t.Fatalf("building confclient: %v\n%s", err, out)
	}
	for _, sc := range []string{"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"} {
		t.Run(sc, func(t *testing.T) {
			cmd := exec.Command(node, suite, "client", "--command", bin, "--scenario", sc, "-o", t.TempDir())
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("scenario %s: %v\n%s", sc, err, out)
			}
		})
	}
}
