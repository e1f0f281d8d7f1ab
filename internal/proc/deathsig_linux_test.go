package proc

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const orphanChildEnv = "TOOLSCOPE_PROC_ORPHAN_CHILD"

// A process that runs a command and is killed with SIGKILL (a supervisor
// gone, an OOM kill) takes the command's shell with it: the kernel kills
// the shell when its parent dies.
func TestShellDiesWithItsParent(t *testing.T) {
	if m := os.Getenv(orphanChildEnv); m != "" {
		Run(context.Background(), "echo $$ > "+m+"; sleep 300; :", nil, func(string) {})
		return
	}
	pidFile := t.TempDir() + "/shell.pid"
	cmd := exec.Command(os.Args[0], "-test.run=^TestShellDiesWithItsParent$", "-test.count=1")
	cmd.Env = append(os.Environ(), orphanChildEnv+"="+pidFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var shell int
	deadline := time.Now().Add(30 * time.Second)
	for shell == 0 {
		b, _ := os.ReadFile(pidFile)
		shell, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child's command did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() { syscall.Kill(-shell, syscall.SIGKILL) }) // the sleep, which outlives the shell
	cmd.Process.Kill()
	cmd.Wait()
	for deadline = time.Now().Add(10 * time.Second); alive(shell); {
		if time.Now().After(deadline) {
			t.Fatalf("the shell %d outlived the process that ran it", shell)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid is a process that has not exited.
func alive(pid int) bool {
	var buf [512]byte
	_, _, ok := statOf(strconv.Itoa(pid), buf[:])
	return ok && !isZombie(pid)
}
