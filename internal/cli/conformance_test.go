package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolscope/toolscope/internal/peers"
)

// The MCP conformance suite's server mode against `toolscope serve`: for
// MCP 2025-11-25 on `--http`, for 2026-07-28 on `--http --stateless` (a
// stateful server offers 2025-11-25 only). The scenarios listed in
// testdata/conformance-baseline-REV.yml call the suite's own fixtures
// (test_simple_text, resources, prompts, completions), which a toolscope
// server does not have (it serves the toolkit's tools; mcp's
// TestConformanceServer serves the fixtures); every other scenario the
// revision requires must pass, and the suite fails the run if a listed one
// starts passing.
func TestConformanceServer(t *testing.T) {
	suite, node := peers.Need(t, "conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js", true)
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			t.Parallel()
			baseline, err := filepath.Abs("testdata/conformance-baseline-" + rev + ".yml")
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"--cwd", t.TempDir()}
			if rev >= "2026-07-28" {
				args = append(args, "--stateless")
			}
			url := serveHTTP(t, args...)
			cmd := exec.Command(node, suite, "server", "--url", url, "--requirements", rev, "--expected-failures", baseline, "-o", t.TempDir())
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("conformance server: %v\n%s", err, out)
			}
		})
	}
}
