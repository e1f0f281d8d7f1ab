package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolscope/toolscope/internal/walk"
)

// secretFiles is a project holding what deny rules and secret policies
// protect. Every file says "hello" and its own path, so that a leak of its
// content is visible in the output.
var secretFiles = []string{
	".env", ".env.local", ".env.example",
	"src/app.go", "src/.env",
	".ssh/id_rsa", "home/.ssh/config", "keys/id_rsa.pub",
	"secrets/db.txt", "secrets/sub/deep.txt",
	"config/prod.yml", "config/dev.yml",
	"other/secrets/y.txt",
	"certs/server.pem",
	"weird-1:2.txt", "notes.md",
}

// secretLinks are symbolic links inside the project; link-dir is never
// followed (neither engine enters a link to a directory).
var secretLinks = map[string]string{"link-env": ".env", "link-secret": "secrets/db.txt", "link-dir": "secrets"}

// secretTree writes the project and returns its root.
func secretTree(t testing.TB) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "proj")
	files := map[string]string{}
	for _, f := range secretFiles {
		files[f] = "hello " + f + "\n"
	}
	files["notes.md"] = "a line\nhello notes.md\nanother\n"
	write(t, root, files)
	for name, target := range secretLinks {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func engines(t *testing.T) []Engine {
	t.Helper()
	if _, err := exec.LookPath("rg"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("rg is not on PATH")
		}
		return []Engine{GoEngine}
	}
	return []Engine{Ripgrep, GoEngine}
}

// linePath reports whether the output line l is about the file at path
// (the display path followed by a separator or the end of the line).
func linePath(l, path string) bool {
	rest, ok := strings.CutPrefix(l, path)
	return ok && (rest == "" || rest[0] == ':' || rest[0] == '-')
}

// shown lists which of the candidates (relative to root) appear in text.
func shown(text, root string, candidates []string) []string {
	var out []string
	for _, c := range candidates {
		for l := range strings.SplitSeq(text, "\n") {
			if linePath(l, filepath.Join(root, c)) || strings.HasSuffix(l, "hello "+c) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

func TestGrepExclude(t *testing.T) {
	root := secretTree(t)
	all := append(slices.Clone(secretFiles), "link-env", "link-secret")
	cases := []struct {
		name    string
		exclude []string
		hidden  []string
	}{
		{"names", []string{".env", ".env.local", "id_rsa*", ".ssh", "*.pem"},
			[]string{".env", ".env.local", "src/.env", ".ssh/id_rsa", "home/.ssh/config", "keys/id_rsa.pub", "certs/server.pem", "link-env"}},
		{"name-glob", []string{".env.*"}, []string{".env.local", ".env.example"}},
		{"absolute", []string{root + "/secrets/**", root + "/config/prod.yml"},
			[]string{"secrets/db.txt", "secrets/sub/deep.txt", "config/prod.yml", "link-secret"}},
		{"absolute-dir", []string{root + "/secrets"}, []string{"secrets/db.txt", "secrets/sub/deep.txt", "link-secret"}},
		{"absolute-any-depth", []string{"/**/secrets/*"}, []string{"secrets/db.txt", "secrets/sub/deep.txt", "other/secrets/y.txt", "link-secret"}},
		{"absolute-brace", []string{root + "/{config,certs}/{prod.yml,*.pem}"}, []string{"config/prod.yml", "certs/server.pem"}},
		{"absolute-elsewhere", []string{"/nowhere/secrets/**"}, nil},
		{"all", []string{".env", ".env.local", "id_rsa*", ".ssh", "*.pem", root + "/secrets/**", root + "/config/prod.yml", "/**/secrets/*"},
			[]string{".env", ".env.local", "src/.env", ".ssh/id_rsa", "home/.ssh/config", "keys/id_rsa.pub", "certs/server.pem", "link-env",
				"secrets/db.txt", "secrets/sub/deep.txt", "config/prod.yml", "other/secrets/y.txt", "link-secret"}},
	}
	// The user's glob never brings an excluded file back, whatever the order
	// or kind of its parts.
	userGlobs := []string{"", ".env", "*", "**/*", "secrets/**", "/secrets/*", "*.pem,!*.go", "!*.go", ".env *.yml", "{.env,*.pem}", "link-*"}
	for _, c := range cases {
		for _, e := range engines(t) {
			for _, m := range []string{ModeFilesWithMatches, ModeCount, ModeContent} {
				for _, g := range userGlobs {
					t.Run(fmt.Sprintf("%s/%s/%s/glob=%s", c.name, e, m, g), func(t *testing.T) {
						t.Parallel()
						o := GrepOptions{Pattern: "hello", Path: root, OutputMode: m, LineNumbers: true, Glob: g, Exclude: c.exclude, Engine: e, HeadLimit: ptr(0)}
						res, err := Grep(context.Background(), &o)
						if err != nil {
							t.Fatal(err)
						}
						if leaked := shown(res.Text, root, c.hidden); len(leaked) > 0 {
							t.Errorf("excluded files in the output: %q\n%s", leaked, res.Text)
						}
						if g != "" {
							return
						}
						var want []string
						for _, f := range all {
							if !slices.Contains(c.hidden, f) && (e == GoEngine || !strings.HasPrefix(f, "link-")) { // rg follows no link
								want = append(want, f)
							}
						}
						if diff := cmp.Diff(want, shown(res.Text, root, all), cmpopts.EquateEmpty()); diff != "" {
							t.Errorf("files shown (-want +got):\n%s\n%s", diff, res.Text)
						}
					})
				}
			}
		}
	}
}

// Without exclusions the Go engine searches a link to a file inside the
// root; with them, a link to an excluded file is excluded by its target.
func TestGrepExcludeLinkTarget(t *testing.T) {
	root := secretTree(t)
	for _, exclude := range [][]string{nil, {".env"}} {
		res, err := Grep(context.Background(), &GrepOptions{Pattern: "hello", Path: root, Exclude: exclude, Engine: GoEngine, HeadLimit: ptr(0)})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := slices.Contains(shown(res.Text, root, []string{"link-env"}), "link-env"), exclude == nil; got != want {
			t.Errorf("exclude %q: link-env shown = %v, want %v\n%s", exclude, got, want, res.Text)
		}
	}
}

func TestGrepExcludedPath(t *testing.T) {
	root := secretTree(t)
	exclude := []string{".env", ".ssh", root + "/secrets/**"}
	for _, c := range []struct{ path, want string }{
		{".env", `Error: ROOT/.env is excluded by a deny rule: it matches the pattern ".env"`},
		{"src/.env", `Error: ROOT/src/.env is excluded by a deny rule: it matches the pattern ".env"`},
		{".ssh", `Error: ROOT/.ssh is excluded by a deny rule: it matches the pattern ".ssh"`},
		{".ssh/id_rsa", `Error: ROOT/.ssh/id_rsa is excluded by a deny rule: the directory ROOT/.ssh matches the pattern ".ssh"`},
		{"secrets", `Error: ROOT/secrets is excluded by a deny rule: it matches the pattern "ROOT/secrets/**"`},
		{"secrets/sub/deep.txt", `Error: ROOT/secrets/sub/deep.txt is excluded by a deny rule: the directory ROOT/secrets matches the pattern "ROOT/secrets/**"`},
		{"link-env", `Error: ROOT/link-env is excluded by a deny rule: it resolves to ROOT/.env, which matches the pattern ".env"`},
		{"link-secret", `Error: ROOT/link-secret is excluded by a deny rule: it resolves to ROOT/secrets/db.txt, and the directory ROOT/secrets matches the pattern "ROOT/secrets/**"`},
		{"link-dir", `Error: ROOT/link-dir is excluded by a deny rule: it resolves to ROOT/secrets, which matches the pattern "ROOT/secrets/**"`},
	} {
		want := strings.ReplaceAll(c.want, "ROOT", root)
		for _, e := range engines(t) {
			for _, m := range []string{ModeFilesWithMatches, ModeContent} {
				_, err := Grep(context.Background(), &GrepOptions{Pattern: "hello", Path: filepath.Join(root, c.path), OutputMode: m, Exclude: exclude, Engine: e})
				if got := toolError(t, err); got != want {
					t.Errorf("%s/%s/%s:\n got %s\nwant %s", c.path, e, m, got, want)
				}
				var xe *ExcludedError
				if !errors.As(err, &xe) || xe.Pattern == "" {
					t.Errorf("%s: %v does not wrap an *ExcludedError", c.path, err)
				}
			}
		}
		if _, err := Glob(context.Background(), filepath.Join(root, c.path), "**", &GlobOptions{Exclude: exclude}); err == nil || "Error: "+err.Error() != want {
			t.Errorf("Glob %s: err = %v", c.path, err)
		}
	}
	// A file that is not excluded is searched as before.
	res, err := Grep(context.Background(), &GrepOptions{Pattern: "hello", Path: filepath.Join(root, "notes.md"), OutputMode: ModeContent, Exclude: exclude, Engine: GoEngine})
	if err != nil || res.Text != "hello notes.md" {
		t.Errorf("notes.md: %+v, %v", res, err)
	}
}

func TestBadExclude(t *testing.T) {
	root := secretTree(t)
	for _, p := range []string{"", "[a-", "{a,b", `a\`, strings.Repeat("{a,b}", 9), "secrets/*.key", "./x", "a/", "x[/]y", "/a/../b", "/a//b", "/a/./b", "/a/{b,{c/d,e}", "/a/{b/c,d}", `/a\/b`, "\xff"} {
		_, gerr := Grep(context.Background(), &GrepOptions{Pattern: "hello", Path: root, Exclude: []string{".env", p}, Engine: GoEngine})
		_, lerr := Glob(context.Background(), root, "**", &GlobOptions{Exclude: []string{p}})
		for _, err := range []error{gerr, lerr} {
			var be *BadExcludeError
			if !errors.As(err, &be) || be.Pattern != p || !errors.Is(err, doublestar.ErrBadPattern) {
				t.Errorf("%q: err = %v, want a *BadExcludeError", p, err)
			}
			var te *ToolError
			if errors.As(err, &te) {
				t.Errorf("%q: a bad exclude is the caller's error, not the model's: %v", p, err)
			}
		}
	}
	if _, err := compileExclude([]string{"secrets/*.key"}); err == nil || !strings.Contains(err.Error(), "a relative pattern cannot hold \"/\"") {
		t.Errorf("relative pattern: %v", err)
	}
	for _, p := range []string{".env", "!x", "#x", "/", "/a/b/", "/**", "{a,{b,c}}", "/a/{b,c}/d", "sp "} {
		if _, err := compileExclude([]string{p}); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
}

func TestRgGlobs(t *testing.T) {
	for _, c := range []struct {
		exclude []string
		want    []string
	}{
		{[]string{".env", "*.pem", "!x", "#x"}, []string{"!.env", "!*.pem", "!!x", "!#x"}},
		{[]string{"sp ", "tab\t", `esc\ `}, []string{"!sp[ ]", "!tab[\t]", "!esc[ ]"}},
		{[]string{"{a,{b,c}}.key"}, []string{"!a.key", "!b.key", "!c.key"}},
		{[]string{"/r/p/secrets/**", "/r/p/config/prod.yml", "/r/p/x/"}, []string{"!/secrets/**", "!/config/prod.yml", "!/x"}},
		{[]string{"/**/secrets/*", "/r/**/secrets/*"}, []string{"!/**/secrets/*"}},
		{[]string{"/r/*/secrets"}, []string{"!/secrets"}},
		{[]string{"/**/p/x"}, []string{"!/**/p/x", "!/x"}},
		{[]string{"/r/{p,q}/{s,{t,u}}"}, []string{"!/s", "!/t", "!/u"}},
		{[]string{"/other/**", "/r/pp/x", "/r/p2/**"}, nil},
	} {
		ex, err := compileExclude(c.exclude)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, ex.bind("/r/p", "/r/p").rgGlobs(), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.exclude, diff)
		}
	}
	// A root reached through a symbolic link is matched both ways.
	ex, err := compileExclude([]string{"/link/secrets/**", "/real/p/config/**"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"!/secrets/**", "!/config/**"}, ex.bind("/link", "/real/p").rgGlobs()); diff != "" {
		t.Errorf("link root (-want +got):\n%s", diff)
	}
}

func TestRipgrepArgsExclude(t *testing.T) {
	o := GrepOptions{Pattern: "x", Path: "/p", OutputMode: ModeContent, Glob: ".env !*.go"}
	got := ripgrepArgs(&o, true, []string{"!.env", "!/secrets/**"})
	want := []string{"--hidden", "--glob", "!.git", "--glob", "!.svn", "--glob", "!.hg", "--glob", "!.bzr", "--glob", "!.jj", "--glob", "!.sl", "--max-columns", "500",
		"-n", "x", "--glob", ".env", "--glob", "!*.go", "--glob", "!.env", "--glob", "!/secrets/**", "--null", "."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if args := RipgrepArgs(&o); slices.Contains(args, "--null") || args[len(args)-1] != "/p" {
		t.Errorf("RipgrepArgs changed: %q", args)
	}
}

// rgFiles lists what `rg --files` finds below root with the given globs
// (relative paths, sorted).
func rgFiles(t *testing.T, root string, globs []string) []string {
	t.Helper()
	args := []string{"--files", "--hidden", "--null"}
	for _, g := range globs {
		args = append(args, "--glob", g)
	}
	cmd := exec.Command(needRg(t), append(args, ".")...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("rg %q: %v", args, err)
		}
	}
	var files []string
	for f := range strings.SplitSeq(string(out), "\x00") {
		if f != "" {
			files = append(files, strings.TrimPrefix(f, "./"))
		}
	}
	slices.Sort(files)
	return files
}

// The glob translation agrees with the matcher, checked with rg itself: rg
// lists exactly the files that pathHit leaves, for the root spelled directly
// and through a symbolic link, with patterns spelled either way.
func TestRgGlobsAgreeWithRipgrep(t *testing.T) {
	needRg(t)
	real := filepath.Join(t.TempDir(), "real", "proj")
	names := []string{
		".env", ".env.local", "env", "x.env", "id_rsa", "id_rsa.pub", "my_id_rsa", "a.pem", "a.pem.bak", "key.key",
		"!bang", "#hash", "sp ", "sp", "tab\t", "a.txt", "b.txt", "c.txt", "ab", "a{b}", "[x]", "q?", "x.y.z",
	}
	files := map[string]string{}
	for _, dir := range []string{"", "secrets/", "secrets/sub/", "a/secrets/", "a/b/c/", ".ssh/", "cfg/", "deep/er/secrets/"} {
		for _, n := range names {
			files[dir+n] = "x\n"
		}
	}
	write(t, real, files)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	var all []string
	for f := range files {
		all = append(all, f)
	}
	slices.Sort(all)
	patterns := []string{
		".env", ".env.*", "*.pem", "id_rsa*", ".ssh", "[.]env", "?env", "*.{pem,key}", "{a,{b,c}}.txt", "!bang", "#hash",
		"sp ", "tab\t", "**", "x**z", "[!a-z]*", "[^a]b", `a\{b\}`, `\[x\]`, `q\?`, "{a,}b", "*.{y.z,}", "secrets",
		"/ROOT/secrets/**", "/ROOT/secrets", "/ROOT/cfg/a.txt", "/**/secrets/*", "/**/secrets/**", "/ROOT/{cfg,.ssh}/{a,b}.txt",
		"/ROOT/*/b/**", "/ROOT/**/c/*.txt", "/ROOT/a/**/secrets/*", "/ROOTPARENT/*/secrets/**", "/**/proj/a/*", "/ROOT/{a,{b,cfg}}/*.txt",
		"/ROOT/**", "/ROOT/a/secrets/sp ",
	}
	for _, root := range []string{real, link} {
		for _, spelled := range []string{real, link} {
			for _, p := range patterns {
				p = strings.ReplaceAll(p, "/ROOTPARENT", filepath.Dir(spelled))
				p = strings.ReplaceAll(p, "/ROOT", spelled)
				t.Run(fmt.Sprintf("%s/%s/%s", filepath.Base(root), filepath.Base(spelled), p), func(t *testing.T) {
					ex, err := compileExclude([]string{p})
					if err != nil {
						t.Fatal(err)
					}
					rx, err := ex.forPath(root)
					if err != nil {
						var xe *ExcludedError
						if errors.As(err, &xe) && (ex.pathHit(root) != nil || ex.pathHit(real) != nil) {
							return // the root itself is excluded (or a directory above it: "[!a-z]*" matches "TestRg...")
						}
						t.Fatal(err)
					}
					var want []string
					for _, f := range all {
						if ex.pathHit(filepath.Join(root, f)) == nil && ex.pathHit(filepath.Join(real, f)) == nil {
							want = append(want, f)
						}
					}
					got := rgFiles(t, root, rx.rgGlobs())
					if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("globs %q: (-matcher +rg):\n%s", rx.rgGlobs(), diff)
					}
				})
			}
		}
	}
}

// rg itself, before any filtering, keeps out what is excluded, whatever
// the user's globs say: the exclusions come after them, and among rg's
// globs the last one that matches decides. In the other order the user's
// glob wins, which is what this test would catch.
func TestRgGlobPrecedence(t *testing.T) {
	rg := needRg(t)
	root := secretTree(t)
	exclude := []string{".env", ".ssh", "*.pem", root + "/secrets/**", root + "/config/prod.yml"}
	hidden := []string{".env", "src/.env", ".ssh/id_rsa", "home/.ssh/config", "certs/server.pem", "secrets/db.txt", "secrets/sub/deep.txt", "config/prod.yml"}
	ex, err := compileExclude(exclude)
	if err != nil {
		t.Fatal(err)
	}
	rx, err := ex.forPath(root)
	if err != nil {
		t.Fatal(err)
	}
	run := func(args []string) string {
		cmd := exec.Command(rg, args...)
		cmd.Dir = root
		out, err := cmd.Output()
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
			t.Fatalf("rg %q: %v", args, err)
		}
		return string(out)
	}
	for _, g := range []string{".env", "**/.env", "*.pem", ".ssh/**", "secrets/**", "/secrets/*", "/config/prod.yml", "**", "!*.go .env"} {
		o := GrepOptions{Pattern: "hello", Path: root, Glob: g}
		raw := run(ripgrepArgs(&o, true, rx.rgGlobs()))
		for _, h := range hidden {
			if strings.Contains(raw, "./"+h+"\x00") {
				t.Errorf("glob %q: rg printed %s", g, h)
			}
		}
		// The user's glob first, as rg would take it alone: it does
		// re-include when it comes last.
		args := ripgrepArgs(&GrepOptions{Pattern: "hello", Path: root}, true, rx.rgGlobs())
		args = append(args[:len(args)-2], "--glob", g, "--null", ".")
		if g == ".env" && !strings.Contains(run(args), "./.env\x00") {
			t.Errorf("with the user's glob last, rg should have re-included .env")
		}
	}
}

// The output filter drops what a wrong translation lets through: rg run
// with no exclusion globs at all prints the secrets, and the filter removes
// exactly those records, leaving what Grep prints with the right globs.
func TestRgFilterCatchesWrongTranslation(t *testing.T) {
	rg := needRg(t)
	root := secretTree(t)
	exclude := []string{".env", ".ssh", "*.pem", root + "/secrets/**", "/**/secrets/*", root + "/config/prod.yml"}
	hidden := []string{".env", "src/.env", ".ssh/id_rsa", "home/.ssh/config", "certs/server.pem", "secrets/db.txt", "secrets/sub/deep.txt", "other/secrets/y.txt", "config/prod.yml"}
	ex, err := compileExclude(exclude)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []GrepOptions{
		{OutputMode: ModeFilesWithMatches},
		{OutputMode: ModeCount},
		{OutputMode: ModeContent},
		{OutputMode: ModeContent, LineNumbers: true, Context: 1},
	} {
		o.Pattern, o.Path = "hello", root
		cmd := exec.Command(rg, ripgrepArgs(&o, true, nil)...) // the wrong translation: no globs
		cmd.Dir = root
		raw, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hidden {
			if !strings.Contains(string(raw), "./"+h+"\x00") {
				t.Fatalf("%s: the unfiltered output should show %s:\n%q", o.OutputMode, h, raw)
			}
		}
		rx, err := ex.forPath(root)
		if err != nil {
			t.Fatal(err)
		}
		pg := &pager{}
		f := newRgFilter(&o, rx, pg)
		for i := 0; i < len(raw); i += 7 { // in pieces, as a pipe delivers it
			f.Write(raw[i:min(i+7, len(raw))])
		}
		f.flush()
		filtered := pg.result(o.Pattern)
		if leaked := shown(filtered.Text, root, hidden); len(leaked) > 0 {
			t.Errorf("%s: the filter let through %q:\n%s", o.OutputMode, leaked, filtered.Text)
		}
		o.Exclude, o.Engine, o.HeadLimit = exclude, Ripgrep, ptr(0)
		right, err := Grep(context.Background(), &o)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(sortedLines(right.Text), sortedLines(filtered.Text)); diff != "" {
			t.Errorf("%s: filtered output differs from the right translation's (-right +filtered):\n%s", o.OutputMode, diff)
		}
	}
}

// The Go side's filter checks every directory on the way and link
// targets, not just the name: it catches what a pruning mistake would let
// through.
func TestFileHit(t *testing.T) {
	root := secretTree(t)
	ex, err := compileExclude([]string{".ssh", root + "/secrets"})
	if err != nil {
		t.Fatal(err)
	}
	rx, err := ex.forPath(root)
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{
		"home/.ssh/config":     ".ssh",
		"secrets/sub/deep.txt": root + "/secrets",
		"src/app.go":           "",
	} {
		if rx.entryHit(rel) != nil {
			t.Errorf("%s: the entry alone should not match (only a directory above it does)", rel)
		}
		got := ""
		if h := rx.fileHit(rel, ""); h != nil {
			got = h.pattern
		}
		if got != want {
			t.Errorf("fileHit(%s) = %q, want %q", rel, got, want)
		}
	}
	if h := rx.fileHit("link-secret", filepath.Join(root, "secrets", "db.txt")); h == nil {
		t.Error("a link to an excluded file was not caught by its target")
	}
}

// With exclusions that match nothing, both engines print exactly what they
// print without them: the rg output goes through --null and the filter,
// which must restore the reference format.
func TestExcludeKeepsOutput(t *testing.T) {
	needRg(t)
	root := fixture(t)
	var opts []GrepOptions
	for _, m := range []string{ModeContent, ModeFilesWithMatches, ModeCount} {
		for _, n := range []bool{true, false} {
			opts = append(opts,
				GrepOptions{Pattern: "hello", OutputMode: m, LineNumbers: n},
				GrepOptions{Pattern: "hello", OutputMode: m, LineNumbers: n, Context: 2},
				GrepOptions{Pattern: "hello", OutputMode: m, LineNumbers: n, Before: 1, Glob: "*.txt"},
				GrepOptions{Pattern: `again\nseven\nhello`, OutputMode: m, LineNumbers: n, Multiline: true, After: 1},
				GrepOptions{Pattern: "-x", OutputMode: m, LineNumbers: n},
				GrepOptions{Pattern: "^$", OutputMode: m, LineNumbers: n},
				GrepOptions{Pattern: "hello", OutputMode: m, LineNumbers: n, Path: filepath.Join(root, "src") + "/"},
			)
		}
	}
	for _, o := range opts {
		for _, e := range []Engine{Ripgrep, GoEngine} {
			t.Run(fmt.Sprintf("%s/%s/n=%v/C%dB%dA%d/%s/%s", e, o.OutputMode, o.LineNumbers, o.Context, o.Before, o.After, o.Pattern, o.Glob), func(t *testing.T) {
				t.Parallel()
				o := o // one copy per engine
				if o.Path == "" {
					o.Path = root
				}
				o.Engine, o.HeadLimit = e, ptr(0)
				plain, err := Grep(context.Background(), &o)
				if err != nil {
					t.Fatal(err)
				}
				o.Exclude = []string{"no-such-name", "/no/such/dir/**", "/**/no-such-dir/*"}
				excl, err := Grep(context.Background(), &o)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(sortedLines(plain.Text), sortedLines(excl.Text)); diff != "" {
					t.Errorf("(-without +with exclusions):\n%s", diff)
				}
				if plain.Items != excl.Items || plain.Matched != excl.Matched {
					t.Errorf("items/matched: %d/%v, with exclusions %d/%v", plain.Items, plain.Matched, excl.Items, excl.Matched)
				}
			})
		}
	}
}

// A context separator is kept only between two groups that are printed.
func TestRgFilterSeparators(t *testing.T) {
	rx := &rootExcluder{ex: &excluder{names: []namePattern{newNamePattern("s", "s")}}, dirs: map[string]*hit{}}
	pg := &pager{}
	f := newRgFilter(&GrepOptions{Path: "/p", OutputMode: ModeContent}, rx, pg)
	f.Write([]byte("--\n./s\x001:x\n--\n./a\x001-b\n./a\x002:c\n--\n./s\x003:y\n--\n./s\x004:z\n--\n./b\x001:d"))
	f.flush()
	want := "/p/a-b\n/p/a:c\n--\n/p/b:d"
	if got := pg.result("x").Text; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestGlobExclude(t *testing.T) {
	root := secretTree(t)
	exclude := []string{".env", ".env.local", "id_rsa*", ".ssh", "*.pem", root + "/secrets/**", root + "/config/prod.yml", "/**/secrets/*"}
	visible := []string{".env.example", "config/dev.yml", "notes.md", "src/app.go", "weird-1:2.txt"}
	for _, c := range []struct {
		pattern string
		want    []string
	}{
		{"**", visible},
		{"**/*", visible},
		{"*", []string{".env.example", "notes.md", "weird-1:2.txt"}},
		{".env", nil},
		{"**/.env", nil},
		{"secrets/**", nil},
		{"link-*", nil},
		{"**/*.pem", nil},
		{".ssh/*", nil},
		{root + "/config/*", []string{"config/dev.yml"}},
	} {
		res, err := Glob(context.Background(), root, c.pattern, &GlobOptions{Limit: 1000, Exclude: exclude})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, f := range c.want {
			want = append(want, filepath.Join(root, f))
		}
		got := slices.Clone(res.Files)
		slices.Sort(got)
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" || res.Total != len(want) {
			t.Errorf("%s: total %d (-want +got):\n%s", c.pattern, res.Total, diff)
		}
	}
	// Without exclusions the same patterns list the secrets, links included.
	res, err := Glob(context.Background(), root, "link-*", nil)
	if err != nil || res.Total != 2 {
		t.Errorf("link-* without exclusions: %+v, %v", res, err)
	}
}

// Excluded directories are pruned: the walk never offers anything below
// them to the other rules, nor to the exclusion test itself.
func TestExcludePrunes(t *testing.T) {
	root := secretTree(t)
	ex, err := compileExclude([]string{".ssh", root + "/secrets"})
	if err != nil {
		t.Fatal(err)
	}
	rx, err := ex.forPath(root)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var offered []string
	override := rx.override(func(rel string, isDir bool) walk.Match {
		mu.Lock()
		offered = append(offered, rel)
		mu.Unlock()
		return walk.None
	})
	var listed []string
	for e, err := range walk.Files(context.Background(), root, &walk.Options{Hidden: true, Override: override}) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, e.Rel)
	}
	for _, rel := range append(offered, listed...) {
		if strings.HasPrefix(rel, "secrets") || strings.Contains(rel, ".ssh") {
			t.Errorf("%s was offered or listed", rel)
		}
	}
	if !slices.Contains(listed, "notes.md") {
		t.Errorf("listed %q", listed)
	}
}

// FuzzExcludePattern checks the pieces that parse patterns against
// doublestar itself: brace expansion, the root-relative suffixes given to
// rg and used for pruning, the trailing-space protection, and the
// per-entry prefilter.
func FuzzExcludePattern(f *testing.F) {
	for _, s := range []string{".env", "*.pem", "/r/p/secrets/**", "/**/secrets/*", "/r/{p/s,q}/k", "{a,{b,c}}", "/r/*/x", "/**/p/**/y", "sp ", "/r/p/{a,}b", "[!a]*", "/r/p"} {
		f.Add(s, "secrets/x")
	}
	f.Fuzz(func(t *testing.T, pattern, relIn string) {
		var segs []string
		for s := range strings.SplitSeq(relIn, "/") {
			if s != "" && s != "." && s != ".." {
				segs = append(segs, s)
			}
		}
		if len(segs) == 0 {
			return
		}
		rel := strings.Join(segs, "/")
		ex, err := compileExclude([]string{pattern})
		if err != nil {
			return
		}
		const root = "/r/p"
		rx := ex.bind(root, root)
		full := root + "/" + rel
		direct := false
		for _, n := range ex.names {
			name := segs[len(segs)-1]
			direct = direct || doublestar.MatchUnvalidated(n.pat, name)
			if n.match(name) != doublestar.MatchUnvalidated(n.pat, name) {
				t.Fatalf("fast match of %q on %q differs from doublestar", n.pat, name)
			}
			// The rg globs (read with doublestar) match the same names.
			// doublestar misses some matches of braces after a star
			// ("0*{}" and "%*{*}" do not match "0" and "%", though "0*"
			// and "%**" do), so there the globs, which spell the braces
			// out, may match more: rg then hides a file the matcher would
			// not, never the reverse.
			want, viaGlobs := doublestar.MatchUnvalidated(n.pat, name), false
			for _, g := range rgSafe(n.pat) {
				viaGlobs = viaGlobs || doublestar.MatchUnvalidated(strings.TrimPrefix(g, "!"), name)
			}
			if want && !viaGlobs || !want && viaGlobs && !strings.Contains(n.pat, "{") {
				t.Fatalf("%q on %q: doublestar %v, rg globs %q %v", n.pat, name, want, rgSafe(n.pat), viaGlobs)
			}
		}
		for _, a := range ex.abs {
			m := doublestar.MatchUnvalidated(a.pat, full)
			direct = direct || m
			viaSuffix := false
			for _, alt := range a.alts {
				for _, s := range suffixStates(alt, []string{"r", "p"}) {
					viaSuffix = viaSuffix || doublestar.MatchUnvalidated(strings.Join(alt[s:], "/"), rel)
				}
			}
			if m && !viaSuffix || !m && viaSuffix && !strings.Contains(a.pat, "{") {
				t.Fatalf("%q on %q: doublestar %v, root-relative suffixes %v", a.pat, full, m, viaSuffix)
			}
		}
		if got := rx.entryHit(rel) != nil; got != direct {
			t.Fatalf("entryHit(%q) = %v, direct match %v", rel, got, direct)
		}
		if got := rx.pruned(rel); direct && !got || !direct && got && !strings.Contains(pattern, "{") {
			t.Fatalf("pruned(%q) = %v, direct match %v", rel, got, direct)
		}
	})
}
