package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/internal/pathpolicy"
)

// genTree writes a deterministic tree under root: dirs^3 directories
// holding files files each (the last one a dotfile). Every file holds a few lines of words, some of which
// (one line in about fifty) match benchNoLiteral.
func genTree(tb testing.TB, root string, dirs, files int) {
	tb.Helper()
	exts := []string{".go", ".py", ".md", ".txt", ".json"}
	words := []string{"alpha", "beta", "gamma_12", "delta", "epsilon", "zeta", "foo_bar", "baz", "qux"}
	var line strings.Builder
	n := 0
	for a := range dirs {
		for b := range dirs {
			for c := range dirs {
				d := filepath.Join(root, fmt.Sprintf("pkg%d", a), fmt.Sprintf("mod%d", b), fmt.Sprintf("part%d", c))
				if err := os.MkdirAll(d, 0o755); err != nil {
					tb.Fatal(err)
				}
				for f := range files {
					name := fmt.Sprintf("file%03d%s", f, exts[n%len(exts)])
					if f == files-1 {
						name = ".hidden" + exts[n%len(exts)]
					}
					line.Reset()
					for l := range 4 + n%7 {
						for k := range 6 {
							line.WriteString(words[(n+l+k)%len(words)])
							line.WriteByte(' ')
						}
						if (n+l)%50 == 0 {
							line.WriteString("seen_042x ")
						}
						fmt.Fprintf(&line, "%d %d\n", n, l)
					}
					if err := os.WriteFile(filepath.Join(d, name), []byte(line.String()), 0o644); err != nil {
						tb.Fatal(err)
					}
					n++
				}
			}
		}
	}
}

// benchNoLiteral is a regular expression with no literal of more than one
// byte. Its literal "_" is on nearly every line of the tree (and of source
// code), so a search for it hands every line to the regexp; the window
// prefilter (window.go) scans for "_" followed by three digits and "x".
const benchNoLiteral = `[a-z]+_[0-9]{3}x`

// bigTree is a tree of 10^5 files in a temporary directory. With b.Loop
// the benchmark function runs once, so the tree is made once per benchmark.
func bigTree(b *testing.B) string {
	root := b.TempDir()
	genTree(b, root, 10, 100)
	return root
}

// secretExcludes is what the Glob and Grep tools exclude by default (the
// secret policy) plus one deny rule under the root.
func secretExcludes(root string) []string {
	return append(pathpolicy.SecretGlobs(), root+"/private/**")
}

// BenchmarkGlobTree is the Glob tool's call on a large tree: "**/*" over
// 10^5 files with the secret policy's exclusions, keeping the newest 100.
func BenchmarkGlobTree(b *testing.B) {
	root := bigTree(b)
	opts := &GlobOptions{Limit: 100, Exclude: secretExcludes(root)}
	b.ReportAllocs()
	for b.Loop() {
		res, err := Glob(context.Background(), root, "**/*", opts)
		if err != nil || res.Total != 100000 {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkGrepGoNoLiteral is the Go engine on a regular expression without
// a useful literal over the same tree, with the same exclusions.
func BenchmarkGrepGoNoLiteral(b *testing.B) {
	root := bigTree(b)
	o := GrepOptions{Pattern: benchNoLiteral, Path: root, Engine: GoEngine, Exclude: secretExcludes(root), OutputMode: ModeContent}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Grep(context.Background(), &o); err != nil {
			b.Fatal(err)
		}
	}
}
