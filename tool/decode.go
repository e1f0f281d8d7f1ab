package tool

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolscope/toolscope/internal/clip"
)

// InputError says what is wrong with JSON that does not fit the Go value it
// is decoded into, in terms a model or a user can act on: which field, what
// it must be, what it is. [DecodeInput] returns it.
type InputError struct {
	// Field is the path of the value at fault ("timeout", "edits[1].old_string"),
	// "" for the input as a whole or when it cannot be told.
	Field string
	// Want says what the value must be ("an integer", "an array of strings");
	// Got says what it is ("2.5", `a string ("5")`). Both are "" when Err
	// tells what is wrong instead.
	Want, Got string
	// Err is the failure when it is not a value of the wrong type: the input
	// is not valid JSON, or a value's own decoder refused it (a rule that
	// does not parse).
	Err error
}

// Error is addressed to the model: what is wrong, and to fix it and call again.
func (e *InputError) Error() string {
	return "Invalid input: " + e.detail() + ". Fix the input and call the tool again."
}

// Unwrap returns Err.
func (e *InputError) Unwrap() error { return e.Err }

// detail is the message without its frame: `field "n" must be an integer, not 2.5`.
func (e *InputError) detail() string {
	field := clip.String(e.Field, maxEcho)
	switch {
	case e.Want != "" && e.Field != "":
		return fmt.Sprintf("field %q must be %s, not %s", field, e.Want, e.Got)
	case e.Want != "":
		return fmt.Sprintf("the input must be %s, not %s", e.Want, e.Got)
	case e.Field != "":
		return fmt.Sprintf("field %q: %v", field, e.Err)
	}
	return e.Err.Error()
}

// DecodeInput decodes a call's input into v, as json.Unmarshal does, and on
// failure returns an [*InputError] whose text the model can act on: the
// field at fault, what its type must be, what was given ("field "timeout"
// must be an integer, not 2.5"), never the Go decoder's own wording. Empty
// input decodes as {}.
//
// Tools call it instead of json.Unmarshal. The toolkit has validated the
// input against the tool's schema by then, and rewritten whole numbers
// written as 2.0 or 1e3 where the schema wants an integer, so a failure
// here means the schema and the Go type disagree, or the tool was called
// outside a toolkit.
func DecodeInput(input json.RawMessage, v any) error {
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage(`{}`)
	}
	return decodeJSON(input, v)
}

// decodeJSON is json.Unmarshal with errors made readable (see [DecodeInput]).
func decodeJSON(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	return describeDecodeError(data, err)
}

func describeDecodeError(data []byte, err error) error {
	var (
		ie  *InputError
		se  *json.SyntaxError
		te  *json.UnmarshalTypeError
		pe  *time.ParseError
		bad *json.InvalidUnmarshalError
	)
	switch {
	case errors.As(err, &ie):
		return ie
	case errors.As(err, &bad):
		return fmt.Errorf("tool.DecodeInput: %v", err) // the caller's bug, not the input's
	case errors.As(err, &se):
		return &InputError{Err: errors.New("not valid JSON: " + describeJSONError(data, err))}
	case errors.As(err, &te):
		return typeError(data, te)
	case errors.As(err, &pe):
		e := &InputError{Want: timeWant, Got: "a string (" + short(pe.Value) + ")"}
		if v, ok := findValue(data, func(v jsonValue) bool { return v.kind == "string" && v.str == pe.Value }); ok {
			e.Field = v.path
		}
		return e
	case strings.HasPrefix(err.Error(), "Time.UnmarshalJSON"):
		return &InputError{Err: errors.New("a time must be " + timeWant)}
	}
	return &InputError{Err: errors.New(strings.TrimPrefix(err.Error(), "json: "))}
}

const timeWant = `a time such as "2006-01-02T15:04:05Z" (RFC 3339)`

// typeError describes a value of the wrong JSON type for its Go field. The Go
// error's Field has no array indexes and no map keys, and its Offset is
// relative to the innermost custom decoder, so the value is looked up in the
// input: the one ending at Offset if it fits, else the first of the right kind
// on a path that fits.
func typeError(data []byte, te *json.UnmarshalTypeError) *InputError {
	kind, lit, _ := strings.Cut(te.Value, " ")
	if kind == "bool" {
		kind = "boolean"
	}
	fits := func(v jsonValue) bool {
		return v.kind == kind && (lit == "" || v.lit == lit) && subsequence(strings.Split(te.Field, "."), v.keys)
	}
	v, ok := findValue(data, func(v jsonValue) bool { return v.end == te.Offset && fits(v) })
	if !ok {
		v, ok = findValue(data, fits)
	}
	e := &InputError{Field: te.Field}
	if ok {
		e.Field, e.Got = v.path, v.describe()
	} else if lit != "" {
		e.Got = lit
	} else {
		e.Got = article(kind) + " " + kind
	}
	e.Want = describeType(te.Type, lit)
	return e
}

// subsequence reports whether want (a Go error's Field, whose map keys are
// missing) appears in order in keys.
func subsequence(want, keys []string) bool {
	if len(want) == 1 && want[0] == "" {
		return true
	}
	i := 0
	for _, k := range keys {
		if i < len(want) && k == want[i] {
			i++
		}
	}
	return i == len(want)
}

// jsonValue is one value of a JSON document, as findValue sees it.
type jsonValue struct {
	path string   // "a.b[2].c"
	keys []string // the object keys on the path: a, b, c
	kind string   // "object", "array", "string", "number", "boolean", "null"
	lit  string   // a number's literal
	str  string   // a string's value
	b    bool
	end  int64 // the offset after the value (after the opening delimiter for objects and arrays)
}

func (v jsonValue) describe() string {
	switch v.kind {
	case "number":
		return v.lit
	case "string":
		return "a string (" + short(v.str) + ")"
	case "boolean":
		return "a boolean (" + strconv.FormatBool(v.b) + ")"
	case "object", "array":
		return article(v.kind) + " " + v.kind
	}
	return v.kind
}

// findValue walks data and returns the first value for which ok holds.
func findValue(data []byte, ok func(jsonValue) bool) (jsonValue, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var found jsonValue
	var walk func(path string, keys []string) (bool, error)
	walk = func(path string, keys []string) (bool, error) {
		tok, err := dec.Token()
		if err != nil {
			return false, err
		}
		v := jsonValue{path: path, keys: keys, end: dec.InputOffset()}
		switch t := tok.(type) {
		case json.Delim:
			v.kind = map[json.Delim]string{'{': "object", '[': "array"}[t]
		case string:
			v.kind, v.str = "string", t
		case json.Number:
			v.kind, v.lit = "number", string(t)
		case bool:
			v.kind, v.b = "boolean", t
		case nil:
			v.kind = "null"
		}
		if ok(v) {
			found = v
			return true, nil
		}
		switch v.kind {
		case "object":
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return false, err
				}
				key, _ := k.(string)
				if done, err := walk(join(path, key), append(slices.Clip(keys), key)); done || err != nil {
					return done, err
				}
			}
			_, err = dec.Token()
		case "array":
			for i := 0; dec.More(); i++ {
				if done, err := walk(path+"["+strconv.Itoa(i)+"]", keys); done || err != nil {
					return done, err
				}
			}
			_, err = dec.Token()
		}
		return false, err
	}
	done, _ := walk("", nil)
	return found, done
}

// describeType says what JSON a Go type accepts. lit is the number that did
// not fit, if a number was given: a whole number out of range gets the range.
func describeType(t reflect.Type, lit string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case reflect.TypeFor[time.Time]():
		return timeWant
	case reflect.TypeFor[json.RawMessage]():
		return "a JSON value"
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) && !reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return "a string"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		lo, hi := int64(-1)<<(t.Bits()-1), int64(1)<<(t.Bits()-1)-1
		return integerWant("an integer", lit, fmt.Sprintf("%d to %d", lo, hi), func(d string) bool {
			_, err := strconv.ParseInt(d, 10, t.Bits())
			return err == nil
		})
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return integerWant("a non-negative integer", lit, fmt.Sprintf("0 to %d", uint64(math.MaxUint64)>>(64-t.Bits())), func(d string) bool {
			_, err := strconv.ParseUint(d, 10, t.Bits())
			return err == nil
		})
	case reflect.Float32, reflect.Float64:
		if lit != "" {
			return "a number within the range of a " + strconv.Itoa(t.Bits()) + "-bit float"
		}
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean (true or false)"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64-encoded string"
		}
		return "an array of " + plural(t.Elem())
	case reflect.Array:
		return fmt.Sprintf("an array of %d %s", t.Len(), plural(t.Elem()))
	case reflect.Map:
		if e := t.Elem(); e.Kind() == reflect.Interface || e == reflect.TypeFor[json.RawMessage]() {
			return "an object"
		}
		return "an object whose values are " + plural(t.Elem())
	case reflect.Struct:
		return "an object"
	}
	return "a JSON value"
}

// integerWant says what an integer field wants, given the number lit that did
// not fit ("" if the value was not a number): a whole number, one within
// range (between, e.g. "0 to 255"), or one without a fraction or exponent.
func integerWant(what, lit, between string, fits func(digits string) bool) string {
	if lit == "" {
		return what
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || f != math.Trunc(f) {
		return what + " (a whole number)"
	}
	if d, ok := integerDigits(lit); ok && d != lit && fits(d) {
		return "an integer written without a fraction or an exponent (" + d + ")"
	}
	return "an integer from " + between
}

// plural names the values of type t in the plural: "strings", "integers".
func plural(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface {
		return "any JSON values"
	}
	s := describeType(t, "")
	switch {
	case strings.HasPrefix(s, "an array"):
		return "arrays"
	case strings.HasPrefix(s, "an object"):
		return "objects"
	case strings.HasPrefix(s, "a boolean"):
		return "booleans"
	case strings.HasPrefix(s, "a base64"):
		return "base64-encoded strings"
	}
	_, noun, _ := strings.Cut(s, " ")
	return noun + "s"
}

// errorText describes err for the model when it may come from decoding JSON:
// an [*InputError]'s detail, any other error's text.
func errorText(err error) string {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie.detail()
	}
	return err.Error()
}
