package mcp

import "github.com/toolscope/toolscope/internal/jsonscan"

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
	i := jsonscan.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return out, false
	}
	i = jsonscan.SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return out, true
	}
	for {
		kEnd := jsonscan.StringEnd(b, i)
		if kEnd < 0 {
			return out, false
		}
		key := b[i:kEnd]
		i = jsonscan.SkipSpace(b, kEnd) // at ':'
		i = jsonscan.SkipSpace(b, i+1)
		vEnd := jsonscan.ValueEnd(b, i)
		if vEnd < 0 {
			return out, false
		}
		out = append(out, jsonField{key: key, val: b[i:vEnd]})
		i = jsonscan.SkipSpace(b, vEnd) // at ',' or '}'
		if i >= len(b) || b[i] != ',' {
			return out, true
		}
		i = jsonscan.SkipSpace(b, i+1)
	}
}

// field returns the value of the last member named key (encoding/json
// keeps the last of duplicate keys too), and whether there is one.
func field(fields []jsonField, key string) ([]byte, bool) {
	for i := len(fields) - 1; i >= 0; i-- {
		if jsonscan.QuotedIs(fields[i].key, key) {
			return fields[i].val, true
		}
	}
	return nil, false
}
