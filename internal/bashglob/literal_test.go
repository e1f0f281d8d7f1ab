package bashglob

import (
	"math/rand/v2"
	"testing"
)

// TestLiteralEndsNeverRefuseAMatch: the quick refusal by a component's
// literal ends never refuses a name the full matcher accepts, for random
// patterns and names over an alphabet of letters in both cases, dots,
// wildcards, brackets, escapes and a non-ASCII letter, with and without
// folding.
func TestLiteralEndsNeverRefuseAMatch(t *testing.T) {
	pat := []string{"a", "b", "K", "k", ".", "*", "?", "[", "]", "!", "\\", "é", "-", "[a-c]", "[!b]", "[[:upper:]]"}
	nam := []string{"a", "b", "A", "K", "k", "\u212a", ".", "é", "-", "[", "]", "*"}
	r := rand.New(rand.NewPCG(1, 2))
	refused := 0
	for i := 0; i < 200_000; i++ {
		var p, n string
		for range r.IntN(6) + 1 {
			p += pat[r.IntN(len(pat))]
		}
		for range r.IntN(6) {
			n += nam[r.IntN(len(nam))]
		}
		c, _ := compileComponent(p)
		for _, o := range []*Options{{}, {FoldCase: true}, {DotGlob: true, FoldCase: true}} {
			full := c
			full.head, full.tail = "", ""
			want, _ := full.match(n, o, nil)
			got, _ := c.match(n, o, nil)
			if got != want {
				t.Fatalf("pattern %q, name %q, options %+v: %v, the full matcher says %v", p, n, *o, got, want)
			}
			if want != got || !want && (c.head != "" || c.tail != "") && isASCII(n) && !litFits(n, c.head, c.tail, o.FoldCase) {
				refused++
			}
		}
	}
	if refused == 0 {
		t.Fatal("the quick refusal never applied")
	}
	t.Logf("%d refused by the literal ends", refused)
}
