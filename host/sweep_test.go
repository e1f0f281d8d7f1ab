package host_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/sandbox"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv("HOST_TEST_KILLED_RUN"); dir != "" {
		killedRun(dir)
	}
	os.Exit(m.Run())
}

// killedRun starts a sandboxed command in dir and dies by SIGKILL while
// it runs, as a toolscope killed with kill -9 does.
func killedRun(dir string) {
	sb, err := sandbox.New(nil)
	if err != nil {
		os.Exit(3)
	}
	r, err := sb.NewRun([]string{dir})
	if err != nil {
		os.Exit(3)
	}
	cmd := exec.Command("/bin/sh", "-c", "sleep 30")
	if err := r.Wrap(cmd); err != nil || cmd.Start() != nil {
		os.Exit(3)
	}
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

// TestSweepBeforeSettings: the placeholders a killed run left (empty,
// mode 0: a .claude no one can read) are gone once a workspace's
// settings are loaded, so a user's toolscope does not fail reading
// .claude/settings.json until some sandboxed run sweeps them.
func TestSweepBeforeSettings(t *testing.T) {
	sb, err := sandbox.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := sb.Status(context.Background()); err != nil || !st.Has(sandbox.ProtectedPaths) {
		if os.Getenv("CI") != "" {
			t.Fatalf("the sandbox lacks protected paths: %v %s", err, st)
		}
		t.Skipf("the sandbox lacks protected paths: %v %s", err, st)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the journals of this test's runs only
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), "HOST_TEST_KILLED_RUN="+dir)
	cmd.Run()
	fi, err := os.Lstat(filepath.Join(dir, ".claude"))
	if err != nil || fi.Mode().Perm() != 0 {
		t.Fatalf("the killed run left no placeholder .claude (%v, %v): nothing to test", fi, err)
	}
	if _, err := host.LoadSettings(&host.Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("left in the project after loading its settings: %s", e.Name())
	}
}
