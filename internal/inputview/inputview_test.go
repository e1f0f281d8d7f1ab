package inputview

import "testing"

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"ls -la\n":            "ls -la\n",
		"héllo 世界":            "héllo 世界",
		"a\x1b]0;title\x07b":  `a\u001b]0;title\u0007b`,
		"safe\r; touch PWNED": `safe\u000d; touch PWNED`,
		"x\u202eevil":         `x\u202eevil`,
		"c1\u009bx":           `c1\u009bx`,
		"bad\xffbyte":         `bad\xffbyte`,
		"del\x7f":             `del\u007f`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDuplicateKey(t *testing.T) {
	for in, want := range map[string]string{
		`{"command":"ls","command":"rm -rf ~"}`: "$.command",
		`{"a":{"b":1,"b":2}}`:                   "$.a.b",
		`{"a":[{"x":1},{"x":1,"x":2}]}`:         "$.a[1].x",
		`{"a":1,"b":{"a":2}}`:                   "",
		`{"command":"ls","comm\u0061nd":"x"}`:   "$.command",
		`{"command":"ls","Command":"x"}`:        "$.Command",
		`{"k":1,"\u212a":2}`:                    "$.\u212a",
		`not json`:                              "",
	} {
		got, ok := DuplicateKey([]byte(in))
		if got != want || ok != (want != "") {
			t.Errorf("DuplicateKey(%s) = %q %v, want %q", in, got, ok, want)
		}
	}
}
