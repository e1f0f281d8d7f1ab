package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/toolscope/toolscope/internal/clip"
)

// JSON Schema counts 2.0 and 1e3 as integers (an integer is a number whose
// fractional part is zero), so the schema check passes them; Go's decoder
// refuses them for an int field. The toolkit therefore rewrites, after
// validation, each whole number written with a fraction or an exponent into
// plain digits (2.0 → 2, 1e3 → 1000, -0.0 → 0), and only where the schema
// wants an integer: the permission check and the tool see the rewritten
// input, and nothing else in it changes, byte for byte. A number where the
// schema wants a number, or where it says nothing (free-form data the tool
// passes on, such as task metadata), keeps the literal the model wrote. A
// whole number at an integer location that no int64 holds is an invalid
// input, refused before the tool runs (see checkIntegerRange), except for
// MCP tools, whose servers get their numbers as written.
//
// "Where the schema wants an integer" follows properties, patternProperties,
// additionalProperties, items and prefixItems, through local $refs and into
// every branch of allOf, anyOf and oneOf: a location is an integer location
// if any applicable schema has type "integer" (rewriting a whole number never
// changes which schemas it satisfies).

// integerLiterals returns input with the whole numbers at integer locations
// of the schema written as plain digits; input itself when there are none.
func (s *compiledSchema) integerLiterals(input json.RawMessage) json.RawMessage {
	if !s.hasInt || !hasFractionOrExponent(input) {
		return input
	}
	w := &numWalker{root: s.root, dec: json.NewDecoder(bytes.NewReader(input))}
	w.dec.UseNumber()
	if err := w.value([]map[string]any{s.root}, ""); err != nil || len(w.edits) == 0 {
		return input
	}
	out := make([]byte, 0, len(input))
	last := int64(0)
	for _, e := range w.edits {
		out = append(out, input[last:e.start]...)
		out = append(out, e.digits...)
		last = e.end
	}
	return append(out, input[last:]...)
}

// hasFractionOrExponent reports whether a number literal outside the strings
// of input has a '.' or an exponent: a cheap test that spares the walk for
// almost every call.
func hasFractionOrExponent(input []byte) bool {
	for i := 0; i < len(input); i++ {
		switch c := input[i]; c {
		case '"':
			for i++; i < len(input) && input[i] != '"'; i++ {
				if input[i] == '\\' {
					i++
				}
			}
		case '.':
			return true
		case 'e', 'E':
			if i > 0 && '0' <= input[i-1] && input[i-1] <= '9' {
				return true
			}
		}
	}
	return false
}

// mentionsInteger reports whether a schema has "integer" among the types of
// any of its subschemas.
func mentionsInteger(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if k == "type" && (sub == "integer" || isArrayWith(sub, "integer")) {
				return true
			}
			if k != "enum" && k != "const" && k != "default" && k != "examples" && mentionsInteger(sub) {
				return true
			}
		}
	case []any:
		for _, sub := range x {
			if mentionsInteger(sub) {
				return true
			}
		}
	}
	return false
}

func isArrayWith(v any, s string) bool {
	arr, ok := v.([]any)
	if !ok {
		return false
	}
	for _, x := range arr {
		if x == s {
			return true
		}
	}
	return false
}

// checkIntegerRange returns the error, addressed to the model, for a whole
// number at an integer location of the schema that no Go int64 holds
// (99999999999999999999, 1e30): a tool written in Go decodes its integers
// into int or int64, so such a number is an invalid input, refused with the
// schema's other violations (and not by the tool's decoder, as a failed
// call). The number is named, cut short if it is long. Inputs without a
// number of 19 digits or more, or with an exponent, are not walked.
func (s *compiledSchema) checkIntegerRange(name string, input json.RawMessage) error {
	if !s.hasInt || !hasLongNumber(input) {
		return nil
	}
	w := &numWalker{root: s.root, dec: json.NewDecoder(bytes.NewReader(input)), checkRange: true}
	w.dec.UseNumber()
	if err := w.value([]map[string]any{s.root}, ""); err != nil || w.bad == nil {
		return nil
	}
	return fmt.Errorf("Input validation failed for tool '%s': %s. Fix the arguments to match the tool's input schema.", name, w.bad.Error())
}

// decodesInGo reports whether a tool's integers must fit an int64: every
// tool's but an MCP server's ("mcp__server__tool"), which gets them as
// written.
func decodesInGo(info Info) bool { return !strings.HasPrefix(info.Name, "mcp__") }

// hasLongNumber reports whether a number literal outside the strings of
// input has 19 digits or more, or an exponent: the only ones that can be
// out of the range of an int64.
func hasLongNumber(input []byte) bool {
	run := 0
	for i := 0; i < len(input); i++ {
		switch c := input[i]; {
		case c == '"':
			run = 0
			for i++; i < len(input) && input[i] != '"'; i++ {
				if input[i] == '\\' {
					i++
				}
			}
		case '0' <= c && c <= '9':
			if run++; run >= 19 {
				return true
			}
		case c == 'e' || c == 'E':
			if run > 0 {
				return true
			}
		default:
			run = 0
		}
	}
	return false
}

// int64Range is what an integer location admits.
const int64Range = "an integer from -9223372036854775808 to 9223372036854775807"

// rangeError is the fieldErr of a number out of the range of an int64.
func rangeError(path, lit string) *fieldErr {
	if len(lit) > 40 {
		lit = fmt.Sprintf("%s… (a number of %d characters)", lit[:24], len(lit))
	}
	return &fieldErr{path: clip.String(path, maxEcho), msg: "must be " + int64Range + ", not " + lit}
}

type numEdit struct {
	start, end int64
	digits     string
}

// numWalker walks an input with a token decoder, carrying the schemas that
// apply at each location, and records the literals to rewrite.
type numWalker struct {
	root  map[string]any
	dec   *json.Decoder
	edits []numEdit

	checkRange bool      // look for integers out of the range of an int64
	bad        *fieldErr // the first one found
}

func (w *numWalker) value(schemas []map[string]any, path string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	schemas = w.expand(schemas, nil, 0)
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			for w.dec.More() {
				k, err := w.dec.Token()
				if err != nil {
					return err
				}
				key, _ := k.(string)
				if err := w.value(property(schemas, key), join(path, key)); err != nil {
					return err
				}
			}
		case '[':
			for i := 0; w.dec.More(); i++ {
				if err := w.value(item(schemas, i), path+"["+strconv.Itoa(i)+"]"); err != nil {
					return err
				}
			}
		}
		_, err = w.dec.Token()
		return err
	case json.Number:
		lit := string(t)
		if w.checkRange {
			if w.bad == nil && wantsInteger(schemas) {
				if d, ok := integerDigits(lit); !ok || !fitsInt64(d) {
					w.bad = rangeError(path, lit)
				}
			}
			return nil
		}
		if !strings.ContainsAny(lit, ".eE") || !wantsInteger(schemas) {
			return nil
		}
		if d, ok := integerDigits(lit); ok {
			end := w.dec.InputOffset()
			w.edits = append(w.edits, numEdit{end - int64(len(lit)), end, d})
		}
	}
	return nil
}

// expand adds to out the schemas that apply along with those given: the
// targets of local $refs and the branches of allOf, anyOf and oneOf.
func (w *numWalker) expand(schemas, out []map[string]any, depth int) []map[string]any {
	if depth > 32 { // a $ref cycle that never reaches a value
		return out
	}
	for _, s := range schemas {
		if slices.ContainsFunc(out, func(o map[string]any) bool {
			return reflect.ValueOf(o).UnsafePointer() == reflect.ValueOf(s).UnsafePointer()
		}) {
			continue
		}
		out = append(out, s)
		if ref, ok := s["$ref"].(string); ok {
			if t := resolveRef(w.root, ref); t != nil {
				out = w.expand([]map[string]any{t}, out, depth+1)
			}
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			if arr, ok := s[k].([]any); ok {
				out = w.expand(schemaList(arr), out, depth+1)
			}
		}
	}
	return out
}

func schemaList(arr []any) []map[string]any {
	var out []map[string]any
	for _, v := range arr {
		if m, ok := v.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// resolveRef resolves a local JSON pointer ("#", "#/$defs/Item").
func resolveRef(root map[string]any, ref string) map[string]any {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	var cur any = root
	for part := range strings.SplitSeq(strings.TrimPrefix(p, "/"), "/") {
		if part == "" {
			continue
		}
		part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		switch c := cur.(type) {
		case map[string]any:
			cur = c[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	m, _ := cur.(map[string]any)
	return m
}

// property returns the schemas of the property key under schemas.
func property(schemas []map[string]any, key string) []map[string]any {
	var out []map[string]any
	for _, s := range schemas {
		found := false
		if props, ok := s["properties"].(map[string]any); ok {
			if p, ok := props[key].(map[string]any); ok {
				out, found = append(out, p), true
			}
		}
		if pp, ok := s["patternProperties"].(map[string]any); ok {
			for pat, sub := range pp {
				if m, ok := sub.(map[string]any); ok {
					if re, err := regexp.Compile(pat); err == nil && re.MatchString(key) {
						out, found = append(out, m), true
					}
				}
			}
		}
		if a, ok := s["additionalProperties"].(map[string]any); ok && !found {
			out = append(out, a)
		}
	}
	return out
}

// item returns the schemas of the i-th item under schemas.
func item(schemas []map[string]any, i int) []map[string]any {
	var out []map[string]any
	for _, s := range schemas {
		if prefix, ok := s["prefixItems"].([]any); ok && i < len(prefix) {
			if m, ok := prefix[i].(map[string]any); ok {
				out = append(out, m)
			}
			continue
		}
		switch it := s["items"].(type) {
		case map[string]any:
			out = append(out, it)
		case []any: // the tuple form of older drafts
			if i < len(it) {
				if m, ok := it[i].(map[string]any); ok {
					out = append(out, m)
				}
			} else if a, ok := s["additionalItems"].(map[string]any); ok {
				out = append(out, a)
			}
		}
	}
	return out
}

func wantsInteger(schemas []map[string]any) bool {
	for _, s := range schemas {
		if t := s["type"]; t == "integer" || isArrayWith(t, "integer") {
			return true
		}
	}
	return false
}

// integerDigits returns the plain digits of a JSON number literal that is a
// whole number ("2.0" → "2", "1e3" → "1000", "-0.0" → "0"), exactly (no
// float rounding). It fails for a fraction, and for a number of more than 20
// digits, which no Go integer holds.
func integerDigits(lit string) (string, bool) {
	neg := strings.HasPrefix(lit, "-")
	mant, expPart, hasExp := strings.Cut(strings.ToLower(strings.TrimPrefix(lit, "-")), "e")
	exp := 0
	if hasExp {
		e, err := strconv.Atoi(expPart)
		if err != nil || e > 1000 || e < -1000 {
			return "", false
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	if digits == "" {
		return "0", true
	}
	for exp < 0 && strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		exp++
	}
	if exp < 0 || len(digits)+exp > 20 {
		return "", false
	}
	digits += strings.Repeat("0", exp)
	if neg {
		digits = "-" + digits
	}
	return digits, true
}

func fitsInt64(digits string) bool {
	_, err := strconv.ParseInt(digits, 10, 64)
	return err == nil
}
