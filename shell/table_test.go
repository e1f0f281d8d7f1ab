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

// project is the directory tree the table runs against: a working directory
// with a symlink "link-out" to a directory outside it, and a separate home.
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
	for _, d := range []string{p.proj, p.out, p.home, filepath.Join(p.proj, "sub"), filepath.Join(p.proj, "src"),
		filepath.Join(p.proj, "empty"), filepath.Join(p.proj, "build"), filepath.Join(root, "proj2")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.Symlink(p.out, filepath.Join(p.proj, "link-out")); err != nil {
		tb.Fatal(err)
	}
	for _, f := range []string{"a", "b", "f", "f.txt", "README.md"} {
		if err := os.WriteFile(filepath.Join(p.proj, f), []byte("x\n"), 0o644); err != nil {
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
	return &Options{Mode: r.Mode, Cwd: cwd, WorkingDirs: []string{p.proj}, Home: p.home}
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
		if r.Class == "benign" || r.Class == "accept_edits_ok" {
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
