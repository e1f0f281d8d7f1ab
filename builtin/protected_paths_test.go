package builtin_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/internal/pathpolicy"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/shell"
	"github.com/toolscope/toolscope/tool"
)

// A directory on the command search path is protected: a file written
// there is a program the next command runs by name. Given as PathDirs, or
// taken from PATH in the tools' environment.
func TestProtectedClassPathDirs(t *testing.T) {
	t.Run("PathDirs", func(t *testing.T) {
		root, _ := filepath.EvalSymlinks(t.TempDir())
		bin := filepath.Join(root, "tools", "bin")
		opts := &builtin.Options{Root: root, PathDirs: []string{bin}}
		tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(opts)})
		if err != nil {
			t.Fatal(err)
		}
		pol := pathpolicy.New(&pathpolicy.Options{WorkingDirs: []string{root}, PathDirs: []string{bin}})
		os.WriteFile(filepath.Join(root, "f.txt"), []byte("x\n"), 0o644)
		if allowed := judgeAllWith(t, root, "tools/bin/ls", pol, tk, &shell.Options{Mode: "accept_edits", Cwd: root, PathDirs: []string{bin}}); len(allowed) > 0 {
			t.Errorf("tools/bin/ls written without asking by: %s", strings.Join(allowed, "; "))
		}
		if !slices.Contains(pol.ProtectedPaths(), bin) {
			t.Errorf("ProtectedPaths() = %v, lacks %s", pol.ProtectedPaths(), bin)
		}
	})
	t.Run("Env PATH", func(t *testing.T) {
		root, _ := filepath.EvalSymlinks(t.TempDir())
		bin := filepath.Join(root, ".direnv", "bin2")
		opts := &builtin.Options{Root: root, Env: []string{"PATH=.:bin::" + bin + ":/usr/bin:/bin", "HOME=" + root}}
		tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(opts)})
		if err != nil {
			t.Fatal(err)
		}
		st := tool.NewState(&permission.Context{Mode: permission.AcceptEdits})
		for _, p := range []string{filepath.Join(bin, "ls")} {
			r, err := tk.Call(t.Context(), &tool.Call{ID: "t", Name: "Write", Input: []byte(`{"file_path":` + jsonQuote(p) + `,"content":"x"}`), State: st})
			if err != nil || r.Status != tool.StatusAsking {
				t.Errorf("Write %s: %v %s", p, err, r.Status)
			}
		}
		// Relative and empty entries are dropped from the command's PATH.
		bypass := tool.NewState(&permission.Context{Mode: permission.Bypass})
		r, err := tk.Call(t.Context(), &tool.Call{ID: "b", Name: "Bash", Input: []byte(`{"command":"printenv PATH"}`), State: bypass})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(r.Text()); got != bin+":/usr/bin:/bin" {
			t.Errorf("PATH in the command = %q (status %s), want %q", got, r.Status, bin+":/usr/bin:/bin")
		}
	})
}

// Options.ProtectedPaths (toolscope's own state, config and run files) are
// protected with everything below them, inside the project too.
func TestProtectedClassProtectedPaths(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	state := filepath.Join(root, "state.json")
	run := filepath.Join(root, "run")
	opts := &builtin.Options{Root: root, ProtectedPaths: []string{state, run}, PathDirs: []string{}}
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(opts)})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "f.txt"), []byte("x\n"), 0o644)
	pol := pathpolicy.New(&pathpolicy.Options{WorkingDirs: []string{root}, ProtectedPaths: []string{state, run}, PathDirs: []string{}})
	for _, rel := range []string{"state.json", "run/lock", "run/sub/x.sock"} {
		if allowed := judgeAllWith(t, root, rel, pol, tk, &shell.Options{Mode: "accept_edits", Cwd: root, ProtectedPaths: []string{state, run}, PathDirs: []string{}}); len(allowed) > 0 {
			t.Errorf("%s written without asking by: %s", rel, strings.Join(allowed, "; "))
		}
	}
	if got := pol.ProtectedPaths(); !slices.Equal(got, []string{run, state}) {
		t.Errorf("ProtectedPaths() = %v, want %v", got, []string{run, state})
	}
	// A link to a protected path is judged where it leads.
	os.Symlink(state, filepath.Join(root, "alias.json"))
	if !pol.Classify(filepath.Join(root, "alias.json")).Protected {
		t.Error("a link to the state file is not protected")
	}
}
