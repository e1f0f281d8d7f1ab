package tool

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestCheckerAgreesWithJSONSchema runs inputs through the fast checker and
// through jsonschema-go: both must accept and reject the same inputs.
func TestCheckerAgreesWithJSONSchema(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"a":{"type":"string","minLength":2,"maxLength":4,"pattern":"^x"},"n":{"type":"integer","minimum":0,"maximum":10},"f":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}},"required":["a"],"additionalProperties":false}`,
		`{"type":"object","properties":{"l":{"type":["null","array"],"items":{"type":"string","enum":["x","y"]},"minItems":1,"maxItems":2},"m":{"type":"object","additionalProperties":{"type":"boolean"}},"c":{"const":3}}}`,
		`{"type":"object","properties":{"o":{"type":"object","properties":{"k":{"type":"integer"}},"required":["k"],"additionalProperties":false},"e":{"enum":[1,"1",null,[1]]}}}`,
	}
	inputs := []string{`{}`, `{"a":"xy"}`, `{"a":"x"}`, `{"a":"xyzzz"}`, `{"a":"yy"}`, `{"a":"xy","n":3}`, `{"a":"xy","n":3.5}`, `{"a":"xy","n":11}`,
		`{"a":"xy","n":-1}`, `{"a":"xy","f":0}`, `{"a":"xy","f":0.5}`, `{"a":"xy","f":1}`, `{"a":"xy","z":1}`, `{"a":1}`, `{"a":null}`,
		`{"l":null}`, `{"l":[]}`, `{"l":["x"]}`, `{"l":["x","z"]}`, `{"l":["x","y","x"]}`, `{"m":{"p":true}}`, `{"m":{"p":1}}`, `{"c":3}`, `{"c":3.0}`, `{"c":"3"}`,
		`{"o":{"k":1}}`, `{"o":{}}`, `{"o":{"k":1,"j":2}}`, `{"o":{"k":"1"}}`, `{"e":1}`, `{"e":"1"}`, `{"e":null}`, `{"e":[1]}`, `{"e":2}`, `{"e":[2]}`}
	for _, sj := range schemas {
		cs, err := compileSchema(json.RawMessage(sj))
		if err != nil {
			t.Fatal(err)
		}
		if cs.fast == nil {
			t.Fatalf("schema not compiled to the fast checker: %s", sj)
		}
		resolved := resolveForTest(t, cs.json)
		for _, in := range inputs {
			var v map[string]any
			json.Unmarshal([]byte(in), &v)
			fastErr := cs.fast.check(v, "")
			slowErr := resolved.Validate(v)
			if (fastErr == nil) != (slowErr == nil) {
				t.Errorf("schema %s\ninput %s: fast=%v jsonschema=%v", sj, in, fastErr, slowErr)
			}
		}
	}
}

func TestFullValidatorFallback(t *testing.T) {
	cs, err := compileSchema(json.RawMessage(`{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"required":["x"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if cs.fast != nil {
		t.Fatal("anyOf compiled to the fast checker")
	}
	if err := cs.validate("t", map[string]any{"x": 1.0}); err != nil {
		t.Fatal(err)
	}
	err = cs.validate("t", map[string]any{"x": true})
	want := `Input validation failed for tool 't': field "x": `
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "boolean") {
		t.Fatalf("got  %v\nwant %s…", err, want)
	}
}

// FuzzValidate feeds arbitrary JSON to the fast checker and to jsonschema-go
// for the same schema: they must accept and reject the same inputs.
func FuzzValidate(f *testing.F) {
	schema := `{"type":"object","properties":{"a":{"type":"string","minLength":1,"maxLength":5,"pattern":"^[a-z]"},"n":{"type":"integer","minimum":-3,"maximum":10},"f":{"type":"number","exclusiveMinimum":0},"l":{"type":["null","array"],"items":{"type":"string","enum":["x","y"]},"maxItems":3},"o":{"type":"object","properties":{"k":{"type":"boolean"}},"required":["k"],"additionalProperties":false},"m":{"type":"object","additionalProperties":{"type":"integer"}}},"required":["a"],"additionalProperties":false}`
	cs, err := compileSchema(json.RawMessage(schema))
	if err != nil || cs.fast == nil {
		f.Fatal(err)
	}
	resolved := resolveForTest(f, cs.json)
	for _, s := range []string{`{"a":"x"}`, `{"a":"x","n":3}`, `{"a":"x","n":3.5}`, `{"a":"","l":null}`, `{"a":"x","l":["x","z"]}`, `{"a":"x","o":{"k":true}}`, `{"a":"x","o":{}}`, `{"a":"x","m":{"q":1,"r":1.5}}`, `{"a":"x","f":0}`, `{"b":1}`, `{"a":"é"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var v map[string]any
		if json.Unmarshal([]byte(in), &v) != nil || v == nil {
			return
		}
		fastErr := cs.fast.check(v, "")
		slowErr := resolved.Validate(v)
		if (fastErr == nil) != (slowErr == nil) {
			t.Fatalf("input %s: fast=%v jsonschema=%v", in, fastErr, slowErr)
		}
	})
}

// resolveForTest resolves a schema with jsonschema-go, as compileSchema
// does for one the fast checker cannot read.
func resolveForTest(t testing.TB, raw json.RawMessage) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
