package pathpolicy

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Policies answer lstats from directory listings remembered across
// policies (package dirsnap). Each later policy must see every change made
// between them: a name that became a link out of the project, a directory
// replaced by a link, the project itself replaced by a link, a secret file
// created in a tree that was walked before.
func TestListingsAcrossPolicies(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	home := filepath.Join(base, "home")
	for _, d := range []string{proj, filepath.Join(proj, "sub"), filepath.Join(proj, "src"), filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(proj, "a.txt"), nil, 0o644)
	os.WriteFile(filepath.Join(proj, "src", "main.go"), nil, 0o644)
	time.Sleep(1100 * time.Millisecond) // old enough to be remembered
	opts := &Options{WorkingDirs: []string{proj}, Home: home}
	judge := func(p string) Path { return New(opts).Classify(p) }
	warm := func() {
		// Fill the caches as a command line would: the root's entries,
		// a glob in it, a recursive read of src.
		p := New(opts)
		p.Classify(filepath.Join(proj, "x", "passwd"))
		p.Classify(filepath.Join(proj, "sub", "passwd"))
		p.Expand(filepath.Join(proj, "*"), 0, 0)
		if r := p.Tree(filepath.Join(proj, "src"), nil); !r.OK() {
			t.Fatalf("src before the change: %+v", r)
		}
	}
	warm()
	warm()
	if x := judge(filepath.Join(proj, "x", "passwd")); x.Inside == "" {
		t.Fatalf("proj/x/passwd before the change: %+v", x)
	}

	// A new link at the top of the project.
	os.Symlink("/etc", filepath.Join(proj, "x"))
	if x := judge(filepath.Join(proj, "x", "passwd")); x.Inside != "" || x.Resolved.Path != "/etc/passwd" {
		t.Errorf("proj/x/passwd with x -> /etc: %+v", x)
	}
	// A directory replaced by a link.
	warm()
	os.Remove(filepath.Join(proj, "sub"))
	os.Symlink(home, filepath.Join(proj, "sub"))
	if x := judge(filepath.Join(proj, "sub", ".ssh", "id_rsa")); !x.Secret || x.Inside != "" {
		t.Errorf("proj/sub/.ssh/id_rsa with sub -> home: %+v", x)
	}
	// A name in the home directory (whose listing is validated by the
	// lstat of the home itself) that became a link to a secret place, and
	// one that appeared.
	os.WriteFile(filepath.Join(home, "notes"), nil, 0o644)
	time.Sleep(1100 * time.Millisecond)
	for i := 0; i < 2; i++ {
		if x := judge(filepath.Join(home, "notes", "known")); x.Secret || x.Err == nil {
			t.Fatalf("home/notes/known with notes a file: %+v", x)
		}
	}
	os.Remove(filepath.Join(home, "notes"))
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "notes"))
	if x := judge(filepath.Join(home, "notes", "known")); !x.Secret {
		t.Errorf("home/notes/known with notes -> .ssh: %+v", x)
	}
	if x := judge(filepath.Join(home, ".netrc")); !x.Secret || x.Exists {
		t.Errorf("home/.netrc before it exists: %+v", x)
	}
	os.WriteFile(filepath.Join(home, ".netrc"), nil, 0o600)
	if x := judge(filepath.Join(home, ".netrc")); !x.Exists {
		t.Errorf("home/.netrc made since: %+v", x)
	}
	// A secret created in a tree walked before.
	warm()
	os.WriteFile(filepath.Join(proj, "src", ".env"), []byte("K=v"), 0o600)
	if r := New(opts).Tree(filepath.Join(proj, "src"), &TreeOptions{Hidden: true}); r.Secret == "" {
		t.Errorf("src holds .env now: %+v", r)
	}
	// The project replaced by a link to /: the working directory is
	// resolved again, never taken for the directory it was, and a working
	// directory that now leads to / is no working directory at all (the
	// whole file system would be "inside").
	warm()
	os.Rename(proj, proj+".old")
	os.Symlink("/", proj)
	if x := judge(filepath.Join(proj, "etc", "passwd")); x.Resolved.Path != "/etc/passwd" || x.Inside != "" {
		t.Errorf("proj/etc/passwd with proj -> /: %+v", x)
	}
	if x := judge("/etc/passwd"); x.Inside != "" {
		t.Errorf("/etc/passwd with proj -> /: %+v", x)
	}
	// / configured as such stays a working directory.
	if x := New(&Options{WorkingDirs: []string{"/"}, Home: home}).Classify("/etc/hostname"); x.Inside != "/" {
		t.Errorf("/etc/hostname with / configured: %+v", x)
	}
}
