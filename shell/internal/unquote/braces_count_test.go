package unquote

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// braceWords must count exactly what expand.BracesSeq yields, or the
// early refusal of large expansions would refuse what fits.
func TestBraceWordsCountsTheExpansion(t *testing.T) {
	for _, src := range []string{
		"a{b,c}d", "{a,b}{c,d,e}", "{1..10}", "{10..1}", "{1..10..3}", "{1..10..-3}", "{1..10..0}",
		"{a..e}", "{e..a..2}", "{01..12}", "{-3..3}", "x{a,{b,c}{d,e}}y", "{a,b}{1..4}{,x}",
		"{1..3}{a..c}{A,B}", "{a,b", "a}", "{a}", "{,}", "{a..}", "{1..2..}", "{Z..a}",
		"pre{1..5}mid{x,y}post", "{{a,b},{c,{d,e}}}",
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		w := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[0]
		syntax.SplitBraces(w)
		want := 0
		for _, err := range expand.BracesSeq(nil, w) {
			if err != nil {
				t.Fatal(err)
			}
			want++
		}
		for _, limit := range []int{1000, want, want - 1} {
			got := braceWords(w, limit)
			exp := want
			if want > limit {
				exp = limit + 1
			}
			if limit >= 1 && got != exp {
				t.Errorf("braceWords(%q, %d) = %d; want %d", src, limit, got, exp)
			}
		}
	}
	// A bomb is refused without being expanded.
	f, _ := syntax.NewParser().Parse(strings.NewReader("{1..9999999999}{1..9999999999}"), "")
	w := f.Stmts[0].Cmd.(*syntax.CallExpr).Args[0]
	syntax.SplitBraces(w)
	if n := braceWords(w, MaxBraceWords); n != MaxBraceWords+1 {
		t.Errorf("bomb counted %d", n)
	}
}
