package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolscope/toolscope/internal/pathpolicy"
)

// secretCorpus returns relative paths, each a file, made from the secret
// policy's own patterns (a name pattern with its stars filled in, a
// component sequence with a file below it), in several letter cases, and
// a few names that are no secret.
func secretCorpus() []string {
	var names, seqs []string
	for _, g := range pathpolicy.SecretGlobs() {
		switch {
		case strings.HasPrefix(g, "/**/"):
			seqs = append(seqs, strings.TrimPrefix(g, "/**/"))
		case strings.HasPrefix(g, "/"):
			// System paths (/proc, /etc/shadow): not below a project.
		default:
			names = append(names, strings.ReplaceAll(g, "*", "x"), strings.ReplaceAll(g, "*", "Ab.c"))
		}
	}
	names = append(names, "server.key", "cert.pem", "id_rsa.pub", ".env.example", "tls.KEY", "Keystore.JKS")
	cases := func(s string) []string {
		out := []string{s, strings.ToUpper(s)}
		// Every other letter upper-cased, from the first and the second.
		for start := range 2 {
			b := []byte(s)
			for i := start; i < len(b); i += 2 {
				if 'a' <= b[i] && b[i] <= 'z' {
					b[i] -= 'a' - 'A'
				}
			}
			out = append(out, string(b))
		}
		return out
	}
	var rels []string
	for _, n := range names {
		for _, c := range cases(n) {
			rels = append(rels, c, "sub/"+c+"/inner.txt")
		}
	}
	for _, s := range seqs {
		for _, c := range cases(s) {
			rels = append(rels, c+"/inner.txt", "home/"+c)
		}
	}
	rels = append(rels, "main.go", "README.md", "src/Config.go", "keys.txt", "tokenizer.py", "docs/SSH.md")
	// One directory per path, so that a name and its case variants, or a
	// file and a directory of one name, never collide.
	for i, r := range rels {
		rels[i] = fmt.Sprintf("n%04d/%s", i, r)
	}
	return rels
}

// Glob and Grep, with the secret policy's patterns as ExcludeFold, never
// list or show a file whose path the policy calls secret (Read asks before
// reading it): the two lists cannot drift apart, and names are compared
// regardless of case on both sides. Before ExcludeFold, Grep printed the
// lines of server.key, cert.pem and .ENV, which Read refused to read
// unasked.
func TestSecretGlobsCoverSpelling(t *testing.T) {
	root := t.TempDir()
	rels := secretCorpus()
	policy := pathpolicy.New(nil)
	secret := map[string]bool{}
	for _, r := range rels {
		p := filepath.Join(root, r)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("needle in "+r+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if s, _ := policy.Spelling(p); s {
			secret[p] = true
		}
	}
	if len(secret) < 300 || len(secret) == len(rels) {
		t.Fatalf("%d of %d files are secret: the corpus does not test what it should", len(secret), len(rels))
	}
	opts := &GlobOptions{Limit: 100000, ExcludeFold: pathpolicy.SecretGlobs()}
	res, err := Glob(context.Background(), root, "**/*", opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		if secret[f] {
			t.Errorf("Glob lists %s, a secret to Read", strings.TrimPrefix(f, root+"/"))
		}
	}
	if !slices.ContainsFunc(res.Files, func(f string) bool { return strings.HasSuffix(f, "/main.go") }) {
		t.Errorf("Glob does not list main.go: %q", res.Files)
	}
	for _, engine := range engines(t) {
		for _, mode := range []string{ModeContent, ModeFilesWithMatches} {
			zero := 0
			out, err := Grep(context.Background(), &GrepOptions{Pattern: "needle", Path: root, OutputMode: mode,
				HeadLimit: &zero, Engine: engine, ExcludeFold: pathpolicy.SecretGlobs()})
			if err != nil {
				t.Fatal(err)
			}
			shown := 0
			for l := range strings.Lines(out.Text) {
				f, _, _ := strings.Cut(strings.TrimSuffix(l, "\n"), ":")
				if secret[f] {
					t.Errorf("%s %s shows %s", engine, mode, l)
				}
				shown++
			}
			if shown == 0 {
				t.Errorf("%s %s shows nothing", engine, mode)
			}
		}
	}
	// Searching a secret directory itself is refused, whatever its case.
	for _, dir := range []string{"sub/.SSH", "sub/.Ssh", "sub/.ssh"} {
		for _, r := range rels {
			if i := strings.Index(r, "/"+dir+"/"); i >= 0 {
				_, err := Glob(context.Background(), filepath.Join(root, r[:i+1+len(dir)]), "**/*", opts)
				if _, ok := err.(*ExcludedError); !ok {
					t.Errorf("Glob in %s: %v, want an ExcludedError", r[:i+1+len(dir)], err)
				}
				break
			}
		}
	}
}

// FuzzExcludeFoldCoversSpelling: whatever the path, when the secret policy
// calls its spelling secret, the search's test of an output path
// (relHit, which filters what both engines print) excludes it, and so
// does the walk's, entry by entry (pruned on it or a directory above).
func FuzzExcludeFoldCoversSpelling(f *testing.F) {
	for _, s := range []string{".ENV", "a/.Ssh/x", "server.KEY", ".Config/GH/hosts.yml", "x/ID_RSA", "K.pem", "credentials.JSON", "a/b.go"} {
		f.Add(s)
	}
	ex, err := compileExcludes(nil, pathpolicy.SecretGlobs())
	if err != nil {
		f.Fatal(err)
	}
	const root = "/r/p"
	policy := pathpolicy.New(nil)
	f.Fuzz(func(t *testing.T, rel string) {
		if !utf8.ValidString(rel) || strings.ContainsRune(rel, 0) {
			return
		}
		var segs []string
		for s := range strings.SplitSeq(rel, "/") {
			if s != "" && s != "." && s != ".." {
				segs = append(segs, s)
			}
		}
		if len(segs) == 0 {
			return
		}
		rel = strings.Join(segs, "/")
		if s, _ := policy.Spelling(root + "/" + rel); !s {
			return
		}
		rx, err := ex.forPath(root)
		if err != nil {
			t.Fatal(err)
		}
		if rx.relHit(rel) == nil {
			t.Fatalf("%s is secret to Read but relHit lets it through", rel)
		}
		for i := range segs {
			if rx.pruned(strings.Join(segs[:i+1], "/")) {
				return
			}
		}
		t.Fatalf("%s is secret to Read but the walk would enter it", rel)
	})
}

// lowerPath copies exactly the paths strings.ToLower changes.
func FuzzLowerPath(f *testing.F) {
	for _, s := range []string{"", "abc", "src/Components/x", "ÄÖ", "a/b/c/d/e/f/g/h/i/j@[`{Z", "\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if got, want := lowerPath(p), strings.ToLower(p); got != want {
			t.Fatalf("lowerPath(%q) = %q, want %q", p, got, want)
		}
	})
}

// FuzzExcludeFold compares an excluder of an Exclude pattern and an
// ExcludeFold pattern (which takes one pass for paths without upper-case
// letters, two for others) with the definition: two plain excluders, the
// second given the pattern, the root and the path lower-cased.
func FuzzExcludeFold(f *testing.F) {
	for _, s := range [][4]string{
		{"/R/p/private/**", ".ENV", "/R/p", "a/.Env"},
		{"/r/p/x", "*.pem", "/r/p", "X/k.PEM"},
		{"Secrets", "/**/.config/gh", "/home/u", ".Config/gh/x"},
		{"a*", "/**/B/c", "/A/b", "c/d"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, exact, fold, root, relIn string) {
		if !filepath.IsAbs(root) || filepath.Clean(root) != root || strings.ContainsRune(root, 0) {
			return
		}
		var segs []string
		for s := range strings.SplitSeq(relIn, "/") {
			if s != "" && s != "." && s != ".." && !strings.ContainsRune(s, 0) {
				segs = append(segs, s)
			}
		}
		if len(segs) == 0 {
			return
		}
		rel := strings.Join(segs, "/")
		ex, err := compileExcludes([]string{exact}, []string{fold})
		if err != nil {
			return
		}
		a, err1 := compileExclude([]string{exact})
		b, err2 := compileExclude([]string{strings.ToLower(fold)})
		if err1 != nil || err2 != nil {
			t.Fatalf("compileExcludes took %q, %q; alone: %v, %v", exact, fold, err1, err2)
		}
		rx := ex.bind(root, root)
		rx.fold = ex.fold.bind(strings.ToLower(root), strings.ToLower(root))
		if lowerPath(root) == root {
			rx.merged = ex.merged.bind(root, root)
		}
		ra, rb := a.bind(root, root), b.bind(strings.ToLower(root), strings.ToLower(root))
		want := ra.relHit(rel) != nil || rb.relHit(strings.ToLower(rel)) != nil
		if got := rx.relHit(rel) != nil; got != want {
			t.Fatalf("exact %q fold %q root %q: relHit(%q) = %v, want %v", exact, fold, root, rel, got, want)
		}
		target := root + "/" + rel
		want = ra.targetHit(target) != nil || rb.targetHit(strings.ToLower(target)) != nil
		if got := rx.targetHit(target) != nil; got != want {
			t.Fatalf("exact %q fold %q: targetHit(%q) = %v, want %v", exact, fold, target, got, want)
		}
		// The walk's test: an entry pruned by either (or, for braces, a
		// little more: see pruned) is pruned.
		if (ra.pruned(rel) || rb.pruned(strings.ToLower(rel))) && !rx.pruned(rel) {
			t.Fatalf("exact %q fold %q root %q: pruned(%q) = false", exact, fold, root, rel)
		}
	})
}
