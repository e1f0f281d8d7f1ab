package mcp

import (
	"encoding/json"
	"unicode/utf8"
)

// A JSON-RPC frame is looked at key by key: the server needs a handful of
// its fields (jsonrpc, id, method, params; name and arguments of a
// tools/call), each as the raw text of its value. Decoding the frame into
// a map[string]json.RawMessage for that, as the server did, allocated the
// map and a copy of every value, twice a call (the frame, then the
// params). objectFields lists the fields of an object that json.Valid has
// accepted, as slices of its text, without allocating (up to cap(out)
// fields).

// jsonField is a member of a JSON object: its key as written (with its
// quotes and any escapes) and its value's text.
type jsonField struct {
	key, val []byte
}

// objectFields appends the members of the JSON object b to out; ok is
// false when b is not an object. b must be valid JSON (json.Valid).
func objectFields(b []byte, out []jsonField) (fields []jsonField, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return out, false
	}
	i = skipSpace(b, i+1)
	if b[i] == '}' {
		return out, true
	}
	for {
		kEnd := stringEnd(b, i)
		key := b[i:kEnd]
		i = skipSpace(b, kEnd) // at ':'
		i = skipSpace(b, i+1)
		vEnd := valueEnd(b, i)
		out = append(out, jsonField{key: key, val: b[i:vEnd]})
		i = skipSpace(b, vEnd) // at ',' or '}'
		if b[i] != ',' {
			return out, true
		}
		i = skipSpace(b, i+1)
	}
}

// field returns the value of the last member named key (encoding/json
// keeps the last of duplicate keys too), and whether there is one.
func field(fields []jsonField, key string) ([]byte, bool) {
	for i := len(fields) - 1; i >= 0; i-- {
		if keyIs(fields[i].key, key) {
			return fields[i].val, true
		}
	}
	return nil, false
}

// keyIs reports whether the quoted key raw decodes to key.
func keyIs(raw []byte, key string) bool {
	if len(raw) == len(key)+2 && string(raw[1:len(raw)-1]) == key {
		return true
	}
	if !hasEscapeOrNonASCII(raw) {
		return false
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s == key
}

// jsonString returns the string a JSON string's text decodes to; ok is
// false when raw is not a string.
func jsonString(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if !hasEscapeOrNonASCII(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	return s, json.Unmarshal(raw, &s) == nil
}

func hasEscapeOrNonASCII(raw []byte) bool {
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string that starts at b[i].
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return len(b)
}
