package tool

import (
	"bytes"
	"encoding/json"
)

// Splitting JSON that is known to be valid (a state this package wrote, or
// one that json.Unmarshal already checked) into its parts without decoding
// them: the merge of saved states compares and copies records as the bytes
// they were read as, so a save costs what changed, not the whole state.
//
// These functions find where values end; they do not check the JSON. Given
// invalid JSON they may return ok false or cut it in odd places, never
// panic. Callers that take JSON from outside check it first (json.Valid).

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
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

// skipString returns the index after the string that starts at b[i] (a
// quote), or -1.
func skipString(b []byte, i int) int {
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

// skipValue returns the index after the value that starts at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
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

// splitArray returns the elements of the JSON array raw; null or nothing
// is no elements.
func splitArray(raw []byte) ([]json.RawMessage, bool) {
	i := skipSpace(raw, 0)
	if i == len(raw) || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, true
	}
	if raw[i] != '[' {
		return nil, false
	}
	var out []json.RawMessage
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return out, skipSpace(raw, i+1) == len(raw)
	}
	for {
		end := skipValue(raw, i)
		if end < 0 {
			return nil, false
		}
		out = append(out, raw[i:end:end])
		i = skipSpace(raw, end)
		if i == len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case ']':
			return out, skipSpace(raw, i+1) == len(raw)
		default:
			return nil, false
		}
	}
}

// member is one key and value of a JSON object, as written.
type member struct {
	key string
	val json.RawMessage
}

// splitObject returns the members of the JSON object raw in their order;
// null or nothing is no members.
func splitObject(raw []byte) ([]member, bool) {
	i := skipSpace(raw, 0)
	if i == len(raw) || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, true
	}
	if raw[i] != '{' {
		return nil, false
	}
	var out []member
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return out, skipSpace(raw, i+1) == len(raw)
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return nil, false
		}
		kend := skipString(raw, i)
		if kend < 0 {
			return nil, false
		}
		key, ok := unquote(raw[i:kend])
		if !ok {
			return nil, false
		}
		i = skipSpace(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = skipSpace(raw, i+1)
		end := skipValue(raw, i)
		if end < 0 {
			return nil, false
		}
		out = append(out, member{key, raw[i:end:end]})
		i = skipSpace(raw, end)
		if i == len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			return out, skipSpace(raw, i+1) == len(raw)
		default:
			return nil, false
		}
	}
}

// stringField returns the string value of the member key of the JSON
// object raw, reading only up to it (a record's id is its first field).
func stringField(raw []byte, key string) (string, bool) {
	i := skipSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' {
		return "", false
	}
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		kend := skipString(raw, i)
		if kend < 0 {
			return "", false
		}
		k, ok := unquote(raw[i:kend])
		if !ok {
			return "", false
		}
		i = skipSpace(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return "", false
		}
		i = skipSpace(raw, i+1)
		end := skipValue(raw, i)
		if end < 0 {
			return "", false
		}
		if k == key {
			if raw[i] != '"' {
				return "", false
			}
			return unquote(raw[i:end])
		}
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return "", false
}

// unquote returns the JSON string q (quotes included) as Go text.
func unquote(q []byte) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q[1 : len(q)-1]), true
	}
	var s string
	if json.Unmarshal(q, &s) != nil {
		return "", false
	}
	return s, true
}
