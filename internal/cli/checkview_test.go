package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// On a terminal, check prints its verdict for a person: the behaviour in
// colour, the command, the reason, each part with its own verdict, the
// suggestions as flags to paste; --json (or no terminal) keeps the JSON
// object.
func TestCheckForPeople(t *testing.T) {
	defer func(f func(io.Writer) bool) { isTerminalOut = f }(isTerminalOut)
	isTerminalOut = func(io.Writer) bool { return true }
	dir := t.TempDir()
	check := func(args ...string) string {
		var out bytes.Buffer
		if err := run(context.Background(), append([]string{"check", "--cwd", dir, "--no-claude-settings"}, args...), strings.NewReader(""), &out, io.Discard); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.String()
	}
	got := check("--", "git log --oneline -5 && npm run build")
	for _, want := range []string{
		"\x1b[1;33mASK\x1b[0m  git log --oneline -5 && npm run build",
		"    read-only                git log --oneline -5",
		"    needs a rule or the user npm run build",
		"  to allow it: --allow 'Bash(npm run build:*)'",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("terminal output lacks %q:\n%s", want, got)
		}
	}
	got = check("--allow", "Bash(npm run:*)", "--", "npm run build")
	if !strings.Contains(got, "ALLOW") || !strings.Contains(got, "rule: Bash(npm run:*)") {
		t.Errorf("allowed by a rule:\n%s", got)
	}
	got = check("--", "rm -rf / # \x1b[2J")
	if strings.Contains(got, "\x1b[2J") || !strings.Contains(got, "always asked") {
		t.Errorf("a dangerous command, with a control sequence in it:\n%q", got)
	}
	if got := check("--json", "--", "ls"); !strings.HasPrefix(got, `{"behavior":"allow"`) {
		t.Errorf("--json: %s", got)
	}
	t.Setenv("NO_COLOR", "1")
	if got := check("--", "ls"); !strings.HasPrefix(got, "ALLOW  ls\n") {
		t.Errorf("NO_COLOR: %q", got)
	}
}
