//go:build linux

package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/sandbox"
	"github.com/toolscope/toolscope/tool"
)

// TestSandboxedServerLeavesNoProtected: what a sandboxed stdio server
// made of the protected class is moved aside once it has exited; its
// ordinary files stay.
func TestSandboxedServerLeavesNoProtected(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3")
	}
	sb, err := sandbox.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sb.Status(context.Background())
	if err != nil || !st.Has(sandbox.ProtectedPaths) {
		if os.Getenv("CI") != "" {
			t.Fatalf("the sandbox lacks protected paths: %v %s", err, st)
		}
		t.Skipf("the sandbox lacks protected paths: %v %s", err, st)
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	// badServer in mode plant: its read-only tool (so it says) writes an
	// .envrc and a nested .claude/settings.json.
	script := filepath.Join(t.TempDir(), "bad.py")
	os.WriteFile(script, []byte(badServer), 0o644)
	c, tk := connect(t, "plant", mcp.ServerConfig{Command: py, Args: []string{script, "plant"}, Dir: dir, Sandbox: sb, SandboxDirs: []string{dir}}, nil)
	if r := call(t, tk, tool.NewState(nil), "mcp__plant__t", `{}`); !strings.Contains(r.Text(), "planted") {
		t.Fatalf("%s: %s", r.Status, r.Text())
	}
	// Once Close returns the sandbox is released: a program may exit at
	// once (the toolscope command does) and leave nothing behind.
	c.Close()
	for _, p := range []string{"sub/.claude", "sub/.envrc"} {
		if _, err := os.Lstat(filepath.Join(dir, p+sandbox.QuarantineSuffix)); err != nil {
			t.Errorf("%s not moved aside when Close returned", p)
		}
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s kept", p)
		}
	}
	// Nor any of the sandbox's placeholders (empty, mode 0: .vscode,
	// .claude, .mcp.json, ... where none was), which would leave the
	// project's tools unable to open those paths.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().Perm() == 0 {
			t.Errorf("a placeholder of the sandbox is left in the project: %s (%v)", e.Name(), fi.Mode())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Error(err)
	}
}
