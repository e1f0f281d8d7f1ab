package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Background shells through serve: Bash run_in_background returns a
// shell id at once, BashOutput reads what it printed, KillShell stops it,
// and the end of the session kills the shells it left running. With a
// --state file (each call its own state) Bash refuses run_in_background.
func TestServeBackgroundShells(t *testing.T) {
	dir := t.TempDir()
	s := serveStdio(t, nil, "--cwd", dir, "--mode", "bypass")
	lr, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lr.Tools {
		names = append(names, tl.Name)
	}
	if !strings.Contains(strings.Join(names, " "), "BashOutput") || !strings.Contains(strings.Join(names, " "), "KillShell") {
		t.Fatalf("serve lists %v", names)
	}
	id := func(text string) string {
		m := regexp.MustCompile(`bash_\d+`).FindString(text)
		if m == "" {
			t.Fatalf("no shell id in %q", text)
		}
		return m
	}
	// One that prints and ends.
	text, isErr := callTool(t, s, "Bash", map[string]any{"command": "echo from the background", "run_in_background": true})
	if isErr {
		t.Fatalf("start: %q", text)
	}
	short := id(text)
	// BashOutput gives what is new since the last read: gather it.
	deadline := time.Now().Add(10 * time.Second)
	var seen string
	for {
		out, _ := callTool(t, s, "BashOutput", map[string]any{"bash_id": short})
		seen += out
		if strings.Contains(seen, "from the background") && strings.Contains(out, "completed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("BashOutput, read after read: %q", seen)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// One that runs until killed: KillShell ends its process.
	pidFile := filepath.Join(dir, "pid")
	text, _ = callTool(t, s, "Bash", map[string]any{"command": "echo $$ > " + pidFile + "; exec sleep 300", "run_in_background": true})
	long := id(text)
	pid := waitPid(t, pidFile)
	if text, isErr := callTool(t, s, "KillShell", map[string]any{"shell_id": long}); isErr {
		t.Fatalf("KillShell: %q", text)
	}
	if alive(pid) {
		t.Errorf("process %d survived KillShell", pid)
	}
	// One left running: the session's end kills it.
	os.Remove(pidFile)
	callTool(t, s, "Bash", map[string]any{"command": "echo $$ > " + pidFile + "; exec sleep 300", "run_in_background": true})
	pid = waitPid(t, pidFile)
	s.Close()
	for deadline := time.Now().Add(10 * time.Second); alive(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d outlived the session", pid)
		}
	}

	// With --state, no background shells.
	s2 := serveStdio(t, nil, "--cwd", dir, "--mode", "bypass", "--state", filepath.Join(t.TempDir(), "st.json"))
	text, isErr = callTool(t, s2, "Bash", map[string]any{"command": "echo hi", "run_in_background": true})
	if !isErr || !strings.Contains(text, "run_in_background") {
		t.Errorf("with --state: error=%v %q", isErr, text)
	}
}

func waitPid(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", path)
		}
	}
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ") // a zombie is gone
}
