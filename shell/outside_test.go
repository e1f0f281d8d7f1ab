package shell

import (
	"archive/tar"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/internal/dirsnap"
	"github.com/toolscope/toolscope/shell/internal/outside"
)

// recorder is an outside.Access that logs every access ("stat PATH",
// "lstat PATH", "read PATH", "open PATH", "readlink PATH", "readdir PATH",
// "list PATH", "gitconfig PATH") and forwards it to the real system, or,
// with deny set, refuses it.
type recorder struct {
	deny bool
	mu   sync.Mutex
	log  []string
}

var errDenied = errors.New("denied by the test")

func (r *recorder) note(op, path string) error {
	r.mu.Lock()
	r.log = append(r.log, op+" "+path)
	r.mu.Unlock()
	if r.deny {
		return errDenied
	}
	return nil
}

func (r *recorder) saw(entry string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.log {
		if e == entry {
			return true
		}
	}
	return false
}

func (r *recorder) Stat(path string, follow bool) (outside.Info, error) {
	op := "lstat"
	if follow {
		op = "stat"
	}
	if err := r.note(op, path); err != nil {
		return outside.Info{}, err
	}
	return outside.System{}.Stat(path, follow)
}

func (r *recorder) Readlink(path string) (string, error) {
	if err := r.note("readlink", path); err != nil {
		return "", err
	}
	return outside.System{}.Readlink(path)
}

func (r *recorder) ReadFile(path string, max int64, follow bool) ([]byte, error) {
	if err := r.note("read", path); err != nil {
		return nil, err
	}
	return outside.System{}.ReadFile(path, max, follow)
}

func (r *recorder) Open(path string) (outside.File, outside.Info, error) {
	if err := r.note("open", path); err != nil {
		return nil, outside.Info{}, err
	}
	return outside.System{}.Open(path)
}

func (r *recorder) ReadDir(path string) ([]fs.DirEntry, error) {
	if err := r.note("readdir", path); err != nil {
		return nil, err
	}
	return outside.System{}.ReadDir(path)
}

func (r *recorder) List(dir string, limit int) (*dirsnap.Listing, error) {
	if err := r.note("list", dir); err != nil {
		return nil, err
	}
	return outside.System{}.List(dir, limit)
}

func (r *recorder) GitConfig(path string) ([]outside.ConfigEntry, error) {
	if err := r.note("gitconfig", path); err != nil {
		return nil, err
	}
	return outside.System{}.GitConfig(path)
}

// TestOutsideAccess: every look an analysis takes beyond its command line
// (git discovery, git's configuration read by git config, HEAD and index
// files, a version file, an archive's members) goes through the
// Options' Access. A recording Access sees the accesses and changes no
// verdict; a refusing one turns every verdict that depended on them from
// Allow to a question, also when the process-wide caches hold the
// answers from earlier analyses (they are checked through the Access).
// Path resolution (package internal/pathpolicy) is not behind Access.
func TestOutsideAccess(t *testing.T) {
	f := newGitFixture(t)
	f.repo("proj", map[string]string{"a.txt": "x\n", "sub/b.txt": "y\n"})
	f.write("proj/.python-version", "3.11.4\n")
	var buf strings.Builder
	tw := tar.NewWriter(&nopWriter{&buf})
	tw.WriteHeader(&tar.Header{Name: "src/a.go", Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
	tw.Write([]byte("x"))
	tw.Close()
	f.write("proj/clean.tar", buf.String())
	proj := f.path("proj")

	cases := []struct {
		cwd, command string
		rule         string   // "": the analysis must allow; else the rule must cover the command
		want         []string // accesses a recorder must see
	}{
		{"proj", "git -C sub log", "", []string{"lstat " + proj + "/sub/.git", "lstat " + proj + "/.git",
			"list " + proj + "/.git", "stat " + proj + "/.git/config"}},
		{"proj/sub", "git status", "", []string{"lstat " + proj + "/.git", "stat " + proj + "/.git/config"}},
		{"proj", "git show HEAD", "", []string{"stat " + proj + "/.git/index"}},
		{"proj/sub", "python3 --version", "", []string{"read " + proj + "/.python-version"}},
		{"proj", "tar -xf clean.tar", "tar:*", []string{"open " + proj + "/clean.tar"}},
	}
	// allowed is whether the command may run: the analysis allows it, or
	// (an extraction, which it never allows) the case's rule covers it.
	allowed := func(a outside.Access, cwd, command, rule string) bool {
		an := Analyze(command, &Options{Cwd: f.path(cwd), WorkingDirs: []string{proj}, Home: f.home,
			HardenedEnv: true, access: a})
		if rule != "" {
			_, ok := an.AllowedBy([]string{rule})
			return ok
		}
		return an.Verdict == Allow
	}
	check := func(t *testing.T) {
		for _, c := range cases {
			if !allowed(nil, c.cwd, c.command, c.rule) {
				t.Fatalf("%s is not allowed: this test needs a command that is", c.command)
			}
			rec := &recorder{}
			if !allowed(rec, c.cwd, c.command, c.rule) {
				t.Errorf("%s with a recording Access: not allowed", c.command)
			}
			for _, w := range c.want {
				if !rec.saw(w) {
					t.Errorf("%s: the recorder did not see %q; it saw:\n%s", c.command, w, strings.Join(rec.log, "\n"))
				}
			}
			deny := &recorder{deny: true}
			if allowed(deny, c.cwd, c.command, c.rule) {
				t.Errorf("%s with every outside access refused: allowed, want a question", c.command)
			}
			if len(deny.log) == 0 {
				t.Errorf("%s: no access asked for", c.command)
			}
		}
	}
	t.Run("fresh", check)
	// Files settled past a second are remembered by their stamps (HEAD,
	// config, index; directory listings): the refusing Access must still
	// be asked.
	time.Sleep(1100 * time.Millisecond)
	for _, c := range cases {
		allowed(nil, c.cwd, c.command, c.rule)
	}
	t.Run("cached", check)
}

type nopWriter struct{ b *strings.Builder }

func (w *nopWriter) Write(p []byte) (int, error) { return w.b.Write(p) }

// The real system is the default.
var _ outside.Access = outside.System{}
