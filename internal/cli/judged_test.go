package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/internal/counters"
)

// `toolscope call` and `toolscope check` analyse a Bash command once:
// allowed, asked about at a terminal and approved, approved with --yes,
// or left asking without a terminal; check names the shell layer from the
// analysis its decision used.
func TestCLIAnalysesOnce(t *testing.T) {
	defer func(f func(io.Reader) bool) { isTerminal = f }(isTerminal)
	dir := t.TempDir()
	state := filepath.Join(dir, "st.json")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	for _, tc := range []struct {
		name     string
		terminal bool
		stdin    string
		args     []string
		code     int
	}{
		{"read-only call", false, "", []string{"call", "--cwd", dir, "--state", state, "--deny", "Bash(rm:*)", "--deny", "Bash(curl:*)", "Bash", `{"command":"ls && cat a.txt"}`}, 0},
		{"approved at the terminal", true, "y\n", []string{"call", "--cwd", dir, "--state", state, "Bash", `{"command":"touch a2.txt"}`}, 0},
		{"always at the terminal", true, "always\n", []string{"call", "--cwd", dir, "--state", state, "Bash", `{"command":"mkdir d"}`}, 0},
		{"denied at the terminal", true, "n\n", []string{"call", "--cwd", dir, "--state", state, "Bash", `{"command":"touch no.txt"}`}, 3},
		{"--yes", false, "", []string{"call", "--cwd", dir, "--state", state, "--yes", "Bash", `{"command":"touch b.txt"}`}, 0},
		{"no terminal", false, "", []string{"call", "--cwd", dir, "--state", state, "Bash", `{"command":"touch c.txt"}`}, 3},
		{"check", false, "", []string{"check", "--cwd", dir, "--allow", "Bash(git status:*)", "--", "git status && touch x"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isTerminal = func(io.Reader) bool { return tc.terminal }
			var out, errb bytes.Buffer
			before := counters.ShellAnalyses.Load()
			code := exitCode(run(context.Background(), tc.args, strings.NewReader(tc.stdin), &out, &errb), &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s %s", code, tc.code, out.String(), errb.String())
			}
			if n := counters.ShellAnalyses.Load() - before; n != 1 {
				t.Errorf("%d analyses, want 1", n)
			}
		})
	}
	for _, f := range []string{"a2.txt", "b.txt", "d"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: the approved call did not run", f)
		}
	}
	for _, f := range []string{"no.txt", "c.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s: a call that was not approved ran", f)
		}
	}
}
