package tool

import "testing"

func TestIntegerDigits(t *testing.T) {
	for lit, want := range map[string]string{
		"2.0": "2", "1e3": "1000", "1E+3": "1000", "2.50e1": "25", "100e-2": "1", "-0.0": "0", "0e5": "0",
		"-7.000": "-7", "00.5e1": "5", "12345678901234567890.0": "12345678901234567890",
		// Not whole, or too long for any Go integer: no digits.
		"2.5": "", "1.05e1": "", "1e-1": "", "1e-1000": "", "1e21": "", "123456789012345678901": "", "1e99999999999": "",
	} {
		got, ok := integerDigits(lit)
		if ok != (want != "") || got != want {
			t.Errorf("integerDigits(%q) = %q, %v; want %q", lit, got, ok, want)
		}
	}
}

func TestHasFractionOrExponent(t *testing.T) {
	for in, want := range map[string]bool{
		`{"n":2.0}`: true, `{"n":1e3}`: true, `{"n":1E3}`: true, `{"n":2}`: false, `{"s":"a.b e1"}`: false,
		`{"s":"x\"1.0","n":1}`: false, `{"b":true,"c":false}`: false, `{"s":"\\","n":1.5}`: true,
	} {
		if got := hasFractionOrExponent([]byte(in)); got != want {
			t.Errorf("%s: %v, want %v", in, got, want)
		}
	}
}
