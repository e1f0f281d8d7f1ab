package spell

import "testing"

func TestNearest(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"bash", "Bash"},
		{"Raed", "Read"},
		{"mdoe", "mode"},
		{"zzzzzz", ""},
		{"", ""},
	} {
		if got := Nearest(c.name, []string{"Bash", "Read", "mode", "Write"}); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := Nearest("x", nil); got != "" {
		t.Errorf("Nearest with no candidates = %q", got)
	}
}
