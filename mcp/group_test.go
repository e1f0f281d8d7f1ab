package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolscope/toolscope/mcp"
)

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// TestStdioServerEndsWithItsGroup: a server started through a launcher
// (npx, uvx, a shell script) that leaves a process of its own behind
// ends with it when the client closes: the signals go to the server's
// process group. (Before, only the launcher's process was signalled, and
// the process it started ran on.)
func TestStdioServerEndsWithItsGroup(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "bad.py")
	os.WriteFile(script, []byte(badServer), 0o644)
	pidFile := filepath.Join(dir, "pid")
	launcher := `sleep 300 & echo $! > "$1"; exec "$2" "$3" hang`
	c, err := mcp.NewClient("launched", mcp.ServerConfig{Command: "sh", Args: []string{"-c", launcher, "sh", pidFile, py, script}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if !alive(pid) {
		t.Fatalf("the launcher's process %d is not running before the close", pid)
	}
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("process %d, started by the server's launcher, outlived the client's Close", pid)
	}
}
