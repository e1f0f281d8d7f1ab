// Package spell suggests the name a typo meant: the nearest of a list of
// names by edit distance. The CLI uses it for flags, the settings for the
// tool names of rules.
package spell

import (
	"slices"
	"strings"
)

// Nearest returns the candidate closest to name by edit distance (ignoring
// case), if it is close enough to be a likely typo; "" otherwise. Ties go to
// the candidate that sorts first.
func Nearest(name string, candidates []string) string {
	best, bestD := "", -1
	sorted := slices.Clone(candidates)
	slices.Sort(sorted)
	for _, c := range sorted {
		d := distance(strings.ToLower(name), strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(1, min(len(name), len(best))/2) {
		return ""
	}
	return best
}

// distance is the Levenshtein distance of a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
