package walk

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not on PATH")
		}
		t.Skip("git is not on PATH")
	}
}

// lookRg finds ripgrep for the comparisons that use it; in CI it must be there.
func lookRg(t *testing.T) (string, error) {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil && os.Getenv("CI") != "" {
		t.Fatal("ripgrep (rg) is required in CI: .ci/run installs it")
	}
	return rg, err
}

func run(t *testing.T, dir, stdin string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 { // check-ignore exits 1 when nothing is ignored
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	return string(out)
}

// gitIgnored is what our matcher says git decides for one .gitignore at the
// root: a path is ignored if a leading directory or the path itself is.
func gitIgnored(m *Matcher, path string) bool {
	isDir := strings.HasSuffix(path, "/")
	path = strings.TrimSuffix(path, "/")
	parts := strings.Split(path, "/")
	for i := 1; i <= len(parts); i++ {
		dir := i < len(parts) || isDir
		matched, negated := m.Match(strings.Join(parts[:i], "/"), dir)
		if matched && !negated {
			return true
		}
	}
	return false
}

func TestPatternsAgainstGitCheckIgnore(t *testing.T) {
	needGit(t)
	paths := []string{
		"foo", "foo/", "a/foo", "a/foo/", "a/b/foo", "foo/bar", "foo/bar/", "afoo", "foo.log", "a/foo.log",
		"a/b/c.log", "a/b", "a/b/", "a/x/b", "a/x/y/b", "a/x/y/b/", "b", "fao", "boo", "coo", "#x", "!x",
		"foo ", "doc/a.txt", "doc/sub/a.txt", "doc/", "aXb", "a/b/c/d", "x.tx1", "sub/.hidden", ".hidden",
		"deep/er/foo/z", "Foo", "a]", "[x]",
	}
	cases := []string{
		"foo", "/foo", "foo/", "/foo/", "*.log", "a/*.log", "**/foo", "foo/**", "a/**/b", "**/a/b", "f?o",
		"[fb]oo", "[!f]oo", "[^f]oo", "[a-c]*", `\#x`, `\!x`, `foo\ `, "foo   ", "*", "a/b", "a/b/", "**",
		"doc/*.txt", "*.tx?", "fo*", "*o", "a**b", "!foo", "#foo", "", "a/**", "**/b/", ".*", "a\\]",
		"*\n!foo", "*\n!*/", "a/\n!a/b", "*.log\n!a/*.log", "foo\n!foo/bar", "/a/x/*\n!/a/x/y",
		"doc/**/*.txt", "*/b", "/*", "de*/**/foo", "[[:alpha:]]oo", "a/b/**/", "\\[x]", "[x]",
	}
	// git check-ignore decides "directory or file" by looking at the disk, so
	// every path is created, in as many repositories as it takes to keep a
	// file and a directory from sharing a name.
	type repo struct {
		dir   string
		paths []string
	}
	var repos []repo
	for _, group := range pathGroups(paths) {
		dir := t.TempDir()
		run(t, dir, "", "git", "init", "-q")
		tr := tree{}
		for _, p := range group {
			tr[p] = ""
		}
		tr.write(t, dir)
		repos = append(repos, repo{dir, group})
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c, "\n", ";"), func(t *testing.T) {
			t.Parallel()
			excludes := filepath.Join(t.TempDir(), "excludes")
			if err := os.WriteFile(excludes, []byte(c+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, r := range repos {
				// Directories are given without their "/": git looks at the disk.
				var in []string
				for _, p := range r.paths {
					in = append(in, strings.TrimSuffix(p, "/"))
				}
				out := run(t, r.dir, strings.Join(in, "\n")+"\n", "git", "-c", "core.quotepath=off", "-c", "core.excludesFile="+excludes, "check-ignore", "--no-index", "--stdin")
				for _, l := range strings.Split(out, "\n") {
					if l == "" {
						continue
					}
					if slices.Contains(r.paths, l+"/") {
						l += "/"
					}
					want = append(want, l)
				}
			}
			slices.Sort(want)
			var lines []string
			for _, l := range strings.Split(c, "\n") {
				if _, ok := ParsePattern(l); ok {
					lines = append(lines, l)
				}
			}
			m, err := NewMatcher(lines)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range paths {
				if gitIgnored(m, p) {
					got = append(got, p)
				}
			}
			slices.Sort(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ignored paths differ from git check-ignore (-git +ours):\n%s", diff)
			}
		})
	}
}

// pathGroups splits paths into groups in which no path is both a file and a
// directory (a path ending in "/" or a leading directory of another path).
func pathGroups(paths []string) [][]string {
	var groups [][]string
	conflict := func(a, b string) bool {
		fa, fb := strings.TrimSuffix(a, "/"), strings.TrimSuffix(b, "/")
		switch {
		case fa == fb:
			return a != b
		case strings.HasPrefix(fb, fa+"/"):
			return !strings.HasSuffix(a, "/")
		case strings.HasPrefix(fa, fb+"/"):
			return !strings.HasSuffix(b, "/")
		}
		return false
	}
next:
	for _, p := range paths {
		for i, g := range groups {
			if !slices.ContainsFunc(g, func(q string) bool { return conflict(p, q) }) {
				groups[i] = append(g, p)
				continue next
			}
		}
		groups = append(groups, []string{p})
	}
	return groups
}

type tree map[string]string // path → content; a path ending in "/" is a directory

func (tr tree) write(t *testing.T, root string) {
	t.Helper()
	for p, content := range tr {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func list(t *testing.T, root string, opts *Options) []string {
	t.Helper()
	var got []string
	for e, err := range Files(context.Background(), root, opts) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Rel)
	}
	slices.Sort(got)
	return got
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, strings.TrimPrefix(l, "./"))
		}
	}
	slices.Sort(out)
	return out
}

var nestedTree = tree{
	".gitignore":                 "*.log\n!keep.log\nbuild/\n/top.txt\ndocs/**/*.tmp\n# comment\n\\#hash\ntrail   \n",
	"a.go":                       "",
	"x.log":                      "",
	"keep.log":                   "",
	"top.txt":                    "",
	"#hash":                      "",
	"trail":                      "",
	".hidden":                    "",
	".config/settings.json":      "",
	"build/out.bin":              "",
	"sub/top.txt":                "",
	"sub/build":                  "a file named build is not a directory\n",
	"sub/.gitignore":             "!*.log\nlocal/\n*.go\n!main.go\n",
	"sub/y.log":                  "",
	"sub/main.go":                "",
	"sub/util.go":                "",
	"sub/local/z.txt":            "",
	"sub/deeper/.gitignore":      "/only-here.txt\n",
	"sub/deeper/only-here.txt":   "",
	"sub/deeper/x/only-here.txt": "",
	"docs/a/b/c.tmp":             "",
	"docs/c.tmp":                 "",
	"docs/readme.md":             "",
	"excluded.dat":               "",
	"vendor/lib/keep.go":         "",
}

func TestFilesMatchesGit(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	nestedTree.write(t, root)
	run(t, root, "", "git", "init", "-q")
	if err := os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte("excluded.dat\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := list(t, root, &Options{GitIgnore: true, Hidden: true})
	want := lines(run(t, root, "", "git", "ls-files", "--others", "--exclude-standard"))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files differ from git ls-files (-git +ours):\n%s", diff)
	}
	if rg, err := lookRg(t); err == nil {
		want := lines(run(t, root, "", rg, "--files", "--hidden", "--glob", "!.git"))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("files differ from rg --files (-rg +ours):\n%s", diff)
		}
	}
}

func TestFilesSubdirOfRepo(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	nestedTree.write(t, root)
	run(t, root, "", "git", "init", "-q")
	// Searching below the repository root still applies the root's .gitignore.
	got := list(t, filepath.Join(root, "sub"), &Options{GitIgnore: true, Hidden: true})
	// build is a file (the root's "build/" matches directories only) and "/top.txt" is anchored to the root.
	want := []string{".gitignore", "build", "deeper/.gitignore", "deeper/x/only-here.txt", "main.go", "top.txt", "y.log"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestGitignoreNeedsRepo(t *testing.T) {
	root := t.TempDir()
	tree{".gitignore": "*.log\n", ".ignore": "*.tmp\n", "a.log": "", "b.tmp": "", "c.go": ""}.write(t, root)
	got := list(t, root, &Options{GitIgnore: true, Hidden: true})
	want := []string{".gitignore", ".ignore", "a.log", "c.go"} // .ignore counts outside a repository, .gitignore does not
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if rg, err := lookRg(t); err == nil {
		if diff := cmp.Diff(lines(run(t, root, "", rg, "--files", "--hidden")), got); diff != "" {
			t.Errorf("differs from rg (-rg +ours):\n%s", diff)
		}
	}
}

func TestIgnoreFileBeatsGitignore(t *testing.T) {
	root := t.TempDir()
	tree{".git/": "", ".gitignore": "*.log\n", ".ignore": "!keep.log\n", "keep.log": "", "drop.log": ""}.write(t, root)
	got := list(t, root, &Options{GitIgnore: true})
	if diff := cmp.Diff([]string{"keep.log"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestHiddenAndGitDir(t *testing.T) {
	root := t.TempDir()
	tree{".git/config": "", ".env": "", ".dir/x": "", "v.txt": ""}.write(t, root)
	if diff := cmp.Diff([]string{"v.txt"}, list(t, root, nil)); diff != "" {
		t.Errorf("hidden off (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".dir/x", ".env", "v.txt"}, list(t, root, &Options{Hidden: true})); diff != "" {
		t.Errorf("hidden on (-want +got):\n%s", diff)
	}
}

func TestSymlinksStayInRoot(t *testing.T) {
	outside := t.TempDir()
	tree{"secret.txt": "s", "dir/inner.txt": "i"}.write(t, outside)
	root := t.TempDir()
	tree{"real.txt": "r", "sub/deep.txt": "d"}.write(t, root)
	links := map[string]string{
		"escape.txt":   filepath.Join(outside, "secret.txt"),
		"escape-dir":   filepath.Join(outside, "dir"),
		"inside.txt":   filepath.Join(root, "sub", "deep.txt"),
		"inside-dir":   filepath.Join(root, "sub"),
		"relative.txt": "real.txt",
		"dotdot.txt":   "../" + filepath.Base(outside) + "/secret.txt",
		"dangling":     filepath.Join(root, "nope"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	got := list(t, root, nil)
	want := []string{"inside.txt", "real.txt", "relative.txt", "sub/deep.txt"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// A link carries the file it resolves to, so that callers can filter by both.
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]string{}
	for e, err := range Files(context.Background(), root, nil) {
		if err != nil {
			t.Fatal(err)
		}
		targets[e.Rel] = e.Target
	}
	wantTargets := map[string]string{
		"inside.txt":   filepath.Join(realRoot, "sub", "deep.txt"),
		"relative.txt": filepath.Join(realRoot, "real.txt"),
		"real.txt":     "",
		"sub/deep.txt": "",
	}
	if diff := cmp.Diff(wantTargets, targets); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
}

func TestRootFile(t *testing.T) {
	root := t.TempDir()
	tree{"f.txt": "x"}.write(t, root)
	var got []Entry
	for e, err := range Files(context.Background(), filepath.Join(root, "f.txt"), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if len(got) != 1 || got[0].Path != filepath.Join(root, "f.txt") || got[0].Rel != "f.txt" {
		t.Fatalf("got %+v", got)
	}
	if fi, err := got[0].Info(); err != nil || fi.Size() != 1 {
		t.Fatalf("Info() = %v, %v", fi, err)
	}
	for _, err := range Files(context.Background(), filepath.Join(root, "missing"), nil) {
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("missing root: err = %v", err)
		}
	}
}

func TestOverride(t *testing.T) {
	root := t.TempDir()
	tree{".git/": "", ".gitignore": "*.log\n", "a.log": "", "b.go": "", "skip/c.go": ""}.write(t, root)
	got := list(t, root, &Options{GitIgnore: true, Override: func(rel string, isDir bool) Match {
		switch {
		case rel == "skip":
			return Ignore
		case strings.HasSuffix(rel, ".log"):
			return Include
		}
		return None
	}})
	if diff := cmp.Diff([]string{"a.log", "b.go"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestStopEarlyAndCancel(t *testing.T) {
	root := t.TempDir()
	for i := range 50 {
		tree{filepath.Join("d", strings.Repeat("x", i%7+1), "f"+string(rune('a'+i%26))+".txt"): ""}.write(t, root)
	}
	n := 0
	for range Files(context.Background(), root, &Options{Threads: 4}) {
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Fatalf("n = %d", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var last error
	for _, err := range Files(ctx, root, nil) {
		last = err
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("cancelled walk ended with %v", last)
	}
}

func FuzzGitignorePattern(f *testing.F) {
	for _, s := range []string{"*.log", "/a/**/b/", "!x", `\#a`, "[a-", "{a,b", "a/**", "**", "[!]]x", "a\\", "[[:alpha:]]"} {
		f.Add(s, "a/b/c.log", true)
	}
	f.Fuzz(func(t *testing.T, pattern, path string, isDir bool) {
		p, ok := ParsePattern(pattern)
		if !ok {
			return
		}
		p.Match(path, isDir) // must not panic
		m := &matcher{pats: []Pattern{p}}
		m.match(path, isDir)
	})
}
