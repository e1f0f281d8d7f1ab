package cli

import (
	"context"
	"strings"
	"testing"
)

// TestServeBackgroundNotWired: until host.Workspace sets
// builtin.Options.Background for serve and mcp.Server closes a session's
// state when the session ends (see the background shells in package
// builtin), serve offers no BashOutput or KillShell, and Bash refuses
// run_in_background with an error the model can act on, running nothing.
// When serve is wired, this test becomes the end-to-end one: start,
// BashOutput, KillShell, and the session's end killing the shell.
func TestServeBackgroundNotWired(t *testing.T) {
	dir := t.TempDir()
	s := serveStdio(t, nil, "--cwd", dir)
	lr, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range lr.Tools {
		if tl.Name == "BashOutput" || tl.Name == "KillShell" {
			t.Errorf("serve lists %s", tl.Name)
		}
	}
	text, isErr := callTool(t, s, "Bash", map[string]any{"command": "echo hi", "run_in_background": true})
	if !isErr || !strings.Contains(text, "run_in_background is not available here") || strings.Contains(text, "hi\n") {
		t.Errorf("Bash run_in_background through serve: error=%v %q", isErr, text)
	}
}
