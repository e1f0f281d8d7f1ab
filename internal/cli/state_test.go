package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/tool"
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

// TestSaveStateAtomic: saving replaces the file whole, keeps its mode,
// follows a link to the file it names, and leaves no temporary file behind,
// whether it succeeds or fails.
func TestSaveStateAtomic(t *testing.T) {
	dir := t.TempDir()
	st := tool.NewState(nil)
	builtin.DataOf(st).SetCwd("/p")
	path := filepath.Join(dir, "st.json")
	if err := os.WriteFile(path, []byte("{}"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := saveState(path, nil, st); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if body, sealed, err := unseal(b); err != nil || !sealed || !strings.HasPrefix(string(body), "{\n  \"toolscope_state\": 2,") {
		t.Errorf("saved (sealed %v, %v):\n%s", sealed, err, b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", fi.Mode().Perm())
	}
	// Failures: the target is a directory (the rename fails), the directory
	// is missing (the temporary file cannot be made).
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "keep"), nil, 0o644)
	if err := saveState(sub, nil, st); err == nil {
		t.Error("saving over a directory succeeded")
	}
	if err := saveState(filepath.Join(dir, "missing", "st.json"), nil, st); err == nil {
		t.Error("saving into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "st.json sub" {
		t.Errorf("files left in the directory: %v", names)
	}
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
