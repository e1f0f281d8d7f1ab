package proc

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCommandEndsGroup: when ctx is done, a Command is killed with what
// it started, and Wait returns though a grandchild held its output open.
func TestCommandEndsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := Command(ctx, "/bin/sh", "-c", `sleep 300 & echo $! > "$1"; wait`, "sh", pidFile)
	var out strings.Builder
	cmd.Stdout = &out // a pipe the grandchild holds too
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if pid == 0 {
		t.Fatal("the command did not start its child")
	}
	cancel()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(WaitDelay + 10*time.Second):
		t.Fatal("Wait did not return after the context ended")
	}
	for deadline := time.Now().Add(5 * time.Second); syscall.Kill(pid, 0) == nil && !isZombie(pid) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil && !isZombie(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the grandchild %d outlived the command's context", pid)
	}
	if err := EndGroup(Command(context.Background(), "true"), syscall.SIGKILL); err == nil {
		t.Error("EndGroup of a command not started: no error")
	}
}

// TestOneStartPlace: toolscope starts processes only here: no other
// package of the module calls os/exec's Command or CommandContext,
// os.StartProcess or syscall.ForkExec (the reaper helper's ForkExec is
// this package's; the bench programs are not toolscope).
func TestOneStartPlace(t *testing.T) {
	root := filepath.Join("..", "..")
	allowed := []string{"internal/proc/", "internal/reaper/", "bench/", "temporal/"}
	banned := map[string]bool{"exec.Command": true, "exec.CommandContext": true, "os.StartProcess": true, "syscall.ForkExec": true}
	fset := token.NewFileSet()
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, a := range allowed {
			if strings.HasPrefix(rel, a) {
				return nil
			}
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && banned[x.Name+"."+sel.Sel.Name] {
				found = append(found, fset.Position(sel.Pos()).String()+": "+x.Name+"."+sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("processes started outside internal/proc (use proc.Command):\n%s", strings.Join(found, "\n"))
	}
}
