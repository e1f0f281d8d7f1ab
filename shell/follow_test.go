package shell

import (
	"os"
	"path/filepath"
	"testing"
)

// Readers and copiers that follow links inside a tree reach what the links
// lead to: a link in the project to the home brings its keys to diff -r
// (GNU diff follows links to directories), grep -R, cp -rL, rsync -L,
// tar -h and zip -r; a link planted in node_modules counts too when links
// are followed. Without following, the link is a name and nothing more.
func TestFollowedLinksInTrees(t *testing.T) {
	base := t.TempDir()
	proj, home := filepath.Join(base, "proj"), filepath.Join(base, "home")
	for _, d := range []string{"proj/a", "proj/b", "proj/c/node_modules/x", "proj/d", "home/.ssh"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("key"), 0o600)
	os.WriteFile(filepath.Join(proj, "d", "f.txt"), []byte("x"), 0o644)
	os.Symlink(home, filepath.Join(proj, "a", "h"))
	os.Symlink(home, filepath.Join(proj, "c", "node_modules", "x", "h"))
	opts := &Options{Cwd: proj, Home: home, Mode: "accept_edits"}
	for _, cmd := range []string{
		"diff -r a b", "diff -rN a b", "diff -r b a", "diff --recursive a b", "grep -R x a", "grep -R x c", "grep --dereference-recursive x .",
		"cp -rL a b/", "cp -aL a b/", "cp -RL a b", "cp --dereference -r a b/", "cp -r --dereference a b", "rsync -rL a b/",
		"rsync -a --copy-links a b", "tar -chf x.tar a", "tar --dereference -cf x.tar c", "zip -r x.zip a", "cp -rL c b",
	} {
		if a := Analyze(cmd, opts); a.Verdict != Ask || !a.BypassImmune {
			t.Errorf("%q: %s immune=%v (%s); want an immune ask", cmd, a.Verdict, a.BypassImmune, a.Reason)
		}
	}
	for _, c := range []struct {
		cmd  string
		want Verdict
	}{
		{"diff -r b d", Allow}, {"grep -r x a", Allow}, {"grep -r x c", Allow}, {"cp -r a b/", Allow},
		{"cp -rL d b/", Allow}, {"zip -ry x.zip a", Passthrough},
	} {
		if a := Analyze(c.cmd, opts); a.Verdict != c.want {
			t.Errorf("%q: %s (%s); want %s", c.cmd, a.Verdict, a.Reason, c.want)
		}
	}
}
