// Package inputview renders a tool call's input for a person who must
// approve it. Two rules: the person sees exactly the bytes that will be
// judged and run, and nothing in them can act on the display. So Escape
// never shortens, and it spells out every character a terminal or a
// client's renderer would obey instead of showing (ESC starting a cursor
// move or an OSC title, CR returning over the line, C1 controls, bidi
// overrides reordering what is read); DuplicateKey finds the one JSON
// shape where two readers of the same bytes see different values.
package inputview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every control character (C0 but newline and tab,
// DEL, C1), every bidirectional formatting character and every byte that
// is not UTF-8 written as a visible \u or \x escape. Other text is kept as
// is and nothing is cut.
func Escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// hidden reports a character that a display obeys rather than shows.
func hidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// DuplicateKey reports the first object key that appears twice in one
// object of the JSON document raw, with its path ("$.a.b"). A tool reading
// the input with Go's encoding/json takes the last value; a person, or
// another parser, may take the first. Such an input is not asked about:
// there is no one thing to approve. Keys are compared as encoding/json
// matches struct fields, without case ("command" and "Command", or
// "\u0063ommand", are one key).
func DuplicateKey(raw []byte) (string, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	p, ok := dupValue(d, "$")
	return p, ok
}

// dupValue reads one value from d and reports a duplicate key within it.
// A malformed document reports nothing: the tool rejects it itself.
func dupValue(d *json.Decoder, at string) (string, bool) {
	t, err := d.Token()
	if err != nil {
		return "", false
	}
	switch t {
	case json.Delim('{'):
		seen := map[string]bool{}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return "", false
			}
			key, _ := k.(string)
			f := fold(key)
			if seen[f] {
				return at + "." + key, true
			}
			seen[f] = true
			if p, ok := dupValue(d, at+"."+key); ok {
				return p, true
			}
		}
		d.Token()
	case json.Delim('['):
		for i := 0; d.More(); i++ {
			if p, ok := dupValue(d, fmt.Sprintf("%s[%d]", at, i)); ok {
				return p, true
			}
		}
		d.Token()
	}
	return "", false
}

// fold maps each rune of s to the smallest rune that folds to it, so keys
// equal under Unicode case folding (K, k and the Kelvin sign) fold alike.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}
