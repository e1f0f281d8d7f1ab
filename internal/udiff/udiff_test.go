package udiff

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// apply applies a unified diff produced by Unified to old, checking every context and removed
// line; it is the test oracle for round trips.
func apply(old, diff string) (string, error) {
	if diff == "" {
		return old, nil
	}
	src := splitLines(old)
	dl := splitLines(diff)
	if len(dl) < 2 || !strings.HasPrefix(dl[0], "--- ") || !strings.HasPrefix(dl[1], "+++ ") {
		return "", errors.New("missing headers")
	}
	dl = dl[2:]
	var out []string
	pos := 0 // next line of src to copy
	for len(dl) > 0 {
		h := dl[0]
		dl = dl[1:]
		var as, ac, bs, bc int
		if err := parseHunkHeader(h, &as, &ac, &bs, &bc); err != nil {
			return "", err
		}
		start := as - 1
		if ac == 0 {
			start = as
		}
		if start < pos || start > len(src) {
			return "", fmt.Errorf("hunk %q out of order", h)
		}
		out = append(out, src[pos:start]...)
		pos = start
		na, nb := 0, 0
		for len(dl) > 0 && !strings.HasPrefix(dl[0], "@@ ") {
			l := dl[0]
			dl = dl[1:]
			body := l[1:]
			if len(dl) > 0 && dl[0] == "\\ No newline at end of file\n" {
				body = strings.TrimSuffix(body, "\n")
				dl = dl[1:]
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != body {
					return "", fmt.Errorf("line %d: have %q, diff says %q", pos+1, srcAt(src, pos), body)
				}
				pos++
				na++
				if l[0] == ' ' {
					out = append(out, body)
					nb++
				}
			case '+':
				out = append(out, body)
				nb++
			default:
				return "", fmt.Errorf("bad line %q", l)
			}
		}
		if na != ac || nb != bc {
			return "", fmt.Errorf("hunk %q has %d/%d lines", h, na, nb)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}

func srcAt(src []string, i int) string {
	if i < len(src) {
		return src[i]
	}
	return "<EOF>"
}

func parseHunkHeader(h string, as, ac, bs, bc *int) error {
	f := strings.Fields(h)
	if len(f) != 4 || f[0] != "@@" || f[3] != "@@" || f[1][0] != '-' || f[2][0] != '+' {
		return fmt.Errorf("bad hunk header %q", h)
	}
	rng := func(s string, start, count *int) error {
		n, c, ok := strings.Cut(s, ",")
		*count = 1
		var err error
		if ok {
			if *count, err = strconv.Atoi(c); err != nil {
				return err
			}
		}
		*start, err = strconv.Atoi(n)
		return err
	}
	if err := rng(f[1][1:], as, ac); err != nil {
		return err
	}
	return rng(f[2][1:], bs, bc)
}

// lcsEdits is the size of a minimal edit script (deletions + insertions), by dynamic programming.
func lcsEdits(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return len(a) + len(b) - 2*prev[len(b)]
}

func countEdits(diff string) int {
	n := 0
	for i, l := range splitLines(diff) {
		if i >= 2 && (l[0] == '-' || l[0] == '+') {
			n++
		}
	}
	return n
}

func lines(ls ...string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

func numbered(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = "line " + strconv.Itoa(i+1)
	}
	return s
}

func TestUnifiedGolden(t *testing.T) {
	tests := []struct {
		name, old, new string
		context        int
		want           string
	}{
		{"equal", "a\nb\n", "a\nb\n", 3, ""},
		{"both empty", "", "", 3, ""},
		{"new file", "", "a\nb\n", 3, "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"deleted file", "a\n", "", 3, "--- a\n+++ b\n@@ -1 +0,0 @@\n-a\n"},
		{"one change", "a\nb\nc\n", "a\nB\nc\n", 3, "--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"zero context", "a\nb\nc\n", "a\nB\nc\n", 0, "--- a\n+++ b\n@@ -2 +2 @@\n-b\n+B\n"},
		{"negative context", "a\nb\nc\n", "a\nB\nc\n", -1, "--- a\n+++ b\n@@ -2 +2 @@\n-b\n+B\n"},
		{"pure insert, zero context", "a\nc\n", "a\nb\nc\n", 0, "--- a\n+++ b\n@@ -1,0 +2 @@\n+b\n"},
		{"no newline added", "a\nb", "a\nb\n", 3,
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"no newline removed", "a\nb\n", "a\nb", 3,
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"},
		{"no newline on both, context", "a\nb\nc", "A\nb\nc", 3,
			"--- a\n+++ b\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n\\ No newline at end of file\n"},
		{"crlf kept", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", 3,
			"--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n"},
		{"line ending change only", "a\r\nb\n", "a\nb\n", 3,
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n-a\r\n+a\n b\n"},
		{"two hunks", lines(numbered(20)...), strings.Replace(strings.Replace(lines(numbered(20)...), "line 2\n", "two\n", 1), "line 19\n", "nineteen\n", 1), 3,
			"--- a\n+++ b\n@@ -1,5 +1,5 @@\n line 1\n-line 2\n+two\n line 3\n line 4\n line 5\n@@ -16,5 +16,5 @@\n line 16\n line 17\n line 18\n-line 19\n+nineteen\n line 20\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Unified("a", "b", tt.old, tt.new, tt.context)
			if got != tt.want {
				t.Errorf("Unified:\n%s\nwant:\n%s", got, tt.want)
			}
			if back, err := apply(tt.old, got); err != nil || back != tt.new {
				t.Errorf("apply: %q, %v; want %q", back, err, tt.new)
			}
		})
	}
}

// TestUnifiedMatchesGNUDiff compares with the system's `diff -u`, hunk for hunk.
func TestUnifiedMatchesGNUDiff(t *testing.T) {
	diffPath, err := exec.LookPath("diff")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("GNU diff is required in CI (Debian's diffutils)")
		}
		t.Skip("diff not installed; install diffutils to compare with GNU diff")
	}
	base := numbered(40)
	edit := func(f func(s []string) []string) string {
		return lines(f(append([]string(nil), base...))...)
	}
	cases := []struct{ name, old, new string }{
		{"replace one", lines(base...), edit(func(s []string) []string { s[10] = "X"; return s })},
		{"delete block", lines(base...), edit(func(s []string) []string { return append(s[:5], s[12:]...) })},
		{"insert block", lines(base...), edit(func(s []string) []string {
			return append(s[:20], append([]string{"n1", "n2", "n3"}, s[20:]...)...)
		})},
		{"gap of six merges", lines(base...), edit(func(s []string) []string { s[10], s[17] = "X", "Y"; return s })},
		{"gap of seven splits", lines(base...), edit(func(s []string) []string { s[10], s[18] = "X", "Y"; return s })},
		{"first and last", lines(base...), edit(func(s []string) []string { s[0], s[39] = "F", "L"; return s })},
		{"no final newline", lines(base...), strings.TrimSuffix(edit(func(s []string) []string { s[39] = "L"; return s }), "\n")},
		{"both lack final newline", strings.TrimSuffix(lines(base...), "\n"), strings.TrimSuffix(edit(func(s []string) []string { s[38] = "L"; return s }), "\n")},
		{"repeated lines insert", lines("a", "b", "a", "b", "c"), lines("a", "b", "a", "b", "a", "b", "c")},
		{"blank line insert", lines("func a() {", "}", "", "func b() {", "}"), lines("func a() {", "}", "", "func c() {", "}", "", "func b() {", "}")},
		{"brace shift", lines("if x {", "  f()", "}", "g()"), lines("if x {", "  f()", "}", "if y {", "  f()", "}", "g()")},
		{"crlf", "a\r\nb\r\nc\r\nd\r\n", "a\r\nB\r\nc\r\nd\r\n"},
		{"from empty", "", lines("a", "b")},
		{"to empty", lines("a", "b"), ""},
		{"all different", lines("a", "b", "c"), lines("x", "y", "z")},
		{"duplicates", lines("x", "x", "x", "y"), lines("x", "y", "x", "x")},
	}
	dir := t.TempDir()
	for _, c := range cases {
		for _, ctx := range []int{0, 1, 3} {
			t.Run(fmt.Sprintf("%s/U%d", c.name, ctx), func(t *testing.T) {
				of, nf := filepath.Join(dir, "old"), filepath.Join(dir, "new")
				os.WriteFile(of, []byte(c.old), 0o644)
				os.WriteFile(nf, []byte(c.new), 0o644)
				out, err := exec.Command(diffPath, "-U"+strconv.Itoa(ctx), "--label", "a/f", "--label", "b/f", of, nf).Output()
				var ee *exec.ExitError
				if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
					t.Fatal(err)
				}
				got := Unified("a/f", "b/f", c.old, c.new, ctx)
				if got != string(out) {
					t.Errorf("Unified:\n%s\ndiff -u:\n%s", got, out)
				}
			})
		}
	}
}

// TestUnifiedMinimal checks on random inputs over small alphabets that the diff applies and
// has the minimal number of changed lines.
func TestUnifiedMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 3000 {
		a, b := randLines(r, 30, 4), randLines(r, 30, 4)
		if iter%3 == 0 { // mostly similar
			b = mutate(r, a, 4)
		}
		old, new := lines(a...), lines(b...)
		d := Unified("a", "b", old, new, r.IntN(4))
		back, err := apply(old, d)
		if err != nil || back != new {
			t.Fatalf("old %q new %q:\n%s\napply: %v", a, b, d, err)
		}
		if got, want := countEdits(d), lcsEdits(a, b); got != want {
			t.Fatalf("old %q new %q: %d edits, minimal is %d\n%s", a, b, got, want, d)
		}
	}
}

func randLines(r *rand.Rand, maxN, alphabet int) []string {
	s := make([]string, r.IntN(maxN+1))
	for i := range s {
		s[i] = string(rune('a' + r.IntN(alphabet)))
	}
	return s
}

func mutate(r *rand.Rand, a []string, edits int) []string {
	b := append([]string(nil), a...)
	for range r.IntN(edits + 1) {
		i := r.IntN(len(b) + 1)
		switch r.IntN(3) {
		case 0:
			b = append(b[:i], append([]string{strconv.Itoa(r.IntN(5))}, b[i:]...)...)
		case 1:
			if i < len(b) {
				b = append(b[:i], b[i+1:]...)
			}
		default:
			if i < len(b) {
				b[i] = "z"
			}
		}
	}
	return b
}

// TestUnifiedBudget forces the heuristic and the wholesale fallback with a tiny budget and
// checks the diff still applies.
func TestUnifiedBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a, b := randLines(r, 2000, 2), randLines(r, 2000, 2)
	old, new := lines(a...), lines(b...)
	d := Unified("a", "b", old, new, 3)
	if back, err := apply(old, d); err != nil || back != new {
		t.Fatalf("apply: %v", err)
	}
	exact := countEdits(d)

	setBudget(t, 1000, 0)
	d = Unified("a", "b", old, new, 3)
	if back, err := apply(old, d); err != nil || back != new {
		t.Fatalf("apply with small budget: %v", err)
	}
	if got := countEdits(d); got < exact {
		t.Fatalf("budgeted diff has %d edits, fewer than the minimal %d", got, exact)
	} else {
		t.Logf("edits: minimal %d, with a budget of 1000 steps %d", exact, got)
	}
}

// TestUnifiedNoBudget: with no budget at all every differing region is replaced wholesale.
func TestUnifiedNoBudget(t *testing.T) {
	old := lines("a", "b", "c", "d", "e")
	new := lines("a", "c", "b", "d", "e")
	want := "--- a\n+++ b\n@@ -1,5 +1,5 @@\n a\n-b\n-c\n+c\n+b\n d\n e\n"
	if exact := "--- a\n+++ b\n@@ -1,5 +1,5 @@\n a\n-b\n c\n+b\n d\n e\n"; Unified("a", "b", old, new, 3) != exact {
		t.Fatalf("unbudgeted diff is not minimal:\n%s", Unified("a", "b", old, new, 3))
	}
	setBudget(t, 0, 0)
	if got := Unified("a", "b", old, new, 3); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func setBudget(t *testing.T, base, perLine int) {
	ob, op := budgetBaseVar, budgetPerLineVar
	budgetBaseVar, budgetPerLineVar = base, perLine
	t.Cleanup(func() { budgetBaseVar, budgetPerLineVar = ob, op })
}

// TestUnifiedPathological: large inputs that would need quadratic work finish quickly and
// still apply.
func TestUnifiedPathological(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	cases := map[string][2][]string{
		"binary alphabet": {randLines(r, 100000, 2), randLines(r, 100000, 2)},
		"disjoint": {numbered(100000), func() []string {
			s := numbered(100000)
			for i := range s {
				s[i] += "x"
			}
			return s
		}()},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			old, new := lines(c[0]...), lines(c[1]...)
			d := Unified("a", "b", old, new, 3)
			if back, err := apply(old, d); err != nil || back != new {
				t.Fatalf("apply: %v", err)
			}
		})
	}
}

func TestUnifiedLargeFewChanges(t *testing.T) {
	a := numbered(100000)
	b := append([]string(nil), a...)
	for i := 500; i < len(b); i += 9973 {
		b[i] = "changed"
	}
	b = append(b[:5000], b[5010:]...)
	old, new := lines(a...), lines(b...)
	d := Unified("a", "b", old, new, 3)
	if back, err := apply(old, d); err != nil || back != new {
		t.Fatalf("apply: %v", err)
	}
	if got, want := countEdits(d), 2*10+10; got != want {
		t.Errorf("%d edits, want %d", got, want)
	}
}

func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd", 3)
	f.Add("", "x", 0)
	f.Add("a\r\nb\r\n", "a\nb\r\n", 1)
	f.Add("x\nx\nx\ny", "y\nx\nx\n\n", 2)
	f.Fuzz(func(t *testing.T, old, new string, context int) {
		context %= 8
		d := Unified("a", "b", old, new, context)
		if (d == "") != (old == new) {
			t.Fatalf("empty diff iff equal: %q", d)
		}
		back, err := apply(old, d)
		if err != nil || back != new {
			t.Fatalf("apply(%q, %q) = %q, %v; want %q", old, d, back, err, new)
		}
	})
}

func benchInput(n int) (string, string) {
	r := rand.New(rand.NewPCG(7, 8))
	a := make([]string, n)
	for i := range a {
		a[i] = fmt.Sprintf("\tx := compute(%d, %q) // line %d", r.IntN(100), "s", i)
	}
	b := append([]string(nil), a...)
	for i := 0; i < len(b); i += 97 + r.IntN(200) {
		switch r.IntN(3) {
		case 0:
			b[i] = "\t// edited"
		case 1:
			b = append(b[:i], b[i+1:]...)
		default:
			b = append(b[:i], append([]string{"\tinserted()"}, b[i:]...)...)
		}
	}
	return lines(a...), lines(b...)
}

func BenchmarkUnified10kScattered(b *testing.B) {
	old, new := benchInput(10000)
	b.SetBytes(int64(len(old) + len(new)))
	for b.Loop() {
		Unified("a", "b", old, new, 3)
	}
}

func BenchmarkUnified100kScattered(b *testing.B) {
	old, new := benchInput(100000)
	b.SetBytes(int64(len(old) + len(new)))
	for b.Loop() {
		Unified("a", "b", old, new, 3)
	}
}

func BenchmarkUnifiedWorstCase(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	old, new := lines(randLines(r, 20000, 2)...), lines(randLines(r, 20000, 2)...)
	b.SetBytes(int64(len(old) + len(new)))
	for b.Loop() {
		Unified("a", "b", old, new, 3)
	}
}
