package search

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// goSrc is the benchmark corpus: the Go standard library source tree.
func goSrc(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("no Go source tree at %s", dir)
	}
	return dir
}

var benchQueries = []struct {
	name string
	opts GrepOptions
}{
	{"literal", GrepOptions{Pattern: "func main"}},
	{"regex-content", GrepOptions{Pattern: `err != nil \{`, OutputMode: ModeContent, LineNumbers: true}},
	{"ignorecase", GrepOptions{Pattern: "FUNC MAIN", IgnoreCase: true}},
}

func benchGrep(b *testing.B, engine Engine) {
	root := goSrc(b)
	for _, q := range benchQueries {
		b.Run(q.name, func(b *testing.B) {
			o := q.opts
			o.Path, o.Engine = root, engine
			for b.Loop() {
				if _, err := Grep(context.Background(), &o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGrepRipgrep(b *testing.B) {
	needRg(b)
	benchGrep(b, Ripgrep)
}

func BenchmarkGrepGo(b *testing.B) { benchGrep(b, GoEngine) }

func BenchmarkGlob(b *testing.B) {
	root := goSrc(b)
	for _, pattern := range []string{"**/*_test.go", "**/*.{s,go}"} {
		b.Run(pattern, func(b *testing.B) {
			for b.Loop() {
				if _, err := Glob(context.Background(), root, pattern, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
