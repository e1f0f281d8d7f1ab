// Package jsonscan finds where JSON values end in a buffer, without
// decoding them and without allocating: the pieces a reader needs to take
// one member of a large object, or one record of a long list, and leave
// the rest as written (the state file's records, the fields of an MCP
// frame). The functions do not check the JSON. Given invalid JSON they
// return -1 or false, or cut it in odd places, and never panic; callers
// that take JSON from outside check it first (json.Valid).
package jsonscan

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// StringEnd returns the index after the string that starts at b[i] (a
// quote), or -1.
func StringEnd(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		// The quote ends the string unless an odd number of backslashes
		// precede it.
		n := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}

// ValueEnd returns the index after the value that starts at b[i], or -1.
func ValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = StringEnd(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	// A number, true, false or null: up to the next delimiter.
	start := i
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if i == start {
				return -1
			}
			return i
		}
		i++
	}
	return i
}

// Unquote returns the JSON string q (quotes included) as Go text.
func Unquote(q []byte) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(q, '\\') < 0 && utf8.Valid(q) {
		return string(q[1 : len(q)-1]), true
	}
	var s string // with its escapes read, and bytes that are not UTF-8 as U+FFFD, as encoding/json reads it
	if json.Unmarshal(q, &s) != nil {
		return "", false
	}
	return s, true
}

// QuotedIs reports whether the JSON string q (quotes included) is s.
func QuotedIs(q []byte, s string) bool {
	if len(q) < 2 {
		return false
	}
	if bytes.IndexByte(q, '\\') < 0 && utf8.Valid(q) {
		return string(q[1:len(q)-1]) == s
	}
	u, ok := Unquote(q)
	return ok && u == s
}
