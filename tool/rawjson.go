package tool

import (
	"bytes"
	"encoding/json"

	"github.com/toolscope/toolscope/internal/jsonscan"
)

// Splitting JSON that is known to be valid (a state this package wrote, or
// one that json.Unmarshal already checked) into its parts without decoding
// them: the merge of saved states compares and copies records as the bytes
// they were read as, so a save costs what changed, not the whole state.
//
// They find where values end with package jsonscan, and do not check the
// JSON. Given invalid JSON they may return ok false or cut it in odd
// places, never panic. Callers that take JSON from outside check it first
// (json.Valid).

// splitArray returns the elements of the JSON array raw; null or nothing
// is no elements.
func splitArray(raw []byte) ([]json.RawMessage, bool) {
	i := jsonscan.SkipSpace(raw, 0)
	if i == len(raw) || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, true
	}
	if raw[i] != '[' {
		return nil, false
	}
	var out []json.RawMessage
	i = jsonscan.SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return out, jsonscan.SkipSpace(raw, i+1) == len(raw)
	}
	for {
		end := jsonscan.ValueEnd(raw, i)
		if end < 0 {
			return nil, false
		}
		out = append(out, raw[i:end:end])
		i = jsonscan.SkipSpace(raw, end)
		if i == len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = jsonscan.SkipSpace(raw, i+1)
		case ']':
			return out, jsonscan.SkipSpace(raw, i+1) == len(raw)
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
	i := jsonscan.SkipSpace(raw, 0)
	if i == len(raw) || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, true
	}
	if raw[i] != '{' {
		return nil, false
	}
	var out []member
	i = jsonscan.SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return out, jsonscan.SkipSpace(raw, i+1) == len(raw)
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return nil, false
		}
		kend := jsonscan.StringEnd(raw, i)
		if kend < 0 {
			return nil, false
		}
		key, ok := jsonscan.Unquote(raw[i:kend])
		if !ok {
			return nil, false
		}
		i = jsonscan.SkipSpace(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = jsonscan.SkipSpace(raw, i+1)
		end := jsonscan.ValueEnd(raw, i)
		if end < 0 {
			return nil, false
		}
		out = append(out, member{key, raw[i:end:end]})
		i = jsonscan.SkipSpace(raw, end)
		if i == len(raw) {
			return nil, false
		}
		switch raw[i] {
		case ',':
			i = jsonscan.SkipSpace(raw, i+1)
		case '}':
			return out, jsonscan.SkipSpace(raw, i+1) == len(raw)
		default:
			return nil, false
		}
	}
}

// stringField returns the string value of the member key of the JSON
// object raw, reading only up to it (a record's id is its first field).
func stringField(raw []byte, key string) (string, bool) {
	i := jsonscan.SkipSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' {
		return "", false
	}
	i = jsonscan.SkipSpace(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		kend := jsonscan.StringEnd(raw, i)
		if kend < 0 {
			return "", false
		}
		k, ok := jsonscan.Unquote(raw[i:kend])
		if !ok {
			return "", false
		}
		i = jsonscan.SkipSpace(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return "", false
		}
		i = jsonscan.SkipSpace(raw, i+1)
		end := jsonscan.ValueEnd(raw, i)
		if end < 0 {
			return "", false
		}
		if k == key {
			if raw[i] != '"' {
				return "", false
			}
			return jsonscan.Unquote(raw[i:end])
		}
		i = jsonscan.SkipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = jsonscan.SkipSpace(raw, i+1)
		}
	}
	return "", false
}

// fieldIs reports whether the JSON object raw has the member key with the
// string value want, reading only up to it and allocating nothing when
// neither is escaped.
func fieldIs(raw []byte, key, want string) bool {
	i := jsonscan.SkipSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' {
		return false
	}
	i = jsonscan.SkipSpace(raw, i+1)
	for i < len(raw) && raw[i] == '"' {
		kend := jsonscan.StringEnd(raw, i)
		if kend < 0 {
			return false
		}
		k := raw[i:kend]
		i = jsonscan.SkipSpace(raw, kend)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i = jsonscan.SkipSpace(raw, i+1)
		end := jsonscan.ValueEnd(raw, i)
		if end < 0 {
			return false
		}
		if jsonscan.QuotedIs(k, key) {
			return raw[i] == '"' && jsonscan.QuotedIs(raw[i:end], want)
		}
		i = jsonscan.SkipSpace(raw, end)
		if i < len(raw) && raw[i] == ',' {
			i = jsonscan.SkipSpace(raw, i+1)
		}
	}
	return false
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
		kend := jsonscan.StringEnd(body, i)
		if kend < 0 {
			return nil, false
		}
		key, ok := jsonscan.Unquote(body[i:kend])
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
