//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// need skips (outside CI) or fails (in CI) when this machine's sandbox
// lacks a protection the test relies on.
func need(t *testing.T, st *Status, names ...string) {
	t.Helper()
	for _, n := range names {
		if !st.Has(n) {
			msg := "the sandbox here lacks " + n + ": " + st.String()
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

func newSandbox(t *testing.T, cfg *Config) (*Sandbox, *Status) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Status(context.Background())
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return s, st
}

// run runs a bash script in s with dir writable; it returns the combined
// output, the exit error and the status.
func run(t *testing.T, s *Sandbox, dir, script string, env []string) (string, error, *Status) {
	t.Helper()
	return runIn(t, s, dir, script, env, nil)
}

// runIn is run, calling after (if not nil) once the command has exited,
// before the run is closed.
func runIn(t *testing.T, s *Sandbox, dir, script string, env []string, after func(*Run)) (string, error, *Status) {
	t.Helper()
	r, err := s.NewRun([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := r.Wrap(cmd); err != nil {
		return "", err, nil
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	st, rerr := r.Report()
	werr := cmd.Wait()
	if after != nil {
		after(r)
	}
	if rerr != nil {
		return out.String(), rerr, st
	}
	return out.String(), werr, st
}

func TestStatusHere(t *testing.T) {
	_, st := newSandbox(t, nil)
	t.Logf("landlock ABI %d; %s", st.LandlockABI, st)
	need(t, st, FilesystemWrites, NoNewPrivileges, SyscallFilter, UnixSockets)
	for _, m := range st.Missing {
		if st.Has(m.Name) {
			t.Errorf("%s is both active and missing", m.Name)
		}
	}
}

func TestWritesConfined(t *testing.T) {
	s, st := newSandbox(t, nil)
	need(t, st, FilesystemWrites)
	dir, outside := t.TempDir(), t.TempDir()
	out, err, _ := run(t, s, dir, `echo in > in.txt && echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"; echo out > `+outside+`/x; echo $?`, nil)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "in.txt")); string(b) != "in\n" {
		t.Errorf("write inside: %q", b)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a write outside went through: %v\n%s", err, out)
	}
	if !strings.Contains(out, "tmp\n") || !strings.Contains(out, "Permission denied") && !strings.Contains(out, "Read-only file system") {
		t.Errorf("output: %s", out)
	}
}

func TestUnixSocketsBlocked(t *testing.T) {
	s, st := newSandbox(t, nil)
	need(t, st, UnixSockets)
	dir := t.TempDir()
	sock := filepath.Join(t.TempDir(), "s")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	out, err, _ := run(t, s, dir, `python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect("`+sock+`"); print("connected")'`, nil)
	if err == nil || strings.Contains(out, "connected") {
		t.Errorf("a Unix socket outside was reachable: %v %s", err, out)
	}
	s2, _ := newSandbox(t, &Config{AllowUnixSockets: true})
	if out, err, _ := run(t, s2, dir, `python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect("`+sock+`"); print("connected")'`, nil); err != nil {
		t.Errorf("AllowUnixSockets: %v %s", err, out)
	}
}

// Without user namespaces the sandbox keeps what it can (Landlock, seccomp,
// no capabilities), reports the rest as missing, and Required refuses.
func TestDegradedHonestly(t *testing.T) {
	lv := levelNone
	forceLevel = &lv
	defer func() { forceLevel = nil }()
	s, st := newSandbox(t, nil)
	need(t, st, FilesystemWrites)
	for _, name := range []string{ProtectedPaths, SecretReads, Network, UserNamespace, MountLock} {
		if st.Has(name) {
			t.Errorf("%s claimed without namespaces: %s", name, st)
		}
		if !strings.Contains(st.String(), name+" (") {
			t.Errorf("%s not reported missing: %s", name, st)
		}
	}
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	out, err, rst := run(t, s, dir, `exec 3<>/dev/tcp/127.0.0.1/`+portOf(l)+` && echo connected`, nil)
	if rst.Has(NetworkTCP) && (err == nil || strings.Contains(out, "connected")) {
		t.Errorf("TCP went through with network-tcp in force: %s", out)
	}

	req, _ := newSandbox(t, &Config{Required: true})
	if _, err, _ := run(t, req, dir, "echo ran > ran", nil); err == nil || !strings.Contains(err.Error(), "required") {
		t.Errorf("Required ran without namespaces: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the command ran")
	}
}

func portOf(l net.Listener) string {
	_, p, _ := net.SplitHostPort(l.Addr().String())
	return p
}

func TestNewRefusesAllowList(t *testing.T) {
	if _, err := New(&Config{Network: "github.com"}); err == nil || !strings.Contains(err.Error(), "AllowedDomains") {
		t.Errorf("New accepted a host allow-list: %v", err)
	}
	if _, err := New(&Config{AllowWrite: []string{"rel"}}); err == nil {
		t.Error("New accepted a relative path")
	}
}
