//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bashglob

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestExpandFIFO checks that Expand does not open a FIFO as a directory
// (which would block until a writer appears).
func TestExpandFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, p := range []string{"fifo/*", "fif?/*", "fif?/", "*/x", "f*"} {
		res, err := Expand(p, &ExpandOptions{Dir: dir, StrictErrors: true})
		if err != nil {
			t.Errorf("Expand(%q): %v", p, err)
		}
		if p == "f*" && (len(res) != 1 || res[0] != "fifo") {
			t.Errorf("Expand(f*) = %q", res)
		}
	}
}

func TestExpandStrictErrors(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: permissions are not enforced")
	}
	dir := t.TempDir()
	locked := filepath.Join(dir, "locked")
	if err := writeEmpty(filepath.Join(locked, "secret")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	res, err := Expand("locked/*", &ExpandOptions{Dir: dir})
	if err != nil || res != nil {
		t.Errorf("Expand(locked/*) = %q, %v; want nothing, as bash", res, err)
	}
	if _, err := Expand("locked/*", &ExpandOptions{Dir: dir, StrictErrors: true}); !errors.Is(err, os.ErrPermission) {
		t.Errorf("strict Expand(locked/*): err = %v, want permission denied", err)
	}
	if _, err := Expand("l*/secret", &ExpandOptions{Dir: dir, StrictErrors: true}); !errors.Is(err, os.ErrPermission) {
		t.Errorf("strict Expand(l*/secret): err = %v, want permission denied", err)
	}
}
