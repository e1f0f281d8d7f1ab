package search

import (
	"context"
	"testing"
)

// Glob and the Go engine allocate about once per file found (its relative
// path) and a little per directory, not for every exclusion pattern, every
// component or every stat: the bounds below are per file of a 5000-file tree
// searched with the secret policy's exclusions. Before the fast exclusion
// test and the walk's reused buffers, Glob took 11.4 allocations per file
// and the Go engine 9.3 (this test then fails); now about 1.3 and 5.5.
func TestSearchAllocsPerFile(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	root := t.TempDir()
	genTree(t, root, 5, 40)
	const files = 5 * 5 * 5 * 40
	ex := secretExcludes(root)
	glob := testing.AllocsPerRun(3, func() {
		res, err := Glob(context.Background(), root, "**/*", &GlobOptions{Limit: 100, Exclude: ex})
		if err != nil || res.Total != files {
			t.Fatal(res, err)
		}
	})
	o := GrepOptions{Pattern: benchNoLiteral, Path: root, Engine: GoEngine, Exclude: ex, OutputMode: ModeContent}
	grep := testing.AllocsPerRun(3, func() {
		if _, err := Grep(context.Background(), &o); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("per file: Glob %.2f, Grep (Go engine) %.2f allocations", glob/files, grep/files)
	if glob > 2*files {
		t.Errorf("Glob: %.0f allocations for %d files, want at most 2 per file", glob, files)
	}
	if grep > 6.5*files {
		t.Errorf("Grep: %.0f allocations for %d files, want at most 6.5 per file", grep, files)
	}
}
