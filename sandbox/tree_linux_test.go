//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func mkfile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTreeScan: the scan finds protected and secret files at any depth,
// and a scan right after a change (within the same clock tick as the
// last reading) sees it, from the cache or not.
func TestTreeScan(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a/b/c/d/e/f/g/h/i/j/k/l")
	mkfile(t, filepath.Join(deep, ".git/config"), "")
	mkfile(t, filepath.Join(deep, "m/.env"), "SECRET=1\n")
	mkfile(t, filepath.Join(root, "x/.venv/bin/python"), "")
	mkfile(t, filepath.Join(root, "node_modules/p/.git/config"), "")
	mkfile(t, filepath.Join(root, "src/main.go"), "")
	var c treeCache
	ts := c.scan(root, maxTreeDirs)
	if !ts.complete {
		t.Fatal("incomplete")
	}
	wantBind := []string{filepath.Join(deep, ".git"), filepath.Join(root, "x/.venv/bin")}
	slices.Sort(ts.bind)
	if !slices.Equal(ts.bind, wantBind) {
		t.Errorf("bind %v, want %v", ts.bind, wantBind)
	}
	if !slices.Equal(ts.secrets, []string{filepath.Join(deep, "m/.env")}) {
		t.Errorf("secrets %v", ts.secrets)
	}
	if _, ok := ts.prot[filepath.Join(deep, "m/.env")]; !ok {
		t.Error(".env, a secret and a member of the class, not among the protected")
	}
	// Changes at once after the scan: a new member deep down, a directory
	// replaced by another of the same name.
	for i := 0; i < 20; i++ {
		p := filepath.Join(deep, "n"+string(rune('a'+i)), ".envrc")
		mkfile(t, p, "")
		ts = c.scan(root, maxTreeDirs)
		if _, ok := ts.prot[p]; !ok {
			t.Fatalf("round %d: %s not found right after it was made", i, p)
		}
	}
	// A parent renamed away and the repository made anew: another file,
	// in a moved directory.
	pre := ts
	if err := os.Rename(filepath.Join(root, "a/b"), filepath.Join(root, "a/b2")); err != nil {
		t.Fatal(err)
	}
	mkfile(t, filepath.Join(deep, ".git/config"), "")
	ts = c.scan(root, maxTreeDirs)
	p := filepath.Join(deep, ".git")
	if was, now := pre.prot[p], ts.prot[p]; was.id == now.id || !pre.movedAbove(ts, p) {
		t.Errorf("a repository made anew under a moved parent: %v %v", was, now)
	}
	if pre.movedAbove(ts, filepath.Join(root, "x/.venv/bin")) {
		t.Error("x/.venv/bin: a parent moved")
	}
	// Past the bound the scan says it did not finish.
	if ts := (&treeCache{}).scan(root, 5); ts.complete {
		t.Error("a scan of more directories than its bound is complete")
	}
}

// TestTooManyDirectories: a writable directory with more directories than
// a scan reads lacks the protected-paths protection, so the sandbox does
// not confine its commands (a caller asks instead of running them).
func TestTooManyDirectories(t *testing.T) {
	s, st := newSandbox(t, nil)
	need(t, st, ProtectedPaths)
	defer func(n int) { maxTreeDirs = n }(maxTreeDirs)
	maxTreeDirs = 10
	dir := t.TempDir()
	for i := range 12 {
		if err := os.MkdirAll(filepath.Join(dir, "d", strings.Repeat("x", i+1)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, err, st := run(t, s, dir, "true", nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Has(ProtectedPaths) || st.Confines() {
		t.Errorf("protected paths in force past the scan's bound: %s", st)
	}
	found := false
	for _, m := range st.Missing {
		found = found || m.Name == ProtectedPaths && strings.Contains(m.Why, "more than 10 directories")
	}
	if !found {
		t.Errorf("the status does not say why: %s", st)
	}
	maxTreeDirs = 100
	if _, _, st := run(t, s, dir, "true", nil); !st.Has(ProtectedPaths) {
		t.Errorf("within the bound: %s", st)
	}
}

// TestQuarantine: what a command makes of the protected class is moved
// aside after it, at any depth, but for what keep keeps; a second member
// made at a path whose quarantine name is taken gets one with a random
// part.
func TestQuarantine(t *testing.T) {
	s, st := newSandbox(t, nil)
	need(t, st, ProtectedPaths)
	dir := t.TempDir()
	mkfile(t, filepath.Join(dir, "p/q/r/s/t/u/v/w/.envrc"+QuarantineSuffix), "earlier\n")
	mkfile(t, filepath.Join(dir, "sub/.npmrc"), "a=1\n")
	mkfile(t, filepath.Join(dir, "conf/.kube/config"), "server: a\n")
	kept := filepath.Join(dir, "k/.vscode")
	out, blocked, err := runQ(t, s, dir, `mkdir -p p/q/r/s/t/u/v/w && echo x > p/q/r/s/t/u/v/w/.envrc && mkdir -p k/.vscode && echo x > k/.vscode/tasks.json && echo ok > p/readme`, nil, func() {
		// An editor outside saves sub/.npmrc (a new file renamed over
		// it) while the command runs: the command could not have, it
		// stays. And kubectl its .kube/config, in a directory hidden
		// while the command ran.
		for _, f := range []string{"sub/.npmrc", "conf/.kube/config"} {
			mkfile(t, filepath.Join(dir, f+".tmp"), "new\n")
			if err := os.Rename(filepath.Join(dir, f+".tmp"), filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	}, func(p string) bool { return p == kept })
	if err != nil {
		t.Error(err)
	}
	envrc := filepath.Join(dir, "p/q/r/s/t/u/v/w/.envrc")
	if len(blocked) != 1 || blocked[0].Path != envrc || !strings.HasPrefix(blocked[0].MovedTo, envrc+QuarantineSuffix+"-") || !strings.Contains(blocked[0].Why, "direnv") {
		t.Fatalf("blocked %+v\n%s", blocked, out)
	}
	if b, _ := os.ReadFile(envrc + QuarantineSuffix); string(b) != "earlier\n" {
		t.Errorf("the earlier quarantined file was replaced: %q", b)
	}
	for _, p := range []string{kept + "/tasks.json", blocked[0].MovedTo, filepath.Join(dir, "p/readme")} {
		if _, err := os.Lstat(p); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Lstat(envrc); err == nil {
		t.Error(".envrc kept")
	}
}

// runQ runs script in the sandbox in dir, then calls meanwhile (if not
// nil: what happens outside while the command runs, done once it has
// exited), and returns its output and what Quarantine did after it.
func runQ(t *testing.T, s *Sandbox, dir, script string, env []string, meanwhile func(), keep func(string) bool) (string, []Blocked, error) {
	t.Helper()
	var blocked []Blocked
	var qerr error
	out, err, _ := runIn(t, s, dir, script, env, func(r *Run) {
		if meanwhile != nil {
			meanwhile()
		}
		blocked, qerr = r.Quarantine(keep)
	})
	if err != nil {
		t.Logf("the command: %v", err)
	}
	return out, blocked, qerr
}

func blockedRel(dir string, bs []Blocked) []string {
	var out []string
	for _, b := range bs {
		out = append(out, strings.TrimPrefix(b.Path, dir+"/"))
	}
	return out
}

// TestQuarantineBounds: a command cannot hide what it made past the scan's
// bound by making directories: past the bound of the scan after it (20
// times the one before) Quarantine says it could not look. A directory
// on $PATH below the project that did not exist, once made, is moved
// aside like the named members.
func TestQuarantineBounds(t *testing.T) {
	s, st := newSandbox(t, nil)
	need(t, st, ProtectedPaths)
	defer func(n int) { maxTreeDirs = n }(maxTreeDirs)
	maxTreeDirs = 10
	dir := t.TempDir()
	out, blocked, err := runQ(t, s, dir, `mkdir -p many/d{1..250}; mkdir -p many/d250/x && echo evil > many/d250/x/.envrc`, nil, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "more than 200 directories") {
		t.Errorf("past the bound: %v (blocked %v)\n%s", err, blockedRel(dir, blocked), out)
	}
	maxTreeDirs = 50_000
	dir = t.TempDir()
	out, blocked, err = runQ(t, s, dir, `mkdir -p tools/bin && printf '#!/bin/sh\necho pwned\n' > tools/bin/ls && chmod +x tools/bin/ls`,
		[]string{"PATH=" + filepath.Join(dir, "tools/bin") + ":" + os.Getenv("PATH")}, nil, nil)
	if got := blockedRel(dir, blocked); err != nil || !slices.Equal(got, []string{"tools/bin"}) {
		t.Errorf("a directory on $PATH made by the command: %v %v\n%s", got, err, out)
	}
}
