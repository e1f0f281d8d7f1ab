package bashglob

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// interestingBytes are the byte values at which glibc's UTF-8 rules change.
var interestingBytes = []byte{0x00, 0x2E, 0x2F, 0x41, 0x7F, 0x80, 0x83, 0x84, 0x87, 0x88, 0x8F, 0x90,
	0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF4,
	0xF5, 0xF7, 0xF8, 0xF9, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF}

// automatonValid runs the UTF-8 automaton MatchPrefix uses.
func automatonValid(s string) bool {
	u := u8Start
	for i := 0; i < len(s); i++ {
		u = utf8Step(u, s[i])
	}
	return u == u8Start
}

func TestUTF8AutomatonAgreesWithDecoder(t *testing.T) {
	check := func(s string) {
		if got, want := automatonValid(s), validWide(s); got != want {
			t.Errorf("automaton says valid=%v for %q, decoder says %v", got, s, want)
		}
	}
	var rec func(s string, depth int)
	rec = func(s string, depth int) {
		check(s)
		if depth == 3 {
			return
		}
		for _, b := range interestingBytes {
			rec(s+string([]byte{b}), depth+1)
		}
	}
	rec("", 0)
	r := rand.New(rand.NewPCG(9, 10))
	for range 200000 {
		b := make([]byte, 1+r.IntN(8))
		for i := range b {
			if r.IntN(2) == 0 {
				b[i] = interestingBytes[r.IntN(len(interestingBytes))]
			} else {
				b[i] = byte(0x80 + r.IntN(0x40))
			}
		}
		check(string(b))
	}
}

func TestDecodeWide(t *testing.T) {
	tests := []struct {
		in   string
		r    rune
		size int
	}{
		{"a", 'a', 1},
		{"é", 'é', 2},
		{"日", '日', 3},
		{"\U0010FFFF", 0x10FFFF, 4},
		{"\xf4\x90\x80\x80", 0x110000, 4},           // beyond Unicode, accepted by glibc
		{"\xf7\xbf\xbf\xbf", 0x1FFFFF, 4},           // likewise
		{"\xf8\x88\x80\x80\x80", 0x200000, 5},       // five bytes
		{"\xfd\xbf\xbf\xbf\xbf\xbf", 0x7FFFFFFF, 6}, // six bytes
		{"\xed\xa0\x80", 0, 0},                      // surrogate
		{"\xed\x9f\xbf", 0xD7FF, 3},
		{"\xc0\xaf", 0, 0},                 // overlong
		{"\xe0\x9f\xbf", 0, 0},             // overlong
		{"\xf0\x8f\xbf\xbf", 0, 0},         // overlong
		{"\xf8\x87\xbf\xbf\xbf", 0, 0},     // overlong
		{"\xfc\x83\xbf\xbf\xbf\xbf", 0, 0}, // overlong
		{"\xfe", 0, 0},
		{"\xc3", 0, 0}, // incomplete
		{"", 0, 0},
	}
	for _, tt := range tests {
		r, n := decodeWide(tt.in)
		if r != tt.r || n != tt.size {
			t.Errorf("decodeWide(%q) = %#x, %d; want %#x, %d", tt.in, r, n, tt.r, tt.size)
		}
	}
	// On Unicode's own range the decoder agrees with unicode/utf8.
	r := rand.New(rand.NewPCG(11, 12))
	for range 100000 {
		b := make([]byte, 1+r.IntN(4))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		s := string(b)
		got, gn := decodeWide(s)
		want, wn := utf8.DecodeRuneInString(s)
		if wn == 1 && want == utf8.RuneError {
			wn = 0
		}
		if gn != wn && !(gn == 4 && got > 0x10FFFF) {
			t.Errorf("decodeWide(%q) = %#x, %d; unicode/utf8 says %#x, %d", s, got, gn, want, wn)
		}
	}
}

func TestCompletionRange(t *testing.T) {
	tests := []struct {
		tail   string
		lo, hi rune
		ok     bool
	}{
		{"\xc3", 0xC0, 0xFF, true},
		{"\xe0", 0x800, 0xFFF, true},
		{"\xed", 0xD000, 0xD7FF, true},
		{"\xe4\xb8", 0x4E00, 0x4E3F, true},
		{"\xf0", 0x10000, 0x3FFFF, true},
		{"\xf4\x90", 0x110000, 0x110FFF, true},
		{"\xf8", 0x200000, 0xFFFFFF, true},
		{"\xe0\x80", 0, 0, false},
		{"\xc3\xa9", 0, 0, false}, // complete
		{"\x80", 0, 0, false},
		{"a", 0, 0, false},
	}
	for _, tt := range tests {
		lo, hi, ok := completionRange(tt.tail)
		if lo != tt.lo || hi != tt.hi || ok != tt.ok {
			t.Errorf("completionRange(%q) = %#x, %#x, %v; want %#x, %#x, %v", tt.tail, lo, hi, ok, tt.lo, tt.hi, tt.ok)
		}
	}
}
