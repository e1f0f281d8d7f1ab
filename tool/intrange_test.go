package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/tool"
)

// A whole number at an integer location that no int64 holds makes the call
// invalid (Check returns ErrInvalidInput, the tool never runs), wherever
// it is and however it is written; the limits themselves pass; an MCP
// tool gets such numbers as written. No error repeats more than a few
// dozen characters of a number, nor more than 200 bytes of a key.
func TestIntegerRange(t *testing.T) {
	schema := `{"type":"object","properties":{"n":{"type":"integer"},"f":{"type":"number"},
		"list":{"type":"array","items":{"type":"integer"}},"s":{"type":"string"}},"additionalProperties":false}`
	c := &inputTool{name: "rec", schema: schema}
	m := &inputTool{name: "mcp__srv__rec", schema: schema}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{c, m}})
	long := strings.Repeat("9", 50000)
	for _, tt := range []struct{ in, want string }{
		{`{"n":9223372036854775808}`, `field "n" must be an integer from -9223372036854775808 to 9223372036854775807, not 9223372036854775808`},
		{`{"n":-9223372036854775809}`, `not -9223372036854775809`},
		{`{"n":99999999999999999999}`, `not 99999999999999999999`},
		{`{"n":1e19}`, `not 1e19`},
		{`{"n":92233720368547758080e-1}`, `not 92233720368547758080e-1`},
		{`{"list":[1,2,1e300]}`, `field "list[2]" must be an integer from`},
		{`{"n":` + long + `}`, "(a number of 50000 characters)"},
		{`{"` + strings.Repeat("k", 1<<20) + `":1}`, `(1048576 bytes)`},
	} {
		_, err := tk.Check(context.Background(), &tool.Call{Name: "rec", Input: json.RawMessage(tt.in)})
		if !errors.Is(err, tool.ErrInvalidInput) || !strings.Contains(err.Error(), tt.want) || len(err.Error()) > 600 {
			t.Errorf("%.80s: %.700v, want ErrInvalidInput with %q", tt.in, err, tt.want)
		}
		c.got = nil
		if r := call(t, tk, &tool.Call{ID: "1", Name: "rec", Input: json.RawMessage(tt.in)}); r.Status != tool.StatusError || c.got != nil {
			t.Errorf("%.80s: %s, the tool ran: %v", tt.in, r.Status, c.got != nil)
		}
	}
	for _, in := range []string{`{"n":9223372036854775807}`, `{"n":-9223372036854775808}`, `{"n":9.223372036854775807e18}`, `{"n":92233720368547758070e-1}`,
		`{"f":1e300,"s":"99999999999999999999"}`, `{"list":[1,2.0,3e2]}`} {
		if _, err := tk.Check(context.Background(), &tool.Call{Name: "rec", Input: json.RawMessage(in)}); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
	if _, err := tk.Check(context.Background(), &tool.Call{Name: "mcp__srv__rec", Input: json.RawMessage(`{"n":99999999999999999999}`)}); err != nil {
		t.Errorf("MCP tool: %v", err)
	}
}

// An input whose object holds one key twice, or (for a tool decoded in
// Go) two keys equal but for case, is refused: encoding/json would run
// the last of them, {"command":"ls","Command":"rm"} would run "rm", and a
// reader that takes the exact or the first key would see another input
// than the one judged and run. An MCP tool's keys that differ by case
// are two keys to the server that gets them, and pass.
func TestAmbiguousKeysRefused(t *testing.T) {
	schema := `{"type":"object","properties":{"s":{"type":"string"},"o":{"type":"object"}}}`
	c := &inputTool{name: "rec", schema: schema}
	m := &inputTool{name: "mcp__srv__rec", schema: schema}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{c, m}})
	long := strings.Repeat("k", 100000)
	for _, tt := range []struct {
		name, in, want string
	}{
		{"rec", `{"s":"ls","S":"rm"}`, `both "s" and "S"`},
		{"rec", `{"s":"ls","\u0053":"rm"}`, `which name one parameter`},
		{"rec", `{"s":"ls","s":"rm"}`, `"s" twice`},
		{"rec", `{"o":{"a":1,"A":2}}`, `both "a" and "A"`},
		{"rec", `{"` + long + `":1,"` + long + `":2}`, `twice`},
		{"mcp__srv__rec", `{"s":"ls","s":"rm"}`, `"s" twice`},
		{"mcp__srv__rec", `{"o":{"x":[{"a":1,"a":2}]}}`, `"a" twice`},
	} {
		_, err := tk.Check(context.Background(), &tool.Call{Name: tt.name, Input: json.RawMessage(tt.in)})
		if !errors.Is(err, tool.ErrInvalidInput) || !strings.Contains(err.Error(), tt.want) || len(err.Error()) > 600 {
			t.Errorf("%s %.80s: %.700v, want ErrInvalidInput with %q", tt.name, tt.in, err, tt.want)
		}
	}
	for _, in := range []string{`{"o":{"Accept":"a","accept":"b"}}`, `{"s":"x","o":{"s":1,"S":2}}`} {
		if _, err := tk.Check(context.Background(), &tool.Call{Name: "mcp__srv__rec", Input: json.RawMessage(in)}); err != nil {
			t.Errorf("mcp__srv__rec %s: %v", in, err)
		}
	}
	if _, err := tk.Check(context.Background(), &tool.Call{Name: "rec", Input: json.RawMessage(`{"s":"x","o":{"a":{"s":1},"b":{"s":2}}}`)}); err != nil {
		t.Errorf("one key in each object: %v", err)
	}
}
