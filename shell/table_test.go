package shell

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type tableRow struct {
	Command string `json:"command"`
	Mode    string `json:"mode"`
	Cwd     string `json:"cwd,omitempty"`
	Plain   bool   `json:"plain,omitempty"` // the command runs without the hardened environment
	Want    string `json:"want"`
	Immune  *bool  `json:"immune,omitempty"`
	Class   string `json:"class"`
}

func loadTable(tb testing.TB) []tableRow {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", "commands.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var rows []tableRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var r tableRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("line %d: %v", n, err)
		}
		rows = append(rows, r)
	}
	return rows
}

// project is the directory tree the table runs against: a working
// directory with links out of it and within it, committed git
// repositories, files whose names look like options, and a separate home
// with credentials.
type project struct {
	root, proj, out, home string
}

func newProject(tb testing.TB) *project {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	p := &project{root: root, proj: filepath.Join(root, "proj"), out: filepath.Join(root, "out"), home: filepath.Join(root, "home")}
	dirs := []string{"proj", "out", "home", "proj/sub", "proj/src/pkg", "proj/empty", "proj/build", "proj2",
		"proj/.git/objects", "proj/.git/refs", "proj/tmpl/.git", "proj/deep/b/c", "proj/dashdir",
		"proj/bare.git/objects", "proj/bare.git/refs", "proj/evilbare.git/objects", "proj/evilbare.git/refs",
		"proj/wt", "envproj", "home/.ssh", "home/.aws", "home/.config/gh", "home/.config/gcloud", "home/.config/git",
		"home/.kube", "home/.docker", "home/.cargo", "home/.azure", "home/.terraform.d", "home/.gnupg"}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	links := map[string]string{
		"proj/link-out":      p.out,
		"proj/gl":            ".git",
		"proj/awslink":       filepath.Join(p.home, ".aws"),
		"proj/deep/b/c/root": "../../..",    // the project
		"proj/deep/b/c/up":   "../../../..", // above it
		"proj/sub/l":         "../../out",
		"proj/etclink":       "/etc",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(root, l)); err != nil {
			tb.Fatal(err)
		}
	}
	files := map[string]string{
		"proj/a": "x\n", "proj/b": "x\n", "proj/f": "x\n", "proj/f.txt": "x\n", "proj/README.md": "x\n",
		"proj/src/main.go": "package main\n", "proj/src/pkg/x.go": "package pkg\n",
		"proj/.git/HEAD": "ref: refs/heads/main\n", "proj/.git/config": "[core]\n\trepositoryformatversion = 0\n",
		"proj/tmpl/.git/config": "[core]\n\tfsmonitor = touch /tmp/pwned\n",
		"proj/bare.git/HEAD":    "ref: refs/heads/main\n", "proj/bare.git/config": "[core]\n\tbare = true\n\tfsmonitor = touch /tmp/pwned\n",
		"proj/evilbare.git/HEAD":   "ref: refs/heads/main\n",
		"proj/evilbare.git/config": "[core]\n\tbare = true\n[diff \"x\"]\n\ttextconv = sh -c id\n",
		"proj/wt/.git":             "gitdir: " + filepath.Join(p.out, "repo.git") + "\n",
		"proj/dashdir/--pre=sh":    "", "proj/dashdir/-r": "", "proj/dashdir/-p": "", "proj/dashdir/in": "",
		"envproj/.env": "K=1\n", "envproj/.env.example": "K=\n", "envproj/main.go": "package main\n", "proj/notes.txt": "n\n",
		"home/.ssh/id_rsa": "k", "home/.aws/credentials": "k", "home/.config/gh/hosts.yml": "k", "home/.kube/config": "k",
		"home/.bashrc": "", "home/.netrc": "k", "home/_netrc": "k", "home/.docker/config.json": "k",
		"home/.cargo/credentials.toml": "k", "home/.vault-token": "k", "home/.my.cnf": "k", "home/.git-credentials": "k",
	}
	for f, c := range files {
		if err := os.WriteFile(filepath.Join(root, f), []byte(c), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return p
}

func (p *project) expand(s string) string {
	return strings.NewReplacer("@PROJ@", p.proj, "@HOME@", p.home, "@OUT@", p.out).Replace(s)
}

func (p *project) options(r tableRow) *Options {
	cwd := p.proj
	if r.Cwd != "" {
		cwd = filepath.Join(p.proj, r.Cwd)
	}
	dirs := []string{p.proj}
	if strings.Contains(r.Cwd, "envproj") {
		// envproj is a second working directory, holding a .env: a
		// recursive read from it reaches a secret.
		dirs = append(dirs, filepath.Join(p.root, "envproj"))
	}
	return &Options{Mode: r.Mode, Cwd: cwd, WorkingDirs: dirs, Home: p.home, HardenedEnv: !r.Plain}
}

func TestTable(t *testing.T) {
	rows := loadTable(t)
	if len(rows) < 400 {
		t.Fatalf("table has %d rows, want at least 400", len(rows))
	}
	p := newProject(t)
	benign := 0
	for i, r := range rows {
		if r.Class == "benign" {
			benign++
		}
		cmd := p.expand(r.Command)
		a := Analyze(cmd, p.options(r))
		if got := a.Verdict.String(); got != r.Want {
			t.Errorf("row %d [%s] %s %q: got %s (%s: %s), want %s", i+1, r.Class, r.Mode, r.Command, got, a.Layer, a.Reason, r.Want)
			continue
		}
		if r.Immune != nil && a.BypassImmune != *r.Immune {
			t.Errorf("row %d %q: immune=%v, want %v (%s)", i+1, r.Command, a.BypassImmune, *r.Immune, a.Reason)
		}
		if a.ReadOnly && a.Verdict != Allow {
			t.Errorf("row %d %q: read-only but %s", i+1, r.Command, a.Verdict)
		}
	}
	if benign < 120 {
		t.Errorf("only %d benign rows", benign)
	}
}

// TestTableNoAdversarialAllow checks the security property separately: no
// adversarial line is allowed in any of the modes the analyser gates
// (default, accept_edits, dont_ask), whatever mode the line names, except
// the accept-edits cases that are meant to be (class accept_edits_ok).
func TestTableNoAdversarialAllow(t *testing.T) {
	p := newProject(t)
	for i, r := range loadTable(t) {
		if r.Class == "benign" || r.Class == "accept_edits_ok" || r.Want == "allow" {
			continue
		}
		for _, mode := range []string{"default", "accept_edits", "dont_ask", "explore"} {
			r2 := r
			r2.Mode = mode
			if a := Analyze(p.expand(r.Command), p.options(r2)); a.Verdict == Allow {
				t.Errorf("row %d [%s] %q allowed in mode %s: %s", i+1, r.Class, r.Command, mode, a.Reason)
			}
		}
	}
}
