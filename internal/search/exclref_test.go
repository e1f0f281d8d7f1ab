package search

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/toolscope/toolscope/internal/pathpolicy"
)

// This file keeps the exclusion test as it was before the fast path
// (exclfast.go), as the reference the fast path is compared with: refBind
// makes every absolute pattern relative to the root, refEntryHit runs
// doublestar on the absolute path of every entry, and refPruned matches the
// root-relative suffixes.

// refBind is the old bind: every absolute pattern, in both spellings of
// the root, with its root-relative suffixes.
func refBind(ex *excluder, abs, real string) []activeAbs {
	var out []activeAbs
	spaces := []string{abs}
	if real != abs {
		spaces = append(spaces, real)
	}
	for i := range ex.abs {
		for _, r := range spaces {
			if act, ok := activate(&ex.abs[i], filepath.ToSlash(r)); ok {
				out = append(out, act)
			}
		}
	}
	return out
}

// refEntryHit is the old entryHit: names, then doublestar on the
// concatenated absolute path.
func refEntryHit(ex *excluder, active []activeAbs, rel string) bool {
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	for k := range ex.names {
		if ex.names[k].match(name) {
			return true
		}
	}
	for _, a := range active {
		if !a.mayMatch(rel) || len(a.tail) <= len(rel) && !strings.HasSuffix(rel, a.tail) {
			continue
		}
		full := a.root + "/" + rel
		if a.root == "/" {
			full = "/" + rel
		}
		if doublestar.MatchUnvalidated(a.pat, full) {
			return true
		}
	}
	return false
}

// refPruned is the old pruned: names, then the root-relative suffixes.
func refPruned(ex *excluder, active []activeAbs, rel string) bool {
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	for k := range ex.names {
		if ex.names[k].match(name) {
			return true
		}
	}
	return suffixHit(active, rel)
}

// compareWithRef checks the fast exclusion test against the reference on
// every path, for a root spelled abs and, resolved, real.
func compareWithRef(t *testing.T, patterns []string, abs, real string, rels []string) (excluded int) {
	t.Helper()
	ex, err := compileExclude(patterns)
	if err != nil {
		t.Fatalf("%q: %v", patterns, err)
	}
	rx := ex.bind(abs, real)
	active := refBind(ex, abs, real)
	for _, rel := range rels {
		want := refEntryHit(ex, active, rel)
		if got := rx.entryHit(rel) != nil; got != want {
			t.Fatalf("root %s (%s), patterns %q: entryHit(%q) = %v, reference %v", abs, real, patterns, rel, got, want)
		}
		if got, want := rx.pruned(rel), refPruned(ex, active, rel); got != want {
			t.Fatalf("root %s (%s), patterns %q: pruned(%q) = %v, reference %v", abs, real, patterns, rel, got, want)
		}
		if want {
			excluded++
		}
	}
	return excluded
}

// diffSegments are the path components of the generated trees: secret names
// of every kind, their near misses, dotfiles, unicode, odd characters, and
// the components of the roots below.
var diffSegments = []string{
	".env", ".env.local", ".env.example", ".envrc", "env", ".ssh", "id_rsa", "id_rsa.pub", "id_ed25519",
	".config", "gh", "gcloud", "git", ".docker", "config.json", "config", "master.key", "credentials",
	"credentials.json", "credentials.toml", ".cargo", ".aws", ".netrc", ".git-credentials", "secrets",
	"private", "prod.yml", "src", "main.go", "a", "b", "x.pem", "key.pem", ".hidden", "..x", "...",
	"über", "日本語", "a b", "a\tb", "a*b", "a?b", "[a]", "{a,b}", "a\\b", "\xff\xfe", "\uFFFD", "#", "-", "~",
	"proj", "home", "u", "local", "share", "keyrings", ".local", "fish", "fish_history", "toolscope", "key",
}

// diffPaths returns n deterministic relative paths of 1 to 6 components.
func diffPaths(r *rand.Rand, n int) []string {
	out := make([]string, 0, n)
	for range n {
		k := 1 + r.IntN(6)
		segs := make([]string, k)
		for i := range segs {
			segs[i] = diffSegments[r.IntN(len(diffSegments))]
		}
		out = append(out, strings.Join(segs, "/"))
	}
	return out
}

// TestExcludeMatcherDifferential compares the fast exclusion test with the
// reference over thousands of generated paths: the secret policy and
// realistic deny rules under several roots, then random patterns.
func TestExcludeMatcherDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 1))
	rels := diffPaths(r, 6000)
	roots := [][2]string{
		{"/home/u/proj", "/home/u/proj"},
		{"/home/u/proj", "/srv/real/proj"},
		{"/", "/"},
		{"/home/u/.config", "/home/u/.config"},
		{"/home/u/.local/share", "/home/u/.local/share"},
		{"/etc", "/etc"},
		{"/home/u/proj/config", "/data/.docker"},
		{"/über/a b", "/über/a b"},
	}
	policy := pathpolicy.SecretGlobs()
	for _, root := range roots {
		under, realUnder := strings.TrimSuffix(root[0], "/"), strings.TrimSuffix(root[1], "/")
		deny := []string{
			under + "/secrets/**", under + "/config/prod.yml", under + "/private", "/**/secrets/*",
			"*.pem", "/**/a/**", "/**/über/**", "/home/u/proj/{a,b}/**", "/**/a b/*", "/home/u/**/master.key",
			"/**", "/", realUnder + "/a/b/**", "/**/.config/**", "/home/u/proj/a",
		}
		n := compareWithRef(t, policy, root[0], root[1], rels)
		if n == 0 || n == len(rels) {
			t.Errorf("root %s: the policy excluded %d of %d paths", root[0], n, len(rels))
		}
		compareWithRef(t, append(policy, deny...), root[0], root[1], rels)
		for _, d := range deny {
			compareWithRef(t, []string{d}, root[0], root[1], rels)
		}
	}

	// Random patterns from the same pieces, with wildcards.
	pieces := append([]string{"**", "*", "?", "*.pem", "[a-z]*", "[!.]*", "a*", "*a", "{a,b}", "{,a}", "a{b,}*", "**a", "a**"}, diffSegments[:40]...)
	tried := 0
	for tried < 3000 {
		k := 1 + r.IntN(4)
		segs := make([]string, k)
		for i := range segs {
			segs[i] = pieces[r.IntN(len(pieces))]
		}
		var pattern string
		if r.IntN(3) == 0 {
			pattern = segs[0] // a base-name pattern
		} else {
			pattern = "/" + strings.Join(segs, "/")
		}
		if _, err := compileExclude([]string{pattern}); err != nil {
			continue
		}
		tried++
		root := roots[r.IntN(len(roots))]
		compareWithRef(t, []string{pattern}, root[0], root[1], rels[:300])
	}
}

// FuzzExcludeMatcher compares the fast exclusion test (entryHit and pruned)
// with the reference on one pattern and one path, under a root spelled in
// two ways.
func FuzzExcludeMatcher(f *testing.F) {
	for _, s := range []string{".env", "*.pem", "/r/p/secrets/**", "/**/secrets/*", "/**/.config/gh", "/**/p/x/**", "/r/p", "/**", "/", "/real/**/a", "/r/{p,q}/x"} {
		f.Add(s, "secrets/x")
		f.Add(s, ".config/gh/hosts.yml")
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
		if _, err := compileExclude([]string{pattern}); err != nil {
			return
		}
		compareWithRef(t, []string{pattern}, "/r/p", "/real/p/x", []string{rel})
		compareWithRef(t, []string{pattern}, "/", "/", []string{rel})
	})
}

// An Exclude list is compiled with its fast forms: the secret policy has
// none without one.
func TestSecretPolicyIsFast(t *testing.T) {
	ex, err := compileExclude(pathpolicy.SecretGlobs())
	if err != nil {
		t.Fatal(err)
	}
	var slow []string
	for _, i := range ex.fastPart().slow {
		slow = append(slow, ex.abs[i].given)
	}
	if len(slow) > 1 { // "/etc/ssh/ssh_host_*_key"
		t.Errorf("patterns without a fast form: %q", slow)
	}
}

// FuzzCompileGlob compares Glob's pattern test with doublestar on the
// relative path, which it stands for.
func FuzzCompileGlob(f *testing.F) {
	for _, s := range []string{"**/*", "**", "**/*.go", "**/main.go", "**/[A-Z]*.md", "**/a*b*c", "**/\\*x", "**/*\uFFFD", "src/**/*.ts", "**/*.{s,go}", "*", "*.go", "file?.txt", "[a-c]*", "\\*", "*.{s,go}", "a*b"} {
		f.Add(s, "a/b/main.go")
		f.Add(s, "x.go")
	}
	f.Fuzz(func(t *testing.T, pattern, relIn string) {
		var segs []string
		for s := range strings.SplitSeq(relIn, "/") {
			if s != "" && s != "." && s != ".." {
				segs = append(segs, s)
			}
		}
		if len(segs) == 0 || !doublestar.ValidatePattern(pattern) {
			return
		}
		rel := strings.Join(segs, "/")
		if got, want := compileGlob(pattern)(rel), doublestar.MatchUnvalidated(pattern, rel); got != want {
			t.Fatalf("compileGlob(%q)(%q) = %v, doublestar %v", pattern, rel, got, want)
		}
	})
}

// The same Exclude list compiles once; a refused one is refused each time.
func TestExcluderCache(t *testing.T) {
	a, err := compileExcludeCached([]string{".env", "/x/**"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := compileExcludeCached([]string{".env", "/x/**"}, nil)
	c, _ := compileExcludeCached([]string{".env/x/**"}, nil)
	if a != b || c != nil {
		t.Errorf("cache: %p %p %v", a, b, c)
	}
	for range 2 {
		if _, err := compileExcludeCached([]string{"a/b"}, nil); err == nil {
			t.Error("a relative pattern with a slash was accepted")
		}
	}
}
