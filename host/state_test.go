package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/tool"
)

// TestSaveStateAtomic: saving replaces the file whole, keeps its mode, and
// leaves no temporary file behind, whether it succeeds or fails.
func TestSaveStateAtomic(t *testing.T) {
	dir := t.TempDir()
	st := tool.NewState(nil)
	builtin.DataOf(st).SetCwd("/p")
	path := filepath.Join(dir, "st.json")
	if err := os.WriteFile(path, []byte("{}"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := saveStateLocked(path, nil, st, nil); err != nil {
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
	if err := saveStateLocked(sub, nil, st, nil); err == nil {
		t.Error("saving over a directory succeeded")
	}
	if err := saveStateLocked(filepath.Join(dir, "missing", "st.json"), nil, st, nil); err == nil {
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
}
