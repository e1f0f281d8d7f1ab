package host_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/permission"
)

// writeFile writes body to dir/name, making its directory.
func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProjectTrust: a project's own .claude/settings.json restricts before
// the folder is trusted (its deny rule applies, its allow rule and hook
// are dropped, with a warning naming them) and applies in full after.
func TestProjectTrust(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // no user settings, no trust dialog
	dir := t.TempDir()
	writeFile(t, dir, ".claude/settings.json", `{
		"permissions": {"allow": ["Bash(make:*)"], "deny": ["Read(.env)"]},
		"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}
	}`)
	for _, trust := range []bool{false, true} {
		var warn bytes.Buffer
		s, err := host.LoadSettings(&host.Options{Dir: dir, TrustProject: trust, Warnings: &warn})
		if err != nil {
			t.Fatal(err)
		}
		pc := s.Permissions(&permission.Context{Mode: permission.Default}, nil)
		if len(pc.Deny) != 1 || pc.Deny[0].String() != "Read(.env)" || !strings.HasSuffix(pc.Deny[0].Source, ".claude/settings.json: permissions.deny[0]") {
			t.Errorf("trust %v: deny rules %v", trust, pc.Deny)
		}
		if got := len(pc.Allow) == 1 && len(s.Hooks()) == 1; got != trust {
			t.Errorf("trust %v: allow rules %v, hooks %v", trust, pc.Allow, s.Hooks())
		}
		dropped := slices.ContainsFunc(s.Warnings(), func(w string) bool {
			return strings.Contains(w, "the project is not trusted, so its allow rules, hooks are ignored")
		})
		if dropped == trust || strings.Contains(warn.String(), "not trusted") == trust {
			t.Errorf("trust %v: warnings %q (written: %q)", trust, s.Warnings(), warn.String())
		}
		if trust && s.Hooks()[0].Origin == "" {
			t.Error("the hook has no origin")
		}
	}
}

// TestWarningsOnce: the settings' rules are read for every call of a
// server; a malformed one is reported the first time only.
func TestWarningsOnce(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cfg.json", `{"permissions": {"allow": ["Bash(rm", "Raed(x)"]}}`)
	var warn bytes.Buffer
	s, err := host.LoadSettings(&host.Options{Dir: dir, Settings: cfg, NoClaudeSettings: true, Warnings: &warn})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		s.Permissions(&permission.Context{Mode: permission.Default}, []string{"Read"})
	}
	lines := strings.Split(strings.TrimSpace(warn.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "permissions.allow[0]") || !strings.Contains(lines[1], "did you mean Read?") {
		t.Errorf("warnings written:\n%s", warn.String())
	}
	if len(s.Warnings()) != 2 || strings.HasPrefix(s.Warnings()[0], "toolscope:") {
		t.Errorf("Warnings() = %q", s.Warnings())
	}
}

// TestErrors: what is wrong with the options or a file is an *Error
// naming it; nothing else is.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "list.json", `[]`)
	for _, c := range []struct {
		opts *host.Options
		want string
	}{
		{&host.Options{Dir: filepath.Join(dir, "none")}, "not a directory"},
		{&host.Options{Dir: dir, Settings: filepath.Join(dir, "missing.json")}, "missing.json: cannot read it"},
		{&host.Options{Dir: dir, Settings: filepath.Join(dir, "list.json")}, "the file must hold an object, not an array"},
	} {
		_, err := host.Open(context.Background(), c.opts)
		var he *host.Error
		if !errors.As(err, &he) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%+v) = %v, want an *Error with %q", c.opts, err, c.want)
		}
	}
	_, err := host.NewStateFile(dir).Load()
	var he *host.Error
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("loading a directory as a state: %v", err)
	}
	settings := writeFile(t, dir, "settings.json", `{"permissions": {"allow": ["Bash"]}}`)
	if _, err := host.NewStateFile(settings).Load(); !errors.As(err, &he) || !strings.Contains(err.Error(), "not a toolscope state file") {
		t.Errorf("loading a settings file as a state: %v", err)
	}
}

// TestLoadLockedSerializes: snapshots loaded under the lock, changed and
// saved by many goroutines at once lose nothing, though the permissions
// merge as a whole (the last save's win): each load sees every earlier
// save.
func TestLoadLockedSerializes(t *testing.T) {
	f := host.NewStateFile(filepath.Join(t.TempDir(), "state.json"))
	if err := f.Writable(); err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			snap, err := f.LoadLocked()
			if err != nil {
				t.Error(err)
				return
			}
			snap.State.AddRule(permission.Rule{Tool: "Bash", Content: fmt.Sprintf("make t%d", i), Behavior: permission.Allow})
			if err := snap.Save(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	snap, err := f.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(snap.State.Permissions().Allow); got != n {
		t.Errorf("%d of %d rules survived: %v", got, n, snap.State.Permissions().Allow)
	}
}

// TestHookTypes: a hook of a type toolscope does not run (Claude Code's
// agent and http hooks), or a prompt hook of an event Claude Code runs
// none for, is skipped with a warning naming its file, event, matcher and
// type, and the file's command and prompt hooks load; a malformed hook is
// an error naming it.
func TestHookTypes(t *testing.T) {
	dir := t.TempDir()
	settings := writeFile(t, dir, "settings.json", `{"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "prompt", "prompt": "Is this safe? $ARGUMENTS"},
			{"type": "command", "command": "./gate.sh"}]}],
		"PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "http", "url": "http://localhost:1/x"}]}],
		"Stop": [{"hooks": [{"type": "agent", "prompt": "run the tests"}]}],
		"SessionStart": [{"hooks": [{"type": "prompt", "prompt": "Is it Monday?"}]}]
	}}`)
	var warn bytes.Buffer
	s, err := host.LoadSettings(&host.Options{Dir: dir, Settings: settings, NoClaudeSettings: true, Warnings: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if h := s.Hooks(); len(h) != 2 || h[0].Type != "prompt" || h[0].Prompt != "Is this safe? $ARGUMENTS" || h[0].Event != "PreToolUse" ||
		h[1].Type != "command" || h[1].Command != "./gate.sh" || h[1].Event != "PreToolUse" || !strings.HasSuffix(h[1].Origin, "hooks.PreToolUse[0].hooks[1]") {
		t.Errorf("hooks %+v", h)
	}
	if w := strings.Join(s.Warnings(), "\n"); strings.Contains(w, "PreToolUse[0].hooks[0]") {
		t.Errorf("a warning about the PreToolUse prompt hook, which loads: %s", w)
	}
	for _, want := range []string{
		settings + `: hooks.SessionStart[0].hooks[0] (SessionStart, every tool): a hook of type "prompt", which Claude Code runs for PreToolUse, PostToolUse, PermissionRequest, UserPromptSubmit, Stop, SubagentStop only (use a hook of type "command"); skipped`,
		settings + `: hooks.PostToolUse[0].hooks[0] (PostToolUse, matcher "Write|Edit"): a hook of type "http"`,
		settings + `: hooks.Stop[0].hooks[0] (Stop, every tool): a hook of type "agent"`,
	} {
		if !slices.ContainsFunc(s.Warnings(), func(w string) bool { return strings.Contains(w, want) }) || !strings.Contains(warn.String(), want) {
			t.Errorf("no warning %q in %q", want, s.Warnings())
		}
	}
	for _, c := range []struct{ hooks, want string }{
		{`{"PreToolUse": [{"hooks": [{"command": "true"}]}]}`, `hooks.PreToolUse[0].hooks[0]: a hook needs a "type"`},
		{`{"PreToolUse": [{"hooks": [{"type": "Command", "command": "true"}]}]}`, `hooks.PreToolUse[0].hooks[0]: unknown hook type "Command" (did you mean "command"?)`},
		{`{"Stop": [{"hooks": [{"type": "promt", "prompt": "done?"}]}]}`, `hooks.Stop[0].hooks[0]: unknown hook type "promt" (did you mean "prompt"?)`},
		{`{"Stop": [{"hooks": [{"type": "prompt", "command": "true"}]}]}`, `hooks.Stop[0].hooks[0]: a hook of type "prompt" needs a "prompt" for the model`},
		{`{"Stop": [{"hooks": [{"type": "command", "command": " "}]}]}`, `hooks.Stop[0].hooks[0]: a hook of type "command" needs a "command" to run`},
		{`{"PreToolUse": [{"hooks": [{"type": 1}]}]}`, `hooks.PreToolUse`},
		{`{"PreToolUse": [{"matcher": "(", "hooks": [{"type": "prompt"}]}]}`, `hooks.PreToolUse[0].matcher "("`},
		{`{"PreToolUse": {"type": "command"}}`, `hooks.PreToolUse`},
	} {
		f := writeFile(t, dir, "bad.json", `{"hooks": `+c.hooks+`}`)
		_, err := host.LoadSettings(&host.Options{Dir: dir, Settings: f, NoClaudeSettings: true})
		var he *host.Error
		if !errors.As(err, &he) || !strings.Contains(err.Error(), f+": "+c.want) {
			t.Errorf("%s: %v, want an *Error with %q", c.hooks, err, c.want)
		}
	}
}
