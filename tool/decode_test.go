package tool_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

type decodeTarget struct {
	A     int                 `json:"a"`
	I8    int8                `json:"i8"`
	U     uint                `json:"u"`
	S     string              `json:"s"`
	OK    bool                `json:"ok"`
	F     float64             `json:"f"`
	L     []string            `json:"l"`
	B     []struct{ C uint8 } `json:"b"`
	M     map[string]int      `json:"m"`
	T     time.Time           `json:"t"`
	Rules []permission.Rule   `json:"rules"`
	Mode  permission.Mode     `json:"mode"`
	Data  []byte              `json:"data"`
	Any   any                 `json:"any"`
}

// goTexts are pieces of Go's decoder messages that must never reach a model
// or a user.
var goTexts = []string{"json:", "Go struct", "Go value", "cannot unmarshal", "main.", "tool_test.", "UnmarshalJSON", "unmarshal"}

func TestDecodeInput(t *testing.T) {
	for _, tt := range []struct {
		in          string
		field, want string // the InputError's Field, and the message's text
	}{
		{`{"a":2.5}`, "a", `field "a" must be an integer (a whole number), not 2.5`},
		{`{"a":1e30}`, "a", `field "a" must be an integer from -9223372036854775808 to 9223372036854775807, not 1e30`},
		{`{"a":2.0}`, "a", `field "a" must be an integer written without a fraction or an exponent (2), not 2.0`},
		{`{"a":"2"}`, "a", `field "a" must be an integer, not a string ("2")`},
		{`{"i8":300}`, "i8", `field "i8" must be an integer from -128 to 127, not 300`},
		{`{"u":-1}`, "u", `field "u" must be an integer from 0 to 18446744073709551615, not -1`},
		{`{"u":0.5}`, "u", `field "u" must be a non-negative integer (a whole number), not 0.5`},
		{`{"b":[{"C":1},{"C":300}]}`, "b[1].C", `field "b[1].C" must be an integer from 0 to 255, not 300`},
		{`{"b":{}}`, "b", `field "b" must be an array of objects, not an object`},
		{`{"m":{"k":1,"j":"x"}}`, "m.j", `field "m.j" must be an integer, not a string ("x")`},
		{`{"s":1}`, "s", `field "s" must be a string, not 1`},
		{`{"ok":"yes"}`, "ok", `field "ok" must be a boolean (true or false), not a string ("yes")`},
		{`{"f":"x"}`, "f", `field "f" must be a number, not a string ("x")`},
		{`{"f":1e400}`, "f", `field "f" must be a number within the range of a 64-bit float, not 1e400`},
		{`{"l":"x"}`, "l", `field "l" must be an array of strings, not a string ("x")`},
		{`{"l":["x",2]}`, "l[1]", `field "l[1]" must be a string, not 2`},
		{`{"m":[]}`, "m", `field "m" must be an object whose values are integers, not an array`},
		{`{"t":"yesterday"}`, "t", `field "t" must be a time such as "2006-01-02T15:04:05Z" (RFC 3339), not a string ("yesterday")`},
		{`{"data":5}`, "data", `field "data" must be a base64-encoded string, not 5`},
		{`{"mode":7}`, "mode", `field "mode" must be a string, not 7`},
		// A type error inside a value with its own decoder (Rule): the Go
		// error's offset is relative to that value; the field still comes out.
		{`{"s":"pad pad pad","rules":[{"tool":"Bash"},{"tool":3}]}`, "rules[1].tool", `field "rules[1].tool" must be a string, not 3`},
		{`[1]`, "", `the input must be an object, not an array`},
		{`"x"`, "", `the input must be an object, not a string ("x")`},
		{`{"a":`, "", `not valid JSON: unexpected end of JSON input (the input stops after 5 bytes; is a closing brace or quote missing?)`},
		{`{"a" 1}`, "", `not valid JSON: invalid character '1' after object key at line 1, column 6 (near "{\"a\" 1}")`},
		// A value's own decoder refused it: its message, without Go's prefix.
		{`{"rules":["Bash(x"]}`, "", `parse rule "Bash(x": missing the closing ')' at the end (escape a literal one as \))`},
		{`{"mode":"yolo"}`, "", `unknown permission mode "yolo" (want one of default, accept_edits, explore, bypass, dont_ask)`},
	} {
		var v decodeTarget
		err := tool.DecodeInput(json.RawMessage(tt.in), &v)
		var ie *tool.InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: err = %#v, want an *InputError", tt.in, err)
			continue
		}
		if ie.Field != tt.field {
			t.Errorf("%s: Field = %q, want %q", tt.in, ie.Field, tt.field)
		}
		want := "Invalid input: " + tt.want + ". Fix the input and call the tool again."
		if err.Error() != want {
			t.Errorf("%s:\n got %s\nwant %s", tt.in, err, want)
		}
		for _, g := range goTexts {
			if strings.Contains(err.Error(), g) {
				t.Errorf("%s: Go's wording %q in %q", tt.in, g, err)
			}
		}
	}

	var v decodeTarget
	if err := tool.DecodeInput(json.RawMessage(`{"a":3,"l":["x"],"any":1.5}`), &v); err != nil || v.A != 3 || v.L[0] != "x" || v.Any != 1.5 {
		t.Errorf("valid input: %v %+v", err, v)
	}
	if err := tool.DecodeInput(nil, &v); err != nil {
		t.Errorf("empty input: %v", err)
	}
}

// FuzzDecodeInput: whatever the input, DecodeInput's error speaks JSON, not
// Go.
func FuzzDecodeInput(f *testing.F) {
	for _, s := range []string{`{"a":2.5}`, `{"b":[{"C":-1}]}`, `{"m":{"k":[]}}`, `{"t":1}`, `{"rules":[{"tool":1}]}`, `{"rules":[7]}`, `{"data":"!"}`, `{"mode":""}`, `[`, `{"l":[[]]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var v decodeTarget
		err := tool.DecodeInput(json.RawMessage(in), &v)
		if err == nil {
			return
		}
		for _, g := range goTexts {
			if strings.Contains(err.Error(), g) {
				t.Fatalf("%q: Go's wording %q in %q", in, g, err)
			}
		}
	})
}
