package tool

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
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
	if bytes.IndexByte(q, '\\') < 0 && utf8.Valid(q) {
		return string(q[1 : len(q)-1]), true
	}
	var s string // with its escapes read, and bytes that are not UTF-8 as U+FFFD, as encoding/json reads it
	if json.Unmarshal(q, &s) != nil {
		return "", false
	}
	return s, true
}

// fieldIs reports whether the JSON object raw has the member key with the
// string value want, reading only up to it and allocating nothing when
// neither is escaped.
func fieldIs(raw []byte, key, want string) bool {
	i := skipSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		kend := skipString(raw, i)
		if kend < 0 {
			return false
		}
		k := raw[i:kend]
		i = skipSpace(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = skipSpace(raw, i+1)
		end := skipValue(raw, i)
		if end < 0 {
			return false
		}
		if quotedIs(k, key) {
			return raw[i] == '"' && quotedIs(raw[i:end], want)
		}
		i = skipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return false
}

// quotedIs reports whether the JSON string q (quotes included) is s.
func quotedIs(q []byte, s string) bool {
	if len(q) < 2 {
		return false
	}
	if bytes.IndexByte(q, '\\') < 0 && utf8.Valid(q) {
		return string(q[1:len(q)-1]) == s
	}
	u, ok := unquote(q)
	return ok && u == s
}

// The layout of a list in a state file (see State.MarshalFile): "[", then
// each element on a line of its own, compact, after lineIndent, with a
// comma but the last, then listEnd.
const (
	lineIndent = "      "
	listEnd    = "\n    ]"
)

// splitLines returns the elements of the list raw laid out one a line,
// found by the line breaks alone (a compact JSON value has none: a string
// holds its line breaks escaped), and where each starts in raw. ok is
// false when raw is not so laid out: the first and last lines are not
// "[" and listEnd, or a line is not lineIndent and a value that starts
// and ends as an object does, with a comma after all but the last.
//
// A line is not read through: splitLines is for a list that this package
// laid out (as a state file whose seal shows that toolscope wrote it),
// whose lines are whole values. Text of another origin that looks alike
// may be cut in odd places; json.Unmarshal refuses such an element when
// it is read.
func splitLines(raw []byte) (elems []json.RawMessage, starts []int, ok bool) {
	if !bytes.HasPrefix(raw, []byte("[\n"+lineIndent)) || !bytes.HasSuffix(raw, []byte(listEnd)) {
		return nil, nil, false
	}
	n := bytes.Count(raw, []byte{'\n'}) - 1
	elems, starts = make([]json.RawMessage, 0, n), make([]int, 0, n)
	i, last := 2, len(raw)-len(listEnd)
	for {
		j := bytes.IndexByte(raw[i:last], '\n')
		end := last
		if j >= 0 {
			end = i + j
		}
		line := raw[i:end]
		if !bytes.HasPrefix(line, []byte(lineIndent)) {
			return nil, nil, false
		}
		v := line[len(lineIndent):]
		if j >= 0 {
			if len(v) == 0 || v[len(v)-1] != ',' {
				return nil, nil, false
			}
			v = v[:len(v)-1]
		}
		if len(v) < 2 || v[0] != '{' || v[len(v)-1] != '}' {
			return nil, nil, false
		}
		starts = append(starts, i)
		elems = append(elems, v[:len(v):len(v)])
		if j < 0 {
			return elems, starts, true
		}
		i = end + 1
	}
}

// isLined reports whether the list raw is laid out as splitLines reads
// it (and as State.MarshalFile lays a list of objects out), without
// keeping its elements.
func isLined(raw []byte) bool {
	if !bytes.HasPrefix(raw, []byte("[\n"+lineIndent)) || !bytes.HasSuffix(raw, []byte(listEnd)) {
		return false
	}
	i, last := 2, len(raw)-len(listEnd)
	for {
		j := bytes.IndexByte(raw[i:last], '\n')
		end := last
		if j >= 0 {
			end = i + j
		}
		line := raw[i:end]
		if len(line) < len(lineIndent)+2 || string(line[:len(lineIndent)]) != lineIndent || line[len(lineIndent)] != '{' {
			return false
		}
		if j < 0 {
			return line[len(line)-1] == '}'
		}
		if line[len(line)-1] != ',' || line[len(line)-2] != '}' {
			return false
		}
		i = end + 1
	}
}

// splitIndented is splitObject for an object laid out as json.Indent (and
// State.MarshalFile) lays out one at depth (1: the top): "{", each member
// on a line of its own indented 2×depth spaces, "}" on a line indented
// 2×(depth-1). The members are found by their lines, not by reading each
// value through: a line indented 2×depth spaces and starting with a
// quote starts a member, since the lines inside a value are indented
// deeper and a JSON string holds no line break. ok is false when raw is
// not so laid out.
//
// Like splitLines, it is for JSON that toolscope laid out (a state file
// whose seal shows it); the members' values are not checked.
func splitIndented(raw []byte, depth int) ([]member, bool) {
	ind := make([]byte, 0, 2*depth+2)
	ind = append(ind, '\n')
	for range 2 * depth {
		ind = append(ind, ' ')
	}
	if string(raw) == "{}" {
		return nil, true
	}
	closing := append(append([]byte(nil), ind[:len(ind)-2]...), '}')
	if len(raw) < 2 || raw[0] != '{' || !bytes.HasSuffix(raw, closing) {
		return nil, false
	}
	start := append(ind, '"')
	if !bytes.HasPrefix(raw[1:], start) {
		return nil, false
	}
	body := raw[:len(raw)-len(closing)]
	var out []member
	i := 1 + len(ind) // at the key's quote
	for {
		kend := skipString(body, i)
		if kend < 0 {
			return nil, false
		}
		key, ok := unquote(body[i:kend])
		if !ok || !bytes.HasPrefix(body[kend:], []byte(": ")) {
			return nil, false
		}
		v := kend + 2
		next := bytes.Index(body[v:], start)
		end := len(body)
		if next >= 0 {
			end = v + next
		}
		val := body[v:end]
		if next >= 0 {
			if len(val) == 0 || val[len(val)-1] != ',' {
				return nil, false
			}
			val = val[:len(val)-1]
		}
		if len(val) == 0 || !valueEnds(val) {
			return nil, false
		}
		out = append(out, member{key, val[:len(val):len(val)]})
		if next < 0 {
			return out, true
		}
		i = end + len(ind)
	}
}

// valueEnds reports whether v starts and ends as one JSON value may: an
// object or list closed, a string, a number or literal without spaces.
func valueEnds(v []byte) bool {
	first, last := v[0], v[len(v)-1]
	switch first {
	case '{':
		return last == '}'
	case '[':
		return last == ']'
	case '"':
		return len(v) >= 2 && last == '"'
	}
	return bytes.IndexAny(v, " \t\r\n,:{}[]\"") < 0
}
