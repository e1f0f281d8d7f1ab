package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestLeanBuild: go build -tags lean makes a toolscope without the model
// providers' SDKs (a third of the binary, and their start-up): every
// command but run and chat works, and those two say which build has them.
func TestLeanBuild(t *testing.T) {
	goBin, bin := buildLean(t)
	deps, err := exec.Command(goBin, "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, sdk := range []string{"github.com/openai/openai-go", "github.com/anthropics/anthropic-sdk-go"} {
		if strings.Contains(string(deps), sdk) {
			t.Errorf("the lean build links %s", sdk)
		}
	}
	dir := t.TempDir()
	out, err := exec.Command(bin, "check", "--cwd", dir, "--no-claude-settings", "--", "git status").Output()
	if err != nil || !strings.Contains(string(out), `"behavior":"allow"`) {
		t.Errorf("check in the lean build: %v: %s", err, out)
	}
	out, err = exec.Command(bin, "tools", "--cwd", dir, "--no-claude-settings", "--format", "anthropic").Output()
	if err != nil || !strings.Contains(string(out), `"input_schema"`) {
		t.Errorf("tools --format anthropic in the lean build: %v", err)
	}
	cmd := exec.Command(bin, "chat", "--cwd", dir)
	cmd.Env = append(os.Environ(), "TOOLSCOPE_MODEL=openai:x")
	msg, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(msg), "-tags lean") {
		t.Errorf("chat in the lean build: %v: %s", err, msg)
	}
}

var lean struct {
	once     sync.Once
	dir, bin string
	err      error
}

// buildLean returns the go command and a toolscope built with -tags lean,
// built once per test run (TestLeanBuild and TestStartupInit both run it).
func buildLean(t *testing.T) (goBin, bin string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command")
	}
	lean.once.Do(func() {
		if lean.dir, lean.err = os.MkdirTemp("", "toolscope-lean-"); lean.err != nil {
			return
		}
		lean.bin = filepath.Join(lean.dir, "toolscope")
		build := exec.Command(goBin, "build", "-tags", "lean", "-o", lean.bin, "github.com/toolscope/toolscope/cmd/toolscope")
		if out, err := build.CombinedOutput(); err != nil {
			lean.err = fmt.Errorf("go build -tags lean: %v\n%s", err, out)
		}
	})
	if lean.err != nil {
		t.Fatal(lean.err)
	}
	return goBin, lean.bin
}
