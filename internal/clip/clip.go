// Package clip cuts strings that an error message repeats (a key, a field
// path, a number the model sent) to a bounded size, so that a message
// never echoes megabytes back.
package clip

import (
	"fmt"
	"unicode/utf8"
)

// String returns s cut to at most n bytes on a rune boundary, marking the
// cut with "…" and s's full size; s itself when it is not longer than n.
func String(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}
