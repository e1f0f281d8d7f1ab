package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateNotWritable: a --state in a directory that takes no new file fails
// before the call runs.
func TestStateNotWritable(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if f, err := os.CreateTemp(ro, "probe"); err == nil {
		// Root writes through permission bits; /sys takes no new file even for root.
		f.Close()
		os.Remove(f.Name())
		if fi, err := os.Stat("/sys"); err != nil || !fi.IsDir() {
			t.Skip("no directory here refuses new files to this user")
		}
		ro = "/sys"
	}
	var out, errb bytes.Buffer
	args := []string{"call", "--cwd", dir, "--yes", "--state", filepath.Join(ro, "st.json"), "Bash", `{"command":"touch ran"}`}
	code := exitCode(run(context.Background(), args, strings.NewReader(""), &out, &errb), &errb)
	if code != 2 || !strings.Contains(errb.String(), "cannot write in "+ro) {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the call ran")
	}
}

// TestStateLink: saving a --state that is a link replaces the file it
// names; the link stays a link.
func TestStateLink(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	// A link: the file it names is replaced, the link stays a link.
	target := filepath.Join(sub, "real.json")
	os.WriteFile(target, nil, 0o600)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	var out, errb bytes.Buffer
	args := []string{"call", "--cwd", dir, "--state", link, "Bash", `{"command":"cd sub"}`}
	if code := exitCode(run(context.Background(), args, strings.NewReader(""), &out, &errb), &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), `"builtin.cwd": "`+sub+`"`) {
		t.Errorf("the linked file was not saved:\n%s", b)
	}
}
