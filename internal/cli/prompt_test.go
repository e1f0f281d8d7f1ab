package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/permission"
)

// TestPromptShowsWhole: the terminal prompt shows the input whole (past
// any padding) with the control characters that would act on the screen
// spelled out, and refuses, without reading an answer, an input with a
// key twice or too large to show.
func TestPromptShowsWhole(t *testing.T) {
	pad := strings.Repeat(" ", 5000)
	input := `{"command":"echo hi` + pad + `; touch PWNED \u001b[2J\u001b]8;;http://x\u0007link\u001b]8;;\u0007\rls ` + "\x1b[1A\u202e" + `"}`
	d := &permission.Decision{Message: "Run \x1b[31mred", Reason: "r\rr"}
	var out bytes.Buffer
	ok, _ := prompt(strings.NewReader("y\n"), &out, "Ba\x1bsh", input, d)
	if !ok {
		t.Fatal("not approved")
	}
	s := out.String()
	if !strings.Contains(s, "touch PWNED") || !strings.Contains(s, pad) {
		t.Errorf("the input is not shown whole:\n%q", s)
	}
	for _, raw := range []string{"\x1b", "\r", "\x07", "\u202e"} {
		if strings.Contains(s, raw) {
			t.Errorf("the prompt holds a raw %q:\n%q", raw, s)
		}
	}
	for _, dup := range []string{`{"command":"ls","command":"rm -rf ~"}`, `{"a":{"x":1,"X":2}}`} {
		out.Reset()
		if ok, _ := prompt(strings.NewReader("y\n"), &out, "Bash", dup, d); ok {
			t.Errorf("%s approved", dup)
		}
		if !strings.Contains(out.String(), "twice") || strings.Contains(out.String(), "Allow?") {
			t.Errorf("%s: %q", dup, out.String())
		}
	}
	out.Reset()
	if ok, _ := prompt(strings.NewReader("y\n"), &out, "Bash", `{"command":"`+strings.Repeat("a", maxShown)+`"}`, d); ok || strings.Contains(out.String(), "Allow?") {
		t.Errorf("an input too large to show was asked about: %.200q", out.String())
	}
}
