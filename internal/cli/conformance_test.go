package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolscope/toolscope/internal/peers"
)

// The MCP conformance suite's server mode against `toolscope serve --http`.
// The scenarios in testdata/conformance-baseline.yml call the suite's own
// fixtures (test_simple_text, resources, prompts, completions), which a
// toolscope server does not have; every other scenario must pass, and the
// suite fails the run if a listed one starts passing.
func TestConformanceServer(t *testing.T) {
	suite, node := peers.Need(t, "node_modules/@modelcontextprotocol/conformance/dist/index.js", true)
	baseline, err := filepath.Abs("testdata/conformance-baseline.yml")
	if err != nil {
		t.Fatal(err)
	}
	url := serveHTTP(t, "--cwd", t.TempDir())
	cmd := exec.Command(node, suite, "server", "--url", url, "--expected-failures", baseline, "-o", t.TempDir())
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("conformance server: %v\n%s", err, out)
	}
}
