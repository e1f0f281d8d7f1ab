// Package udiff computes line-based unified diffs, the format of `diff -u` and `git diff`.
//
// [Unified] is the whole API:
//
//	d := udiff.Unified("a/main.go", "b/main.go", oldText, newText, 3)
//
// returns
//
//	--- a/main.go
//	+++ b/main.go
//	@@ -10,7 +10,7 @@
//	 context
//	-removed line
//	+added line
//	 context
//
// # Lines
//
// Text is split after every "\n". A line's terminator is part of the line, so "x" and "x\n" differ,
// and a carriage return is ordinary content: CRLF text diffs as CRLF text and every '\r' is
// reproduced in the output. When the last line of either side has no terminator, the output
// marks it with the line "\ No newline at end of file", exactly as GNU diff and git do, so
// that `patch` and `git apply` reproduce the missing newline.
//
// # Algorithm and cost
//
// The diff is computed in three steps:
//
//  1. The common prefix and suffix are stripped and every line is replaced by an integer id
//     (one hash-map lookup per line). Lines that occur only on one side can never be matched;
//     they are set aside before the search (GNU diff calls this "discarding"), which makes a
//     file replaced by entirely new content cost linear time.
//  2. What remains goes through Myers' O(ND) algorithm in its linear-space form: the
//     "middle snake" is found by searching forwards and backwards at once, and the two halves
//     are solved recursively. Memory is O(N+M) integers whatever the input; time is
//     O((N+M)·D) where D is the size of the minimal edit script, so a 100,000-line file with a
//     handful of edits is diffed in milliseconds.
//  3. Runs of changes are slid up or down over identical lines so that they merge with
//     neighbouring runs and line up with the changes of the other side (GNU diff's
//     "shift_boundaries"); the result reads like `diff -u`, usually byte for byte.
//
// Quadratic time is the worst case of step 2 (for example two long, interleaved, non-matching
// sequences of the same few lines). The search therefore runs on a budget proportional to the
// input size. Within a sub-problem that exceeds its share it splits at the furthest-reaching
// point found so far instead of the optimal one, and once the whole budget is spent the
// remaining differing regions are replaced wholesale (all old lines removed, all new lines
// added). Either way the diff stays correct, and applying it to the old text gives the new
// text; it only stops being minimal.
package udiff

import "strings"

// Unified returns the unified diff that turns old into new, with the header lines
// "--- oldName" and "+++ newName" and context lines of unchanged text around every change
// (3 is the conventional value; a negative context counts as 0). Changes separated by at most
// 2·context unchanged lines share one hunk, as in GNU diff.
//
// Unified returns "" when old == new. See the package documentation for the treatment of
// line endings and the cost guarantees.
func Unified(oldName, newName, old, new string, context int) string {
	if old == new {
		return ""
	}
	if context < 0 {
		context = 0
	}
	a, b := splitLines(old), splitLines(new)
	ops := diffLines(a, b)
	var sb strings.Builder
	sb.Grow(len(oldName) + len(newName) + 16)
	sb.WriteString("--- ")
	sb.WriteString(oldName)
	sb.WriteString("\n+++ ")
	sb.WriteString(newName)
	sb.WriteByte('\n')
	writeHunks(&sb, a, b, ops, context)
	return sb.String()
}

// splitLines splits s after every '\n'; the last element lacks a terminator when s does not
// end with one. An empty s has no lines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	n := strings.Count(s, "\n")
	if s[len(s)-1] != '\n' {
		n++
	}
	lines := make([]string, 0, n)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// opKind is the kind of one step of an edit script.
type opKind uint8

const (
	opEqual opKind = iota
	opDelete
	opInsert
)

// op is a run of n steps of the same kind starting at line a of the old text and line b of
// the new one (0-based). A deletion advances only a, an insertion only b.
type op struct {
	kind opKind
	a, b int
	n    int
}

// diffLines returns the edit script from a to b as runs; within a change group all deletions
// come before all insertions.
func diffLines(a, b []string) []op {
	delA, insB := changedLines(a, b)
	var ops []op
	add := func(k opKind, i, j int) {
		if n := len(ops); n > 0 && ops[n-1].kind == k {
			ops[n-1].n++
			return
		}
		ops = append(ops, op{kind: k, a: i, b: j, n: 1})
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && delA[i]:
			add(opDelete, i, j)
			i++
		case j < len(b) && insB[j]:
			add(opInsert, i, j)
			j++
		default:
			add(opEqual, i, j)
			i++
			j++
		}
	}
	return ops
}

// changedLines marks the lines of a that are deleted and the lines of b that are inserted.
// The unmarked lines of a and b are equal pairwise, in order.
func changedLines(a, b []string) (delA, insB []bool) {
	delA = make([]bool, len(a))
	insB = make([]bool, len(b))

	// Common prefix and suffix are never changed.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	dm, im := delA[pre:len(a)-suf], insB[pre:len(b)-suf]
	if len(am) == 0 || len(bm) == 0 {
		fill(dm)
		fill(im)
		return delA, insB
	}

	// Intern the lines and count them per side.
	ids := make(map[string]int32, len(am)+len(bm))
	var count [2][]int32 // occurrences per id in am and bm
	intern := func(lines []string, side int) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
				count[0] = append(count[0], 0)
				count[1] = append(count[1], 0)
			}
			count[side][id]++
			out[i] = id
		}
		return out
	}
	ax, bx := intern(am, 0), intern(bm, 1)

	// Discard lines without a partner on the other side; they are changed whatever happens.
	// The minimal script of the rest is the minimal script of the whole.
	aKeep, aIdx := keepMatched(ax, dm, count[1])
	bKeep, bIdx := keepMatched(bx, im, count[0])

	d := newDiffer(aKeep, bKeep)
	d.compare(0, len(aKeep), 0, len(bKeep))
	for i, c := range d.ca {
		if c {
			dm[aIdx[i]] = true
		}
	}
	for j, c := range d.cb {
		if c {
			im[bIdx[j]] = true
		}
	}

	// Slide the runs of changes, over the whole text: a run may merge with a neighbour or move
	// into what was the common prefix or suffix.
	shiftBoundaries(a, delA, insB)
	shiftBoundaries(b, insB, delA)
	return delA, insB
}

func fill(bs []bool) {
	for i := range bs {
		bs[i] = true
	}
}

// keepMatched returns the ids of lines that occur on the other side and their positions; the
// other lines are marked changed.
func keepMatched(x []int32, changed []bool, other []int32) (kept []int32, idx []int) {
	kept = make([]int32, 0, len(x))
	idx = make([]int, 0, len(x))
	for i, id := range x {
		if other[id] == 0 {
			changed[i] = true
			continue
		}
		kept = append(kept, id)
		idx = append(idx, i)
	}
	return kept, idx
}
