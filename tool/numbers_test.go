package tool_test

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// inputTool records the input its permission check and its Call saw, and
// decodes it with tool.DecodeInput into typed fields.
type inputTool struct {
	name    string
	schema  string
	checked json.RawMessage
	got     json.RawMessage
}

func (c *inputTool) Info() tool.Info {
	return tool.Info{Name: c.name, Description: "records its input", InputSchema: json.RawMessage(c.schema)}
}

func (c *inputTool) CheckPermissions(_ context.Context, in json.RawMessage, _ *permission.Context) (permission.Decision, error) {
	c.checked = in
	return permission.Decision{Behavior: permission.Allow, Message: "ok"}, nil
}

func (c *inputTool) Call(_ context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		c.got = call.Input
		var in struct {
			N    int   `json:"n"`
			List []int `json:"list"`
			R    int   `json:"r"`
			U    any   `json:"u"`
		}
		if err := tool.DecodeInput(call.Input, &in); err != nil {
			yield(tool.Errorf("%v", err), nil)
			return
		}
		yield(tool.Text("ok"), nil)
	}
}

func TestIntegerLiterals(t *testing.T) {
	fast := `{"type":"object","properties":{
		"n":{"type":"integer"},"f":{"type":"number"},"s":{"type":"string"},"free":{},
		"list":{"type":"array","items":{"type":"integer"}},
		"obj":{"type":"object","properties":{"k":{"type":["integer","null"]}},"additionalProperties":{"type":"integer"}}}}`
	full := `{"type":"object","$defs":{"I":{"type":"integer"}},"properties":{
		"r":{"$ref":"#/$defs/I"},
		"u":{"anyOf":[{"type":"string"},{"type":"integer"}]},
		"t":{"type":"array","prefixItems":[{"type":"number"},{"type":"integer"}]},
		"p":{"type":"object","patternProperties":{"^i_":{"type":"integer"}}}}}`
	for _, tt := range []struct {
		schema, in, want string
	}{
		// Whole numbers at integer locations become digits; nothing else moves.
		{fast, `{"n":2.0}`, `{"n":2}`},
		{fast, `{ "n" : 1e3 , "s" : "1.0" }`, `{ "n" : 1000 , "s" : "1.0" }`},
		{fast, `{"n":2.50e1}`, `{"n":25}`},
		{fast, `{"n":-0.0}`, `{"n":0}`},
		{fast, `{"n":1E+2}`, `{"n":100}`},
		{fast, `{"n":1234567890123456789.0}`, `{"n":1234567890123456789}`}, // exact: float64 would round it
		{fast, `{"list":[1.0, 2e0, 3]}`, `{"list":[1, 2, 3]}`},
		{fast, `{"obj":{"k":4.0,"extra":5.0}}`, `{"obj":{"k":4,"extra":5}}`},
		// Numbers where the schema wants a number, or says nothing, keep
		// their literal; so do strings.
		{fast, `{"f":2.0,"free":3.0,"s":"4.0","n":1}`, `{"f":2.0,"free":3.0,"s":"4.0","n":1}`},
		{fast, `{"free":{"n":2.0}}`, `{"free":{"n":2.0}}`},
		// Too large for an int64: refused with the schema's violations;
		// the tool never runs.
		{fast, `{"n":1e30}`, ``},
		// Through $ref, anyOf, prefixItems and patternProperties (the full validator).
		{full, `{"r":7.0,"u":8.0,"t":[1.0,2.0],"p":{"i_x":3.0,"y":4.0}}`, `{"r":7,"u":8,"t":[1.0,2],"p":{"i_x":3,"y":4.0}}`},
	} {
		c := &inputTool{name: "rec", schema: tt.schema}
		tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{c}})
		r := call(t, tk, &tool.Call{ID: "1", Name: "rec", Input: json.RawMessage(tt.in)})
		if string(c.got) != tt.want || string(c.checked) != tt.want {
			t.Errorf("%s: the tool got %s, its permission check %s; want %s", tt.in, c.got, c.checked, tt.want)
		}
		if strings.Contains(tt.in, "1e30") {
			want := `Input validation failed for tool 'rec': field "n" must be an integer from -9223372036854775808 to 9223372036854775807, not 1e30. Fix the arguments to match the tool's input schema.`
			if r.Status != tool.StatusError || r.Text() != want {
				t.Errorf("%s: %s %q, want %q", tt.in, r.Status, r.Text(), want)
			}
		} else if strings.Contains(tt.schema, `"n"`) && strings.Contains(tt.in, `"n"`) && r.Status != tool.StatusSuccess {
			t.Errorf("%s: %s %s", tt.in, r.Status, r.Text())
		}
	}
}

// TestFunctionIntegerInput: a function tool with int fields accepts what
// JSON Schema calls integers, written any way.
func TestFunctionIntegerInput(t *testing.T) {
	type AddInput struct {
		A int   `json:"a"`
		B int64 `json:"b"`
	}
	add, err := tool.NewFunction("Add.", func(_ context.Context, in AddInput) (int64, error) { return int64(in.A) + in.B, nil }, &tool.FunctionOptions{Name: "add"})
	if err != nil {
		t.Fatal(err)
	}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{add}})
	st := tool.NewState(&permission.Context{Mode: permission.Bypass})
	r := call(t, tk, &tool.Call{ID: "1", Name: "add", Input: json.RawMessage(`{"a":2.0,"b":1e3}`), State: st})
	if r.Status != tool.StatusSuccess || r.Text() != "1002" {
		t.Fatalf("%s: %s", r.Status, r.Text())
	}
	r = call(t, tk, &tool.Call{ID: "1", Name: "add", Input: json.RawMessage(`{"a":2.5,"b":1}`), State: st})
	if r.Status != tool.StatusError || !strings.Contains(r.Text(), `field "a" must be an integer`) {
		t.Fatalf("a fraction: %s: %s", r.Status, r.Text())
	}
}

// TestFunctionBadInput: input that passes the schema but not the Go type
// (the schema was given by hand, or a number is out of range) gets a message
// naming the field, never Go's decoder text.
func TestFunctionBadInput(t *testing.T) {
	type In struct {
		N     int      `json:"n"`
		Tags  []string `json:"tags"`
		Inner struct {
			U uint8 `json:"u"`
		} `json:"inner"`
	}
	fn := func(_ context.Context, in In) (string, error) { return "ran", nil }
	loose, err := tool.NewFunction("Loose schema.", fn, &tool.FunctionOptions{Name: "loose", InputSchema: json.RawMessage(`{"type":"object"}`)})
	if err != nil {
		t.Fatal(err)
	}
	inferred, err := tool.NewFunction("Inferred schema.", fn, &tool.FunctionOptions{Name: "inferred"})
	if err != nil {
		t.Fatal(err)
	}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{loose, inferred}})
	st := tool.NewState(&permission.Context{Mode: permission.Bypass})
	for _, tt := range []struct{ name, in, want string }{
		{"loose", `{"n":"5"}`, `Invalid input for tool 'loose': field "n" must be an integer, not a string ("5"). Fix the input and call the tool again.`},
		{"loose", `{"tags":"a"}`, `Invalid input for tool 'loose': field "tags" must be an array of strings, not a string ("a"). Fix the input and call the tool again.`},
		{"loose", `{"inner":{"u":256}}`, `Invalid input for tool 'loose': field "inner.u" must be an integer from 0 to 255, not 256. Fix the input and call the tool again.`},
		{"loose", `{"n":2.0}`, `ran`}, // the loose schema says nothing of n: the literal stays, and Go refuses it
		{"inferred", `{"n":1e30,"tags":[],"inner":{"u":1}}`, `Input validation failed for tool 'inferred': field "n" must be an integer from -9223372036854775808 to 9223372036854775807, not 1e30. Fix the arguments to match the tool's input schema.`},
		{"inferred", `{"n":"x","tags":[],"inner":{"u":1}}`, `Input validation failed for tool 'inferred': field "n" must be an integer, not a string ("x"). Fix the arguments to match the tool's input schema.`},
		{"inferred", `{"n":3.0,"tags":null,"inner":{"u":1.0}}`, `ran`},
	} {
		r := call(t, tk, &tool.Call{ID: "1", Name: tt.name, Input: json.RawMessage(tt.in), State: st})
		if tt.want == "ran" && tt.in == `{"n":2.0}` {
			// Documented: without an integer location in the schema, 2.0 is
			// passed as written, and the Go decoder's refusal is readable.
			if !strings.Contains(r.Text(), `field "n" must be an integer written without a fraction or an exponent (2), not 2.0`) {
				t.Errorf("%s %s: %s", tt.name, tt.in, r.Text())
			}
			continue
		}
		if r.Text() != tt.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tt.name, tt.in, r.Text(), tt.want)
		}
		for _, g := range goTexts {
			if strings.Contains(r.Text(), g) {
				t.Errorf("%s %s: Go's wording %q in %q", tt.name, tt.in, g, r.Text())
			}
		}
	}
}
