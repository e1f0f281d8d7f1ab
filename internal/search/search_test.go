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
	"testing"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// needRg returns the rg binary, skipping the test when it is missing
// (failing instead when CI is set).
func needRg(t testing.TB) string {
	t.Helper()
	rg, err := exec.LookPath("rg")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("rg (ripgrep) is not on PATH; CI requires it")
		}
		t.Skip("rg (ripgrep) is not on PATH; install ripgrep to run this test")
	}
	return rg
}

func write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, "/") {
			continue
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func lineOf(n int, s string) string { return strings.Repeat("x", n-len(s)) + s }

// fixture builds a tree exercising what the engines must agree on and returns its root.
func fixture(t testing.TB) string {
	t.Helper()
	outside := t.TempDir()
	write(t, outside, map[string]string{"secret.txt": "hello from outside\n", "dir/inner.txt": "hello inner\n"})
	root := filepath.Join(t.TempDir(), "repo")
	write(t, root, map[string]string{
		".git/HEAD":  "ref: refs/heads/main\n",
		".gitignore": "*.log\n!keep.log\nignored_dir/\n/build\n",
		"src/main.go": "package main\n\nimport \"fmt\"\n\n// hello world\nfunc main() {\n\tfmt.Println(\"Hello, World\")\n\thelper()\n}\n\n" +
			"func helper() {\n\tif err != nil {\n\t\treturn\n\t}\n\t// HELLO again\n}\n",
		"src/util/helper.go":      "package util\n\nfunc Helper() string { return \"hello\" }\n\nfunc other() {}\n",
		"src/util/helper_test.go": "package util\n\nimport \"testing\"\n\nfunc TestHelper(t *testing.T) {\n\tif Helper() != \"hello\" {\n\t\tt.Fatal(\"no hello\")\n\t}\n}\n",
		"docs/readme.md":          "# Readme\n\nhéllo wörld\nÉCOLE and école\nplain hello\n\n\nhello after blanks\nthe UNſAFE way, 3 \u212aelvin\n",
		"keep.log":                "hello kept log\n",
		"drop.log":                "hello dropped log\n",
		"ignored_dir/x.go":        "package x // hello\n",
		"build/out.txt":           "hello build\n",
		"sub/build/keep.txt":      "hello nested build is not ignored\n",
		".hidden/config.yaml":     "greeting: hello\n",
		".env":                    "HELLO=1\n",
		"bin.dat":                 "hello\x00binary\nhello\n",
		"crlf.txt":                "hello\r\nworld\r\nhello world\r\n",
		"long.txt": lineOf(499, "hello") + "\n" + lineOf(500, "hello") + "\n" + lineOf(501, "hello") + "\n" +
			"short hello\n" + lineOf(600, "ctx") + "\nafter\n",
		"noeol.txt":             "first\nhello no newline",
		"web/app.tsx":           "export const hello = 1;\n",
		"web/app.jsx":           "const hello = 2;\n",
		"web/app.ts":            "let hello = 3;\n",
		"Makefile":              "all:\n\techo hello\n",
		"Dockerfile":            "RUN echo hello\n",
		"script.sh":             "#!/bin/sh\necho hello\n",
		"tool.py":               "def hello():\n    pass\n",
		"lib.rs":                "fn hello() {}\n",
		"data.json":             "{\"hello\": true}\n",
		"nested/a/b/c/deep.txt": "one\ntwo\nhello deep\nthree\nfour\nfive\nsix\nhello again\nseven\nhello three\n",
		"-dash.txt":             "-x marks\n",
		"empty.txt":             "",
		"bom.txt":               "\xef\xbb\xbfhello bom\nsecond\n",
	})
	for name, target := range map[string]string{
		"escape.txt": filepath.Join(outside, "secret.txt"),
		"escape-dir": filepath.Join(outside, "dir"),
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func ptr(n int) *int { return &n }

func sortedLines(s string) []string {
	l := strings.Split(s, "\n")
	slices.Sort(l)
	return l
}

func grepBoth(t *testing.T, o GrepOptions) (rg, gor *GrepResult) {
	t.Helper()
	o.Engine = Ripgrep
	rg, err := Grep(context.Background(), &o)
	if err != nil {
		t.Fatalf("ripgrep engine: %v", err)
	}
	o.Engine = GoEngine
	gor, err = Grep(context.Background(), &o)
	if err != nil {
		t.Fatalf("go engine: %v", err)
	}
	if rg.Engine != Ripgrep || gor.Engine != GoEngine {
		t.Fatalf("engines ran: %v, %v", rg.Engine, gor.Engine)
	}
	return rg, gor
}

func TestEnginesAgree(t *testing.T) {
	needRg(t)
	root := fixture(t)
	type tc struct {
		name string
		o    GrepOptions
	}
	var cases []tc
	modes := []string{ModeContent, ModeFilesWithMatches, ModeCount}
	patterns := []struct {
		pattern    string
		ignoreCase bool
	}{
		{"hello", false}, {"hello", true}, {`func\s+\w+`, false}, {"^$", false}, {"o$", false}, {"wörld", false},
		{"école", true}, {`[A-Z]\w+`, false}, {"-x", false}, {`err != nil \{`, false}, {`hel+o\b`, true},
		{"Hello|HELLO", false}, {"ctx", false}, {`x{3}hello`, false}, {"FUNC MAIN", true}, {"(?i)readme", false},
		{"", false}, {"unsafe way", true}, {"kelvin", true}, {"3 kelvin", true}, {"UNSAFE", false},
	}
	for _, p := range patterns {
		for _, m := range modes {
			cases = append(cases, tc{fmt.Sprintf("%s/i=%v/%s", p.pattern, p.ignoreCase, m),
				GrepOptions{Pattern: p.pattern, IgnoreCase: p.ignoreCase, OutputMode: m, LineNumbers: true}})
		}
	}
	for _, ctx := range []GrepOptions{{Context: 1}, {Context: 2}, {Before: 1}, {After: 2}, {Before: 2, After: 1}, {Context: 3, Before: 1}} {
		for _, n := range []bool{true, false} {
			o := ctx
			o.Pattern, o.OutputMode, o.LineNumbers = "hello", ModeContent, n
			cases = append(cases, tc{fmt.Sprintf("context/B%dA%dC%d/n=%v", o.Before, o.After, o.Context, n), o})
		}
	}
	for _, g := range []string{"*.go", "**/*.go", "!*.log", "*.{go,md}", "src/**", "*.go,*.md", "*.go *.txt", "!src/**", "*.log", "!nested", "util/*.go", "/*.txt"} {
		for _, m := range modes {
			cases = append(cases, tc{"glob/" + g + "/" + m, GrepOptions{Pattern: "hello", Glob: g, OutputMode: m, LineNumbers: true}})
		}
	}
	for _, ty := range []string{"go", "py", "ts", "js", "make", "docker", "md", "sh", "json", "rust", "txt"} {
		cases = append(cases, tc{"type/" + ty, GrepOptions{Pattern: "hello", Type: ty, OutputMode: ModeContent, LineNumbers: true}})
	}
	for _, p := range []string{`func main\(\) \{\n\tfmt`, `hello.world`, `one\ntwo`, `\{\n.*?\n\}`, `hello`, `again\nseven\nhello`, `^$`, `e\n`} {
		for _, m := range modes {
			cases = append(cases, tc{"multiline/" + p + "/" + m, GrepOptions{Pattern: p, Multiline: true, OutputMode: m, LineNumbers: true}})
		}
		if p != "^$" { // rg prints before-context for the empty match at the end of a file, but not the match
			cases = append(cases, tc{"multiline/" + p + "/context", GrepOptions{Pattern: p, Multiline: true, OutputMode: ModeContent, LineNumbers: true, Context: 1}})
		}
	}
	// A symbolic link given as the path is searched, by both engines.
	for _, file := range []string{"src/main.go", "crlf.txt", "bin.dat", "long.txt", "noeol.txt", "empty.txt", "escape.txt", "bom.txt"} {
		for _, m := range modes {
			cases = append(cases, tc{"file/" + file + "/" + m, GrepOptions{Pattern: "hello", Path: filepath.Join(root, file), OutputMode: m, LineNumbers: true}})
			cases = append(cases, tc{"file/" + file + "/" + m + "/C1", GrepOptions{Pattern: "hello", Path: filepath.Join(root, file), OutputMode: m, Context: 1}})
		}
	}
	cases = append(cases, tc{"subdir", GrepOptions{Pattern: "hello", Path: filepath.Join(root, "src"), OutputMode: ModeContent}})
	cases = append(cases, tc{"trailing-slash", GrepOptions{Pattern: "hello", Path: root + "/", OutputMode: ModeCount}})

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if c.o.Path == "" {
				c.o.Path = root
			}
			c.o.HeadLimit = ptr(0)
			rg, gor := grepBoth(t, c.o)
			if diff := cmp.Diff(sortedLines(rg.Text), sortedLines(gor.Text)); diff != "" {
				t.Errorf("sorted output differs (-rg +go):\n%s\nrg output:\n%s", diff, rg.Text)
			}
			if rg.Items != gor.Items || rg.Matched != gor.Matched {
				t.Errorf("items/matched: rg %d/%v, go %d/%v", rg.Items, rg.Matched, gor.Items, gor.Matched)
			}
			if !strings.HasPrefix(c.name, "file/escape") && strings.Contains(rg.Text+gor.Text, "outside") || strings.Contains(rg.Text+gor.Text, "inner") {
				t.Errorf("a symlink out of the root was followed:\n%s", gor.Text)
			}
		})
	}
}

func TestEnginesAgreeOnPagination(t *testing.T) {
	needRg(t)
	root := fixture(t)
	for _, m := range []string{ModeContent, ModeFilesWithMatches, ModeCount} {
		for _, page := range []struct{ limit, offset int }{{3, 0}, {3, 2}, {0, 4}, {1000, 1}, {2, 1000}} {
			t.Run(fmt.Sprintf("%s/%d/%d", m, page.limit, page.offset), func(t *testing.T) {
				full, _ := grepBoth(t, GrepOptions{Pattern: "hello", Path: root, OutputMode: m, HeadLimit: ptr(0)})
				all := strings.Split(full.Text, "\n")
				rg, gor := grepBoth(t, GrepOptions{Pattern: "hello", Path: root, OutputMode: m, HeadLimit: ptr(page.limit), Offset: page.offset})
				if rg.Items != gor.Items || rg.Items != len(all) {
					t.Fatalf("items: rg %d, go %d, want %d", rg.Items, gor.Items, len(all))
				}
				rgLines, goLines := strings.Split(rg.Text, "\n\n[")[0], strings.Split(gor.Text, "\n\n[")[0]
				if len(strings.Split(rgLines, "\n")) != len(strings.Split(goLines, "\n")) {
					t.Errorf("page sizes differ:\nrg:\n%s\ngo:\n%s", rg.Text, gor.Text)
				}
				for _, l := range strings.Split(goLines, "\n") {
					if l != "" && !slices.Contains(all, l) {
						t.Errorf("go page line %q is not in the full output", l)
					}
				}
				_, rgNote, _ := strings.Cut(rg.Text, "\n\n[")
				_, goNote, _ := strings.Cut(gor.Text, "\n\n[")
				if rgNote != goNote {
					t.Errorf("pagination notes differ: rg %q, go %q", rgNote, goNote)
				}
			})
		}
	}
}

// paginate feeds out to a pager in pieces of every size from 1 to 4 bytes.
func paginate(out string, limit *int, offset int) *GrepResult {
	var first *GrepResult
	for size := 1; size <= 4; size++ {
		p := &pager{offset: offset, limit: DefaultHeadLimit}
		if limit != nil {
			p.limit = *limit
		}
		for i := 0; i < len(out); i += size {
			p.Write([]byte(out[i:min(i+size, len(out))]))
		}
		res := p.result("p")
		if first != nil && *res != *first {
			return &GrepResult{Text: fmt.Sprintf("pieces of %d bytes gave %+v, of 1 byte %+v", size, res, first)}
		}
		first = res
	}
	return first
}

func TestPaginate(t *testing.T) {
	out := "a\n\nb\nc\nd\n"
	for _, c := range []struct {
		limit  *int
		offset int
		want   string
	}{
		{nil, 0, "a\nb\nc\nd"},
		{ptr(2), 0, "a\nb\n\n[Showing results with pagination = limit: 2]"},
		{ptr(2), 1, "b\nc\n\n[Showing results with pagination = limit: 2, offset: 1]"},
		{ptr(2), 2, "c\nd"},
		{ptr(0), 3, "d"},
		{ptr(0), 0, "a\nb\nc\nd"},
		{ptr(5), 9, ""},
	} {
		got := paginate(out, c.limit, c.offset)
		if got.Text != c.want || got.Items != 4 || !got.Matched {
			t.Errorf("limit %v offset %d: got %+v, want text %q", c.limit, c.offset, got, c.want)
		}
	}
	if got := paginate("\n\n", nil, 0); got.Text != "No matches found for pattern: p" || got.Matched || got.Items != 0 {
		t.Errorf("no match: %+v", got)
	}
	if got := paginate("x\ny", nil, 0); got.Text != "x\ny" || got.Items != 2 {
		t.Errorf("no final newline: %+v", got)
	}
	long := strings.Repeat("x\n", 300)
	if got := paginate(long, nil, 0); !strings.HasSuffix(got.Text, "x\n\n[Showing results with pagination = limit: 250]") {
		t.Errorf("default limit: ...%q", got.Text[len(got.Text)-60:])
	}
}

func TestRipgrepArgs(t *testing.T) {
	vcs := []string{"--hidden", "--glob", "!.git", "--glob", "!.svn", "--glob", "!.hg", "--glob", "!.bzr", "--glob", "!.jj", "--glob", "!.sl", "--max-columns", "500"}
	for _, c := range []struct {
		o    GrepOptions
		want []string
	}{
		{GrepOptions{Pattern: "x", Path: "/p"}, []string{"-l", "x", "/p"}},
		{GrepOptions{Pattern: "-x", Path: "/p", OutputMode: ModeCount, IgnoreCase: true}, []string{"-i", "-c", "-e", "-x", "/p"}},
		{GrepOptions{Pattern: "x", Path: "/p", OutputMode: ModeContent, LineNumbers: true, Multiline: true, Context: 2, Before: 1, After: 3, Type: "go", Glob: "*.go,*.md  *.{a,b} !c"},
			[]string{"-U", "--multiline-dotall", "-n", "-C", "2", "x", "--type", "go", "--glob", "*.go", "--glob", "*.md", "--glob", "*.{a,b}", "--glob", "!c", "/p"}},
		{GrepOptions{Pattern: "x", Path: "/p", OutputMode: ModeContent, Before: 1, After: 3}, []string{"-B", "1", "-A", "3", "x", "/p"}},
		{GrepOptions{Pattern: "x", Path: "/p", OutputMode: ModeFilesWithMatches, LineNumbers: true, Context: 4}, []string{"-l", "x", "/p"}},
	} {
		if diff := cmp.Diff(append(slices.Clone(vcs), c.want...), RipgrepArgs(&c.o)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", c.o, diff)
		}
	}
}

func toolError(t *testing.T, err error) string {
	t.Helper()
	var te *ToolError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v (%T), want a *ToolError", err, err)
	}
	return te.Msg
}

func TestGrepErrors(t *testing.T) {
	root := fixture(t)
	engines := []Engine{GoEngine}
	if _, err := exec.LookPath("rg"); err == nil {
		engines = append(engines, Ripgrep)
	} else if os.Getenv("CI") != "" {
		t.Fatal("rg is not on PATH")
	}
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	for _, e := range engines {
		t.Run(e.String(), func(t *testing.T) {
			check := func(ctx context.Context, o GrepOptions, want func(string) bool, desc string) {
				t.Helper()
				o.Engine = e
				if o.Path == "" {
					o.Path = root
				}
				_, err := Grep(ctx, &o)
				if msg := toolError(t, err); !want(msg) {
					t.Errorf("%s: got %q", desc, msg)
				}
			}
			eq := func(s string) func(string) bool { return func(m string) bool { return m == s } }
			bg := context.Background()
			check(bg, GrepOptions{Pattern: "x", HeadLimit: ptr(-1)}, eq("Error: head_limit must be non-negative."), "head_limit")
			check(bg, GrepOptions{Pattern: "x", Offset: -1}, eq("Error: offset must be non-negative."), "offset")
			check(bg, GrepOptions{Pattern: "x", Path: filepath.Join(root, "nope")}, eq("Path not found: "+filepath.Join(root, "nope")), "missing path")
			timedOut := "Ripgrep search timed out after 0 seconds (the caller's deadline). Try searching a more specific path or pattern."
			if e == GoEngine {
				timedOut = "The search (Go engine) timed out after 0 seconds (the caller's deadline). Try searching a more specific path or pattern."
			}
			check(expired, GrepOptions{Pattern: "hello"}, eq(timedOut), "timeout")
			check(bg, GrepOptions{Pattern: "hello", Timeout: time.Nanosecond}, func(m string) bool {
				return strings.Contains(m, "timed out after 0.000000001 seconds (the search's time limit)")
			}, "own timeout")
			check(bg, GrepOptions{Pattern: "x", OutputMode: "lines"}, func(m string) bool { return strings.Contains(m, "output_mode") }, "mode")
			switch e {
			case GoEngine:
				check(bg, GrepOptions{Pattern: "(unclosed"}, eq("Invalid regex pattern: error parsing regexp: missing closing ): `(unclosed`"), "regex")
				check(bg, GrepOptions{Pattern: "a\\nb"}, func(m string) bool { return strings.Contains(m, `the literal '"\n"' is not allowed`) }, "newline")
				check(bg, GrepOptions{Pattern: "x", Type: "nosuch"}, eq("unrecognized file type: nosuch"), "type")
				check(bg, GrepOptions{Pattern: "x", Glob: "[a-"}, eq("Invalid glob: [a-"), "glob")
			case Ripgrep:
				check(bg, GrepOptions{Pattern: "(unclosed"}, func(m string) bool {
					return strings.HasPrefix(m, "ripgrep error (code 2): regex parse error:") && strings.Contains(m, "unclosed group")
				}, "regex")
				check(bg, GrepOptions{Pattern: "a\\nb"}, func(m string) bool { return strings.Contains(m, `the literal '"\n"' is not allowed`) }, "newline")
				check(bg, GrepOptions{Pattern: "x", Type: "nosuch"}, eq("ripgrep error (code 2): unrecognized file type: nosuch"), "type")
				check(bg, GrepOptions{Pattern: "x", RgPath: filepath.Join(root, "no-rg")}, func(m string) bool { return strings.HasPrefix(m, "ripgrep error (code 127): ") }, "no rg")
			}
		})
	}
	// A cancelled (not timed-out) search is an infrastructure error.
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	_, err := Grep(cctx, &GrepOptions{Pattern: "hello", Path: root, Engine: GoEngine})
	var te *ToolError
	if !errors.Is(err, context.Canceled) || errors.As(err, &te) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestGrepNoMatch(t *testing.T) {
	root := fixture(t)
	res, err := Grep(context.Background(), &GrepOptions{Pattern: "zzz-not-there", Path: root, Engine: GoEngine})
	if err != nil || res.Text != "No matches found for pattern: zzz-not-there" || res.Matched {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestAutoEngine(t *testing.T) {
	root := fixture(t)
	res, err := Grep(context.Background(), &GrepOptions{Pattern: "hello", Path: root, RgPath: filepath.Join(root, "no-rg")})
	if err != nil || res.Engine != GoEngine {
		t.Fatalf("without rg: %+v, %v", res, err)
	}
	rg := needRg(t)
	res, err = Grep(context.Background(), &GrepOptions{Pattern: "hello", Path: root, RgPath: rg})
	if err != nil || res.Engine != Ripgrep {
		t.Fatalf("with rg: %+v, %v", res, err)
	}
}

// A file larger than one chunk, with context spanning chunk boundaries.
func TestGoEngineChunks(t *testing.T) {
	needRg(t)
	root := t.TempDir()
	var b strings.Builder
	for i := range 40000 {
		switch {
		case i%997 == 0:
			fmt.Fprintf(&b, "needle %d\n", i)
		case i%5003 == 0:
			b.WriteString(strings.Repeat("long ", 30000) + "needle\n")
		default:
			fmt.Fprintf(&b, "line %d of filler text\n", i)
		}
	}
	write(t, root, map[string]string{"big.txt": b.String(), "small.txt": "needle\n"})
	for _, o := range []GrepOptions{
		{OutputMode: ModeContent, LineNumbers: true},
		{OutputMode: ModeContent, LineNumbers: true, Context: 3},
		{OutputMode: ModeContent, Before: 5},
		{OutputMode: ModeContent, After: 4, LineNumbers: true},
		{OutputMode: ModeCount},
		{OutputMode: ModeContent, Multiline: true, LineNumbers: true, Context: 2},
	} {
		o.Pattern, o.Path, o.HeadLimit = "needle", root, ptr(0)
		rg, gor := grepBoth(t, o)
		if diff := cmp.Diff(sortedLines(rg.Text), sortedLines(gor.Text)); diff != "" {
			t.Errorf("%+v: (-rg +go):\n%s", o, diff)
		}
	}
}

func TestFilter(t *testing.T) {
	if got := splitGlobs("*.go,*.md  *.{a,b} !c,d {x"); !slices.Equal(got, []string{"*.go", "*.md", "*.{a,b}", "!c", "d", "{x"}) {
		t.Errorf("splitGlobs = %q", got)
	}
}

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func touch(t *testing.T, path string, age time.Duration) {
	t.Helper()
	when := epoch.Add(-age)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

func TestGlobMatchesRipgrep(t *testing.T) {
	rg := needRg(t)
	root := fixture(t)
	cmd := exec.Command(rg, "--files", "--hidden", "--glob", "!.git")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	listed := strings.Fields(string(out))
	for _, pattern := range []string{"**/*.go", "**/*", "*.txt", "src/**", "src/*/*.go", "**/*.{go,md}", "**/[a-d]*", "web/app.?s*", ".hidden/*", "**/*.log", "nested/**/deep.txt", "**/build/*", "*", "nope/**"} {
		t.Run(pattern, func(t *testing.T) {
			var want []string
			for _, f := range listed {
				if doublestar.MatchUnvalidated(pattern, f) {
					want = append(want, filepath.Join(root, f))
				}
			}
			res, err := Glob(context.Background(), root, pattern, &GlobOptions{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			got := slices.Clone(res.Files)
			slices.Sort(got)
			slices.Sort(want)
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-rg --files, filtered +Glob):\n%s", diff)
			}
			if res.Total != len(want) || res.Truncated {
				t.Errorf("total %d truncated %v, want %d", res.Total, res.Truncated, len(want))
			}
		})
	}
	// Where no ignored file matches, rg's own -g agrees too.
	for _, pattern := range []string{"**/*.go", "src/**", "**/*.{go,md}", "nested/**/deep.txt"} {
		cmd := exec.Command(rg, "--files", "--hidden", "--glob", "!.git", "--glob", pattern)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, f := range strings.Fields(string(out)) {
			want = append(want, filepath.Join(root, f))
		}
		res, err := Glob(context.Background(), root, pattern, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Clone(res.Files)
		slices.Sort(got)
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-rg -g +Glob):\n%s", pattern, diff)
		}
	}
}

func TestGlobOrderAndLimit(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("d/f%d.txt", i)] = ""
	}
	files["d/other.md"] = ""
	write(t, root, files)
	for i := range 10 {
		touch(t, filepath.Join(root, fmt.Sprintf("d/f%d.txt", i)), time.Duration(i)*time.Hour)
	}
	touch(t, filepath.Join(root, "d/f8.txt"), 2*time.Hour) // ties with f2: path breaks the tie
	res, err := Glob(context.Background(), root, "d/*.txt", &GlobOptions{Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"d/f0.txt", "d/f1.txt", "d/f2.txt", "d/f8.txt"}
	for i := range want {
		want[i] = filepath.Join(root, want[i])
	}
	if diff := cmp.Diff(want, res.Files); diff != "" || !res.Truncated || res.Total != 10 {
		t.Errorf("files (-want +got):\n%s\ntruncated %v total %d", diff, res.Truncated, res.Total)
	}
	// An absolute pattern inside the root works; one outside does not.
	res, err = Glob(context.Background(), root, filepath.Join(root, "d", "*.md"), nil)
	if err != nil || len(res.Files) != 1 || res.Files[0] != filepath.Join(root, "d", "other.md") {
		t.Errorf("absolute pattern: %+v, %v", res, err)
	}
	if _, err := Glob(context.Background(), root, "/etc/*", nil); err == nil {
		t.Error("a pattern outside the root was accepted")
	}
	if _, err := Glob(context.Background(), root, "d/[a-", nil); !errors.Is(err, doublestar.ErrBadPattern) || !strings.Contains(err.Error(), "d/[a-") {
		t.Errorf("bad pattern: err = %v", err)
	}
}

func TestGlobSymlinkEscape(t *testing.T) {
	root := fixture(t)
	res, err := Glob(context.Background(), root, "**/*.txt", &GlobOptions{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		if strings.Contains(f, "escape") {
			t.Errorf("followed a symlink out of the root: %s", f)
		}
	}
	res, err = Glob(context.Background(), root, "escape-dir/*", nil)
	if err != nil || res.Total != 0 {
		t.Errorf("escape-dir: %+v, %v", res, err)
	}
}

func FuzzGlobPattern(f *testing.F) {
	root := f.TempDir()
	write(f, root, map[string]string{"a/b.go": "", "a/.c/d.txt": "", "e.md": "", "{x}/[y].txt": ""})
	for _, s := range []string{"**/*.go", "a/{b,c}*", "[", "**/", "a/**/[!b]*", "\\", "{a,{b,c}}/**", "/abs", "../x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		res, err := Glob(context.Background(), root, pattern, nil)
		if err == nil && res.Total < len(res.Files) {
			t.Fatalf("total %d < %d files", res.Total, len(res.Files))
		}
	})
}
