package builtin_test

import (
	"archive/tar"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/internal/pathpolicy"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/shell"
	"github.com/toolscope/toolscope/tool"
)

// classMembers are members of the protected class (files that run later
// or grant permissions), as paths relative to a project; each is also
// judged nested two and three levels deep.
var classMembers = []string{
	".git/config", ".git/hooks/pre-commit", "console-decisions.jsonl",
	".lefthook.yml", "lefthook.yml", "lefthook.yaml", ".lefthook.yaml", "lefthook-local.yml", ".lefthook-local.yaml",
	"lefthook.toml", ".lefthook.json", ".config/lefthook.yml", ".config/lefthook.yaml",
	".huskyrc", ".huskyrc.json", ".huskyrc.js", "husky.config.js", ".husky/pre-commit",
	".devcontainer/devcontainer.json", ".devcontainer.json",
	".venv/lib/python3.12/site-packages/evil.pth", "lib/python3.12/site-packages/sitecustomize.py", "usercustomize.py",
	".venv/bin/ls", "venv/bin/python", "any.pth",
	"rust-toolchain.toml", "rust-toolchain",
	".github/workflows/ci.yml", ".gitlab-ci.yml", ".circleci/config.yml", ".buildkite/pipeline.yml", "Jenkinsfile",
	".claude/settings.local.json", ".mcp.json", ".vscode/tasks.json", ".vscode/settings.json", ".envrc",
	".idea/workspace.xml", ".cursor/mcp.json", ".gemini/settings.json", ".codex/config.toml", ".zed/tasks.json",
	".pre-commit-config.yaml", ".hg/hgrc", ".npmrc", ".yarnrc", ".yarnrc.yml", "bunfig.toml", ".pnpmfile.cjs",
	".cargo/config.toml", ".cargo/config", ".gdbinit", ".exrc", ".nvim.lua", ".bashrc", "mise.toml",
}

// benignMembers are ordinary project files: the judges must still let
// them be written in accept_edits (or the table proves nothing).
var benignMembers = []string{"src/main.go", "README.md", "lib/python3.12/x.py", "bin/tool.txt", "github/workflows.txt",
	"devcontainer/x", "notes.pth.txt", "toolchain.toml"}

var classDepths = []string{"", "a/b/", "vendor/lib/x/"}

// judgeAll runs every judge on rel (relative to the project root) and
// reports those that would let it be written without asking.
func judgeAll(t *testing.T, root, rel string, pol *pathpolicy.Policy, tk *tool.Toolkit) []string {
	t.Helper()
	return judgeAllWith(t, root, rel, pol, tk, &shell.Options{Mode: "accept_edits", Cwd: root})
}

// judgeAllWith is judgeAll with the shell analyser's options so.
func judgeAllWith(t *testing.T, root, rel string, pol *pathpolicy.Policy, tk *tool.Toolkit, so *shell.Options) []string {
	t.Helper()
	abs := filepath.Join(root, rel)
	var allowed []string
	if !pol.Classify(abs).Protected {
		allowed = append(allowed, "Classify")
	}
	// The file exists, with content, so that sed -i, cp and Edit have
	// something to work on.
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tarName := "m-" + strings.NewReplacer("/", "_", ".", "_").Replace(rel) + ".tar"
	writeTarFile(t, filepath.Join(root, tarName), rel)
	q := shellQuote(rel)
	for _, cmd := range []string{
		"echo x > " + q, "cp f.txt " + q, "echo x | tee " + q, "sed -i s/old/new/ " + q, "tar -xf " + tarName,
	} {
		a := shell.Analyze(cmd, so)
		if a.Verdict == shell.Allow {
			allowed = append(allowed, "shell "+cmd)
		}
		// An extraction asks in accept_edits whatever its members; with
		// an allow rule for tar it runs, unless a member is protected.
		if strings.HasPrefix(cmd, "tar ") {
			if _, ok := a.AllowedBy([]string{"tar:*"}); ok {
				allowed = append(allowed, "shell "+cmd+" with Bash(tar:*)")
			}
		}
	}
	st := tool.NewState(&permission.Context{Mode: permission.AcceptEdits})
	for _, c := range []struct{ name, input string }{
		{"Write", `{"file_path":` + jsonQuote(abs) + `,"content":"new\n"}`},
		{"Edit", `{"file_path":` + jsonQuote(abs) + `,"old_string":"old","new_string":"new"}`},
	} {
		if c.name == "Edit" {
			// Edit needs the file read first.
			if _, err := tk.Call(t.Context(), &tool.Call{ID: "r", Name: "Read", Input: []byte(`{"file_path":` + jsonQuote(abs) + `}`), State: st}); err != nil {
				t.Fatal(err)
			}
		}
		r, err := tk.Call(t.Context(), &tool.Call{ID: "t", Name: c.name, Input: []byte(c.input), State: st})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != tool.StatusAsking {
			allowed = append(allowed, c.name+" ("+string(r.Status)+")")
		}
		if b, _ := os.ReadFile(abs); string(b) != "old\n" {
			allowed = append(allowed, c.name+" changed the file")
			os.WriteFile(abs, []byte("old\n"), 0o644)
		}
	}
	return allowed
}

func writeTarFile(t *testing.T, p, member string) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	body := []byte("payload\n")
	if err := tw.WriteHeader(&tar.Header{Name: member, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	tw.Write(body)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func jsonQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// classProject is a project directory with the built-in tools for it.
func classProject(t *testing.T, opts *builtin.Options) (string, *tool.Toolkit, *pathpolicy.Policy) {
	t.Helper()
	e := newEnv(t, permission.AcceptEdits, opts)
	os.WriteFile(filepath.Join(e.root, "f.txt"), []byte("x\n"), 0o644)
	return e.root, e.tk, pathpolicy.New(&pathpolicy.Options{WorkingDirs: []string{e.root}})
}

// Every member of the protected class, at the top of the project and
// nested, is protected for every judge: pathpolicy's Classify, the shell
// analyser's redirections, cp, tee, sed -i and tar extraction, and the
// Write and Edit tools, in accept_edits.
func TestProtectedClassJudges(t *testing.T) {
	for _, depth := range classDepths {
		for _, m := range classMembers {
			rel := depth + m
			t.Run(rel, func(t *testing.T) {
				t.Parallel()
				root, tk, pol := classProject(t, nil)
				if allowed := judgeAll(t, root, rel, pol, tk); len(allowed) > 0 {
					t.Errorf("%s written without asking by: %s", rel, strings.Join(allowed, "; "))
				}
			})
		}
	}
	// The benign rows: every judge still lets them be written.
	for _, depth := range classDepths {
		for _, m := range benignMembers {
			rel := depth + m
			t.Run("benign/"+rel, func(t *testing.T) {
				t.Parallel()
				root, tk, pol := classProject(t, nil)
				abs := filepath.Join(root, rel)
				if pol.Classify(abs).Protected {
					t.Errorf("%s: Classify says protected", rel)
				}
				os.MkdirAll(filepath.Dir(abs), 0o755)
				os.WriteFile(abs, []byte("old\n"), 0o644)
				for _, cmd := range []string{"echo x > " + shellQuote(rel), "cp f.txt " + shellQuote(rel), "sed -i s/old/new/ " + shellQuote(rel)} {
					if a := shell.Analyze(cmd, &shell.Options{Mode: "accept_edits", Cwd: root}); a.Verdict != shell.Allow {
						t.Errorf("%q: %s (%s)", cmd, a.Verdict, a.Reason)
					}
				}
				st := tool.NewState(&permission.Context{Mode: permission.AcceptEdits})
				if _, err := tk.Call(t.Context(), &tool.Call{ID: "r", Name: "Read", Input: []byte(`{"file_path":` + jsonQuote(abs) + `}`), State: st}); err != nil {
					t.Fatal(err)
				}
				r, err := tk.Call(t.Context(), &tool.Call{ID: "t", Name: "Write", Input: []byte(`{"file_path":` + jsonQuote(abs) + `,"content":"new\n"}`), State: st})
				if err != nil || r.Status != tool.StatusSuccess {
					t.Errorf("Write %s: %v %s %s", rel, err, r.Status, r.Text())
				}
			})
		}
	}
}

// A directory holding pyvenv.cfg is a virtual environment whatever its
// name: its bin/ and site-packages are protected.
func TestProtectedClassVirtualenv(t *testing.T) {
	for _, rel := range []string{"tools/env/bin/black", "tools/env/lib/python3.11/site-packages/pkg/__init__.py", "env/bin/python3"} {
		t.Run(rel, func(t *testing.T) {
			root, tk, pol := classProject(t, nil)
			env := filepath.Join(root, strings.SplitN(rel, "/bin/", 2)[0])
			if i := strings.Index(rel, "/lib/"); i >= 0 {
				env = filepath.Join(root, rel[:i])
			}
			os.MkdirAll(env, 0o755)
			os.WriteFile(filepath.Join(env, "pyvenv.cfg"), []byte("home = /usr/bin\n"), 0o644)
			if allowed := judgeAll(t, root, rel, pol, tk); len(allowed) > 0 {
				t.Errorf("%s written without asking by: %s", rel, strings.Join(allowed, "; "))
			}
		})
	}
}

// The directory core.hooksPath names in the repository's configuration is
// protected: in .git/config, and through a .git file (a worktree's) in
// the common directory's config.
func TestProtectedClassHooksPath(t *testing.T) {
	t.Run("git dir", func(t *testing.T) {
		root, tk, pol := classProject(t, nil)
		os.MkdirAll(filepath.Join(root, ".git"), 0o755)
		os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]\n\trepositoryformatversion = 0\n\thooksPath = tools/hooks ; the team's hooks\n"), 0o644)
		for _, rel := range []string{"tools/hooks/pre-commit", "tools/hooks/sub/x"} {
			if allowed := judgeAll(t, root, rel, pol, tk); len(allowed) > 0 {
				t.Errorf("%s written without asking by: %s", rel, strings.Join(allowed, "; "))
			}
		}
		// Elsewhere in the repository, writing is still allowed.
		if pol.Classify(filepath.Join(root, "tools/other.sh")).Protected {
			t.Error("tools/other.sh is protected")
		}
	})
	t.Run("worktree", func(t *testing.T) {
		root, tk, pol := classProject(t, nil)
		main := t.TempDir()
		gitdir := filepath.Join(main, ".git", "worktrees", "wt")
		os.MkdirAll(gitdir, 0o755)
		os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644)
		os.WriteFile(filepath.Join(main, ".git", "config"), []byte("[core]\n\thookspath = \"my hooks\"\n"), 0o644)
		os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644)
		rel := "my hooks/post-checkout"
		if allowed := judgeAll(t, root, rel, pol, tk); len(allowed) > 0 {
			t.Errorf("%s written without asking by: %s", rel, strings.Join(allowed, "; "))
		}
	})
}
