package pathpolicy

import (
	"strings"
	"testing"
)

// BenchmarkClassifyDeep judges the deepest path the kernel accepts (2047
// components, each an existing directory reached through a link): the cost
// is linear in the path, bounded by MaxPathLen.
func BenchmarkClassifyDeep(b *testing.B) {
	r := tree(b, []string{"d"}, map[string]string{"d/up": ".."})
	p := r + strings.Repeat("/d/..", (MaxPathLen-len(r))/5-MaxLinks-1) + strings.Repeat("/d/up", MaxLinks)
	pol := New(&Options{WorkingDirs: []string{r}, Home: "/nonexistent"})
	b.ReportAllocs()
	for b.Loop() {
		if x := New(&Options{WorkingDirs: []string{r}}).Classify(p); x.Err != nil {
			b.Fatal(x.Err)
		}
	}
	_ = pol
}

// BenchmarkClassifyHostile judges a 80 kB path of 40,000 components: it is
// refused at once (a Write check once took 22 s on it).
func BenchmarkClassifyHostile(b *testing.B) {
	p := "/" + strings.Repeat("a/", 40000)
	pol := New(nil)
	b.ReportAllocs()
	for b.Loop() {
		if x := pol.Classify(p); x.Err == nil {
			b.Fatal("accepted")
		}
	}
}

// BenchmarkPatternSecret judges a glob against the secret and protected
// names and expands it.
func BenchmarkPatternSecret(b *testing.B) {
	r := tree(b, []string{".ssh", "src/a", "src/b"}, nil)
	pol := New(&Options{WorkingDirs: []string{r}, Home: r})
	b.ReportAllocs()
	for b.Loop() {
		if x := pol.Pattern(r + "/.ss[!x]/*"); !x.Secret {
			b.Fatal("not secret")
		}
	}
}
