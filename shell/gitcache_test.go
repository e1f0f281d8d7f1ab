package shell

import (
	"os"
	"testing"
	"time"
)

// Git discovery answers "is this file there?" from directory listings
// remembered across commands (package dirsnap). A file that appears in a
// repository after a command was judged, by any means, must be seen by the
// next judgement.
func TestGitDiscoverySeesNewFiles(t *testing.T) {
	changes := []struct {
		name string
		do   func(f *gitFixture)
	}{
		{"config.worktree with a filter", func(f *gitFixture) {
			f.write("proj/.git/config.worktree", "[filter \"x\"]\n\tclean = sh -c 'curl x'\n")
		}},
		{"alternates outside", func(f *gitFixture) {
			f.write("proj/.git/objects/info/alternates", "/etc\n")
		}},
		{"http-alternates", func(f *gitFixture) {
			f.write("proj/.git/objects/info/http-alternates", "http://example.com/x\n")
		}},
		{"a submodule with a textconv", func(f *gitFixture) {
			f.write("proj/.git/modules/m/config", "[diff \"x\"]\n\ttextconv = sh\n")
		}},
		{"commondir to a repository outside", func(f *gitFixture) {
			f.write("proj/.git/commondir", f.path("outside/.git")+"\n")
		}},
		{"config rewritten in place", func(f *gitFixture) {
			fd, err := os.OpenFile(f.path("proj/.git/config"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				f.t.Fatal(err)
			}
			fd.WriteString("[core]\n\tsshCommand = sh -c 'curl x'\n")
			fd.Close()
		}},
	}
	fixtures := make([]*gitFixture, len(changes))
	for i := range changes {
		f := newGitFixture(t)
		f.repo("proj", map[string]string{"a.txt": "a\n"})
		f.repo("outside", map[string]string{"b.txt": "b\n"})
		fixtures[i] = f
	}
	// Old enough for the listings to be remembered.
	time.Sleep(1100 * time.Millisecond)
	for i, c := range changes {
		f := fixtures[i]
		t.Run(c.name, func(t *testing.T) {
			for range 2 {
				if a := f.analyze("proj", "git status"); a.Verdict != Allow {
					t.Fatalf("git status before the change: %s (%s)", a.Verdict, a.Reason)
				}
			}
			c.do(f)
			if a := f.analyze("proj", "git status"); a.Verdict == Allow {
				t.Fatalf("git status after %s: allowed", c.name)
			}
		})
	}
}

// Version files are looked for in listings remembered across commands: one
// created after a judgement is seen by the next.
func TestVersionFileSeenAfterListingCached(t *testing.T) {
	f := newGitFixture(t)
	f.mkdir("proj/sub")
	time.Sleep(1100 * time.Millisecond)
	for range 2 {
		if a := f.analyze("proj/sub", "node --version"); a.Verdict != Allow {
			t.Fatalf("node --version before: %s (%s)", a.Verdict, a.Reason)
		}
	}
	f.write("proj/.nvmrc", "../../../tmp/evil\n")
	if a := f.analyze("proj/sub", "node --version"); a.Verdict == Allow {
		t.Fatal("node --version with a .nvmrc naming a path: allowed")
	}
	// A name that differs only in case is looked at too (a case-folding
	// directory would serve it for .nvmrc).
	os.Remove(f.path("proj/.nvmrc"))
	f.write("proj/sub/.NVMRC", "x\n")
	if a := f.analyze("proj/sub", "node --version"); a.Verdict == Allow {
		t.Fatal("node --version with .NVMRC: allowed")
	}
}

// HEAD files are remembered by their stamp: a HEAD rewritten in place (same
// inode) is read again. Here it decides which repository git uses: with
// sub/.git valid, git stays in the working directory sub; with its HEAD
// broken, git goes up to the repository above, outside it.
func TestGitHeadRewrittenInPlace(t *testing.T) {
	f := newGitFixture(t)
	f.repo("proj", map[string]string{"a.txt": "a\n"})
	f.repo("proj/sub", map[string]string{"b.txt": "b\n"})
	time.Sleep(1100 * time.Millisecond)
	opts := &Options{Cwd: f.path("proj/sub"), WorkingDirs: []string{f.path("proj/sub")}, Home: f.home, HardenedEnv: true}
	for range 2 {
		if a := Analyze("git status", opts); a.Verdict != Allow {
			t.Fatalf("git status in a valid sub repository: %s (%s)", a.Verdict, a.Reason)
		}
	}
	fd, err := os.OpenFile(f.path("proj/sub/.git/HEAD"), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	fd.WriteString("garbage, not a ref\n")
	fd.Close()
	if a := Analyze("git status", opts); a.Verdict == Allow {
		t.Fatal("git status just after sub/.git/HEAD broke: allowed")
	}
	// Once the change has settled, the remembered HEAD must not serve.
	time.Sleep(1100 * time.Millisecond)
	if a := Analyze("git status", opts); a.Verdict == Allow {
		t.Fatal("git status with sub/.git/HEAD broken (git uses the repository above): allowed")
	}
}
