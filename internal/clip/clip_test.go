package clip

import "testing"

func TestString(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdefgh", 3, "abc… (8 bytes)"},
		{"ééé", 3, "é… (6 bytes)"}, // not inside the second é
		{"", 0, ""},
	} {
		if got := String(c.s, c.n); got != c.want {
			t.Errorf("String(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
