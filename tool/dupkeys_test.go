package tool

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// dupKeyRef is dupKey the slow way: json.Decoder's tokens, each object's
// keys decoded and compared.
func dupKeyRef(b []byte, fold bool) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		object, expectKey bool
		keys              []string
	}
	var stack []*frame
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return false
		}
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		_, isString := tok.(string)
		if top != nil && top.object && top.expectKey && isString {
			k := tok.(string)
			for _, e := range top.keys {
				if e == k || fold && strings.EqualFold(e, k) {
					return true
				}
			}
			top.keys = append(top.keys, k)
			top.expectKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, expectKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].expectKey = true // a value ended
		}
	}
}

func TestDupKey(t *testing.T) {
	for _, c := range []struct {
		in       string
		exact    bool // a key written twice
		foldOnly bool // two keys equal but for case
	}{
		{`{"command":"ls"}`, false, false},
		{`{"command":"ls","command":"rm"}`, true, false},
		{`{"command":"ls","Command":"rm"}`, false, true},
		{`{"command":"ls","\u0043ommand":"rm"}`, false, true},
		{`{"comman\u0064":"ls","command":"rm"}`, true, false},
		{`{"a":{"x":1},"b":{"x":2}}`, false, false},
		{`{"a":[{"x":1,"X":2}]}`, false, true},
		{`{"a":"{\"x\":1,\"x\":2}"}`, false, false},
		{`{"k":"\u212a","K":1}`, false, true},    // K and k
		{`{"\u212a":1,"k":2}`, false, true},      // the Kelvin sign folds to k
		{"{\"\xff\":1,\"\xfe\":2}", true, false}, // both decode as U+FFFD
		{`{"x":[1,2,{"y":{"z":1,"Z":2}}],"y":1}`, false, true},
	} {
		_, _, exact := dupKey([]byte(c.in), false)
		_, _, fold := dupKey([]byte(c.in), true)
		if exact != c.exact || fold != (c.exact || c.foldOnly) {
			t.Errorf("%s: exact %v fold %v, want %v %v", c.in, exact, fold, c.exact, c.exact || c.foldOnly)
		}
		if exact != dupKeyRef([]byte(c.in), false) || fold != dupKeyRef([]byte(c.in), true) {
			t.Errorf("%s: the reference disagrees", c.in)
		}
	}
}

func FuzzDupKey(f *testing.F) {
	for _, s := range []string{`{"command":"ls","Command":"rm"}`, `{"a":[{"x":1,"X":2}]}`, `{"a":"{\"x\":1}","b":[1,"x",{"c":{}}]}`, `{"\u212a":1,"k":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		for _, fold := range []bool{false, true} {
			_, _, got := dupKey([]byte(s), fold)
			if want := dupKeyRef([]byte(s), fold); got != want {
				t.Fatalf("dupKey(%q, fold %v) = %v, reference %v", s, fold, got, want)
			}
		}
	})
}
