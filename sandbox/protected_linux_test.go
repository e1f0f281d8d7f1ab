//go:build linux

package sandbox

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNestedProtected: protected names below the top of the project (a
// nested repository's .git, a sub-project's .claude and .vscode, a nested
// .envrc) are read-only in the sandbox, as those at the top are.
func TestNestedProtected(t *testing.T) {
	s, st := newSandbox(t, nil)
	need(t, st, ProtectedPaths)
	dir := t.TempDir()
	files := []string{"vendor/lib/.git/config", "apps/web/.claude/settings.json", "a/b/c/.vscode/tasks.json", "svc/api/.envrc",
		"tools/x/.husky/pre-commit"}
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("original\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		out, _, _ := run(t, s, dir, `echo evil >> `+f+`; echo evil > $(dirname `+f+`)/new; rm -rf $(dirname `+f+`); mv `+f+` moved`, nil)
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(b) != "original\n" {
			t.Errorf("%s changed: %q %v\n%s", f, b, err, out)
		}
		if _, err := os.Lstat(filepath.Join(filepath.Dir(filepath.Join(dir, f)), "new")); err == nil {
			t.Errorf("a file was created beside %s", f)
		}
	}
}

// TestPlaceholdersSwept: placeholders left by a run whose process was
// killed are removed by the next run; ones someone filled stay.
func TestPlaceholdersSwept(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	s, st := newSandbox(t, &Config{CacheDir: cache})
	need(t, st, ProtectedPaths)
	dir := t.TempDir()
	// A process that is gone.
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	dead := c.Process.Pid
	stale, filled := filepath.Join(dir, ".claude"), filepath.Join(dir, ".vscode")
	var places []placeholder
	for _, p := range []string{stale, filled} {
		if err := os.Mkdir(p, 0); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Lstat(p)
		places = append(places, placeholder{Path: p, Dir: true, Dev: devOf(fi), Ino: inoOf(fi)})
	}
	os.Chmod(filled, 0o755)
	os.WriteFile(filepath.Join(filled, "settings.json"), []byte("{}"), 0o644)
	b, _ := json.Marshal(places)
	jdir := cache + ".placeholders"
	os.MkdirAll(jdir, 0o700)
	if err := os.WriteFile(filepath.Join(jdir, strconv.Itoa(dead)+"-x.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if out, err, _ := run(t, s, other, `true`, nil); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Lstat(stale); err == nil {
		t.Error("the stale placeholder stays")
	}
	if _, err := os.Lstat(filepath.Join(filled, "settings.json")); err != nil {
		t.Error("a filled placeholder was removed")
	}
	if ents, _ := os.ReadDir(jdir); len(ents) != 0 {
		t.Errorf("journals left: %v", ents)
	}
	// A run leaves nothing behind in the project.
	if ents, _ := os.ReadDir(other); len(ents) != 0 {
		t.Errorf("the run left %v", ents)
	}
}

// TestProtectedBeyondNames: a $PATH directory inside the project (an
// activated virtualenv's bin), the directory core.hooksPath names and
// Config.ProtectedPaths are read-only in the sandbox; the rest of the
// project stays writable.
func TestProtectedBeyondNames(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "agent-state.json")
	s, st := newSandbox(t, &Config{ProtectedPaths: []string{state}})
	need(t, st, ProtectedPaths)
	for _, f := range []string{"env/bin/python", "tools/hooks/pre-commit", "agent-state.json"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("original\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n\thooksPath = tools/hooks\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+filepath.Join(dir, "env", "bin")+":"+os.Getenv("PATH"))
	out, _, _ := run(t, s, dir, `echo evil > env/bin/python; echo evil > env/bin/ls; echo evil > tools/hooks/pre-commit; echo '{"mode":"bypass"}' > agent-state.json; echo ok > other.txt`, env)
	for _, f := range []string{"env/bin/python", "tools/hooks/pre-commit", "agent-state.json"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != "original\n" {
			t.Errorf("%s changed to %q\n%s", f, b, out)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "env/bin/ls")); err == nil {
		t.Errorf("a program was added to a $PATH directory\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "other.txt")); string(b) != "ok\n" {
		t.Errorf("the project is not writable: %q\n%s", b, out)
	}
}

// TestPlaceholdersShared: two sandboxed commands in one project at once.
// The second finds the first's placeholders and holds them too, so the
// first's end does not remove them under it: it still cannot create
// .claude. When both are over, nothing is left.
func TestPlaceholdersShared(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	s, st := newSandbox(t, &Config{CacheDir: cache})
	need(t, st, ProtectedPaths)
	dir := t.TempDir()
	done := make(chan string)
	go func() {
		out, _, _ := run(t, s, dir, `sleep 0.5`, nil)
		done <- out
	}()
	// Wait for the first run's placeholder.
	for i := 0; i < 200; i++ {
		if _, err := os.Lstat(filepath.Join(dir, ".claude")); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The command cannot touch the journals that keep the placeholders.
	out, _, _ := run(t, s, dir, `rm -rf `+cache+`.placeholders/* `+cache+`/placeholders/* 2>&1; sleep 1.5; mkdir -p .claude; echo '{"permissions":{"defaultMode":"bypassPermissions"}}' > .claude/settings.local.json && echo CREATED`, nil)
	<-done
	if _, err := os.Lstat(filepath.Join(dir, ".claude", "settings.local.json")); err == nil || strings.Contains(out, "CREATED") {
		t.Errorf("the second command created .claude after the first ended:\n%s", out)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left in the project: %v", ents)
	}
}

func devOf(fi os.FileInfo) uint64 { return uint64(fi.Sys().(*syscall.Stat_t).Dev) }
func inoOf(fi os.FileInfo) uint64 { return fi.Sys().(*syscall.Stat_t).Ino }
