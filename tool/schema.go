package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// compiledSchema is a tool's input schema, prepared once: the cleaned JSON the
// model sees, and the form inputs are validated against: the fast checker,
// or, for a schema it cannot read, jsonschema-go's resolved schema.
type compiledSchema struct {
	// json is the schema as JSON, titles stripped, properties always
	// present: marshalled from root at its first use, as a process that
	// only checks calls (the CLI's check) never lists the schemas.
	json     func() json.RawMessage
	resolved *jsonschema.Resolved // nil when fast is set
	fast     *checker             // nil when the schema needs the full validator
	root     map[string]any
	hasInt   bool // some subschema has type integer (see integerLiterals)
}

// validate checks a decoded input against the schema; the error is addressed
// to the model.
func (s *compiledSchema) validate(name string, v map[string]any) error {
	if s.fast != nil {
		if err := s.fast.check(v, ""); err != nil {
			return fmt.Errorf("Input validation failed for tool '%s': %s. Fix the arguments to match the tool's input schema.", name, err.Error())
		}
		return nil
	}
	if err := s.resolved.Validate(v); err != nil {
		return validationError(name, err)
	}
	return nil
}

// compileSchema checks that raw is a JSON Schema of type object, strips
// "title" keywords (as the reference does: they only cost tokens), adds an
// empty "properties" when missing, and resolves it for validation.
// checkOutputSchema accepts no output schema, or a JSON Schema object of
// type object, as MCP wants it.
func checkOutputSchema(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return errors.New("output schema is not a JSON object")
	}
	if m["type"] != "object" {
		return fmt.Errorf("output schema must have type \"object\", not %v", m["type"])
	}
	return nil
}

func compileSchema(raw json.RawMessage) (*compiledSchema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("input schema is not a JSON object: %w", err)
	}
	if m == nil { // null
		return nil, fmt.Errorf("input schema is null, not a JSON object: give {\"type\":\"object\"} for a tool without parameters")
	}
	if t, ok := m["type"]; ok && t != "object" {
		return nil, fmt.Errorf("input schema must have type \"object\", not %v", t)
	}
	m["type"] = "object"
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	stripTitles(m)
	cs := &compiledSchema{fast: compileChecker(m), root: m, hasInt: mentionsInteger(m)}
	// m came from JSON and is never modified: it marshals, every time
	// to the same bytes (keys sorted).
	cs.json = sync.OnceValue(func() json.RawMessage {
		b, err := json.Marshal(m)
		if err != nil {
			panic(fmt.Sprintf("tool: a schema decoded from JSON does not marshal: %v", err))
		}
		return b
	})
	if cs.fast != nil {
		// The fast checker read every keyword, and only well-formed ones
		// (FuzzCheckerImpliesResolves): the schema is one jsonschema-go
		// resolves too, and it would never be used. Resolving costs most
		// of a Toolkit's construction, which the CLI pays per process.
		return cs, nil
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(cs.json(), &s); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	cs.resolved = res
	return cs, nil
}

// stripTitles removes the "title" keyword from a schema and every subschema,
// leaving alone properties that happen to be named "title".
func stripTitles(s map[string]any) {
	delete(s, "title")
	for _, k := range []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"} {
		if sub, ok := s[k].(map[string]any); ok {
			for _, v := range sub {
				if vm, ok := v.(map[string]any); ok {
					stripTitles(vm)
				}
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"} {
		if vm, ok := s[k].(map[string]any); ok {
			stripTitles(vm)
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems", "items"} {
		if arr, ok := s[k].([]any); ok {
			for _, v := range arr {
				if vm, ok := v.(map[string]any); ok {
					stripTitles(vm)
				}
			}
		}
	}
}

// decodeInput parses a call's input into a generic JSON value for validation.
// Its error is addressed to the model.
func decodeInput(name string, input json.RawMessage, fold bool) (map[string]any, error) {
	if len(bytes.TrimSpace(input)) == 0 {
		return map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return nil, fmt.Errorf("Invalid JSON input for tool '%s': %s. Send the arguments as a single JSON object that matches the tool's input schema.", name, describeJSONError(input, err))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("Invalid input for tool '%s': the arguments must be a JSON object, not %s.", name, jsonKind(v))
	}
	if key, earlier, dup := dupKey(input, fold); dup {
		how := "the key " + short(key) + " twice"
		if key != earlier {
			how = fmt.Sprintf("both %s and %s, which name one parameter (keys are matched regardless of case)", short(earlier), short(key))
		}
		return nil, fmt.Errorf("Invalid input for tool '%s': an object holds %s, so the input means two things. Send each parameter once, spelled as the schema spells it.", name, how)
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// describeJSONError says what is wrong with input and where.
func describeJSONError(input []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if te != nil && strings.HasPrefix(te.Value, "number ") {
		// Out of the range of a float64 (1e400, or thousands of digits).
		lit := strings.TrimPrefix(te.Value, "number ")
		if len(lit) > 40 {
			lit = fmt.Sprintf("%s… (a number of %d characters)", lit[:24], len(lit))
		}
		msg = "the number " + lit + " is out of range"
	}
	if strings.Contains(msg, "unexpected end of JSON input") {
		return fmt.Sprintf("%s (the input stops after %d bytes; is a closing brace or quote missing?)", msg, len(input))
	}
	if off < 0 {
		return msg
	}
	line, col := 1, 1
	for i := int64(0); i < off-1 && i < int64(len(input)); i++ {
		if input[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	start := max(0, int(off)-20)
	end := min(len(input), int(off)+10)
	return fmt.Sprintf("%s at line %d, column %d (near %q)", msg, line, col, input[start:end])
}

var validationPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`validating (/[^:]*): `) })

// validationError rewrites a jsonschema validation error for the model: it
// names the field (as a dotted path) and the rule that failed.
func validationError(name string, err error) error {
	msg := err.Error()
	field := ""
	if all := validationPath().FindAllStringSubmatch(msg, -1); len(all) > 0 {
		field = pointerToField(all[len(all)-1][1])
	}
	// Keep the innermost message: what follows the last "validating …: ".
	rule := msg
	if loc := validationPath().FindAllStringIndex(msg, -1); len(loc) > 0 {
		rule = msg[loc[len(loc)-1][1]:]
	}
	rule = strings.TrimPrefix(rule, "validating root: ")
	if field == "" {
		return fmt.Errorf("Input validation failed for tool '%s': %s. Fix the arguments to match the tool's input schema.", name, rule)
	}
	return fmt.Errorf("Input validation failed for tool '%s': field %q: %s. Fix the arguments to match the tool's input schema.", name, field, rule)
}

// pointerToField turns a schema location such as /properties/a/items/properties/b
// into the field path a[].b.
func pointerToField(p string) string {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	var b strings.Builder
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "properties", "patternProperties":
			if i+1 < len(parts) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(strings.NewReplacer("~1", "/", "~0", "~").Replace(parts[i+1]))
				i++
			}
		case "items", "prefixItems", "additionalItems":
			b.WriteString("[]")
		}
	}
	return b.String()
}
