package search

import (
	"context"
	"fmt"
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

// benchExclude is a realistic exclusion list: a project's secret policy and
// a few deny rules, one of them (*.pem) matching some twenty files of the
// corpus. Each benchmark runs without it (exclude=0) and with it
// (exclude=8); compare with benchstat -col /exclude.
func benchExclude(root string) []string {
	return []string{".env", ".env.*", "id_rsa*", ".ssh", "*.pem", "/home/u/.aws/**", root + "/secrets/**", "/**/credentials.json"}
}

// withExclusions runs f as two sub-benchmarks, without and with benchExclude.
func withExclusions(b *testing.B, root string, f func(b *testing.B, exclude []string)) {
	for _, exclude := range [][]string{nil, benchExclude(root)} {
		b.Run(fmt.Sprintf("exclude=%d", len(exclude)), func(b *testing.B) { f(b, exclude) })
	}
}

func benchGrep(b *testing.B, engine Engine) {
	root := goSrc(b)
	for _, q := range benchQueries {
		b.Run(q.name, func(b *testing.B) {
			withExclusions(b, root, func(b *testing.B, exclude []string) {
				o := q.opts
				o.Path, o.Engine, o.Exclude = root, engine, exclude
				for b.Loop() {
					if _, err := Grep(context.Background(), &o); err != nil {
						b.Fatal(err)
					}
				}
			})
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
			withExclusions(b, root, func(b *testing.B, exclude []string) {
				for b.Loop() {
					if _, err := Glob(context.Background(), root, pattern, &GlobOptions{Exclude: exclude}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
