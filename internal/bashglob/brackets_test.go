package bashglob

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// randomBracketPattern returns a pattern made mostly of bracket-expression
// syntax over a tiny alphabet, to probe the bracket parser's corner cases.
func randomBracketPattern(r *rand.Rand) string {
	parts := []string{"a", "b", "-", "-", "]", "]", "[", "!", "^", `\]`, `\-`, `\\`, `\[`, "[:", ":]",
		"[=", "=]", "[.", ".]", "[:alpha:]", "[:digit:]", "[=a=]", "[.b.]", ":", "=", ".", "*", "?", "z"}
	var b strings.Builder
	if r.IntN(3) != 0 {
		b.WriteString("[")
	}
	for range r.IntN(7) {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	if r.IntN(2) == 0 {
		b.WriteString("]")
	}
	if r.IntN(3) == 0 {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

func TestBracketCornersAgreeWithBashCase(t *testing.T) {
	bash := needBash(t)
	r := rand.New(rand.NewPCG(5, 6))
	seen := map[string]bool{}
	var supported []string
	unsupported := 0
	for len(supported) < 2500 {
		p := randomBracketPattern(r)
		if p == "" || seen[p] || strings.HasSuffix(p, `\`) && !strings.HasSuffix(p, `\\`) {
			continue
		}
		seen[p] = true
		if Unsupported(p) != nil {
			unsupported++
			continue
		}
		supported = append(supported, p)
	}
	alphabet := []string{"a", "b", "z", "-", "]", "[", "!", "^", `\`, ":", "=", ".", "*"}
	var names []string
	names = append(names, alphabet...)
	for _, x := range alphabet {
		for _, y := range alphabet {
			names = append(names, x+y)
		}
	}
	names = append(names, "[a", "[ab", "[]", "[!]", "[a-", "[:alpha:]", "[[:alpha:]]")
	var nonDot []string
	for _, n := range names {
		if n[0] != '.' {
			nonDot = append(nonDot, n)
		}
	}
	want := bashCase(t, bash, "", supported, nonDot)
	fails := 0
	for i, p := range supported {
		for j, n := range nonDot {
			if got := Match(p, n, nil); got != want[i][j] {
				fails++
				if fails <= 30 {
					t.Errorf("Match(%q, %q) = %v, bash case says %v", p, n, got, want[i][j])
				}
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d disagreements", fails)
	}
	t.Logf("compared %d bracket-heavy patterns against %d names (%d patterns were unsupported)", len(supported), len(nonDot), unsupported)
}
