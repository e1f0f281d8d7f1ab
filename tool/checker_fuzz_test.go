package tool

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// FuzzCheckerImpliesResolves: a schema the fast checker compiles is one
// jsonschema-go resolves, so compileSchema may skip resolving it and still
// refuse at registration every schema it refused before.
func FuzzCheckerImpliesResolves(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"]}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":10}}}`,
		`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},"maxItems":3}}}`,
		`{"type":"object","properties":{"e":{"enum":["a","b"]},"c":{"const":1}}}`,
		`{"type":"object","properties":{"p":{"type":"string","pattern":"^[a-z]+$"}},"additionalProperties":false}`,
		`{"type":"object","properties":{"x":{"type":["string","null"],"description":"d","default":"v"}}}`,
		`{"type":"object","properties":{"x":{"type":"strnig"}}}`,
		`{"type":"object","properties":{"x":{"minLength":-1}}}`,
		`{"type":"object","properties":{"x":{"description":5}}}`,
		`{"type":"object","properties":{"x":{"format":5}}}`,
		`{"type":"object","properties":{"x":{"examples":"a"}}}`,
		`{"type":"object","properties":{"x":{"enum":[]}}}`,
		`{"type":"object","required":["a","a"]}`,
		`{"type":"object","properties":{"x":{"readOnly":"yes"}}}`,
		`{"type":"object","properties":{"x":{"$id":7}}}`,
		`{"type":"object","additionalProperties":{"type":"number","exclusiveMinimum":0}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var m map[string]any
		if json.Unmarshal([]byte(raw), &m) != nil || m == nil {
			return
		}
		if compileChecker(m) == nil {
			return
		}
		clean, err := json.Marshal(m)
		if err != nil {
			return
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(clean, &s); err != nil {
			t.Fatalf("the fast checker reads %s, jsonschema-go refuses it: %v", clean, err)
		}
		if _, err := s.Resolve(nil); err != nil {
			t.Fatalf("the fast checker reads %s, jsonschema-go does not resolve it: %v", clean, err)
		}
	})
}
