package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

type Address struct {
	Street string `json:"street"`
	Zip    string `json:"zip,omitempty" jsonschema:"postal code"`
}

type OrderInput struct {
	Customer string            `json:"customer" jsonschema:"who orders"`
	Items    []Item            `json:"items"`
	Ship     *Address          `json:"ship,omitempty"`
	Notes    map[string]string `json:"notes,omitempty"`
	Speed    string            `json:"speed,omitempty" enum:"slow,fast"`
	Tags     []string          `json:"tags,omitempty" enum:"gift,urgent"`
	Priority int               `json:"priority,omitempty" enum:"1,2,3"`
}

type Item struct {
	SKU   string `json:"sku"`
	Count int    `json:"count"`
}

func placeOrder(_ context.Context, in OrderInput) (map[string]any, error) {
	if in.Customer == "fail" {
		return nil, errors.New("customer is blocked")
	}
	return map[string]any{"customer": in.Customer, "items": len(in.Items), "note": "<ok>"}, nil
}

func TestFunctionSchema(t *testing.T) {
	f, err := tool.NewFunction("Place an order.", placeOrder, nil)
	if err != nil {
		t.Fatal(err)
	}
	info := f.Info()
	if info.Name != "placeOrder" || !info.ConcurrencySafe || info.ReadOnly {
		t.Fatalf("info: %+v", info)
	}
	var got, want any
	json.Unmarshal(info.InputSchema, &got)
	json.Unmarshal([]byte(`{
	  "type":"object","additionalProperties":false,"required":["customer","items"],
	  "properties":{
	    "customer":{"type":"string","description":"who orders"},
	    "items":{"type":["null","array"],"items":{"type":"object","additionalProperties":false,"required":["sku","count"],
	       "properties":{"sku":{"type":"string"},"count":{"type":"integer"}}}},
	    "ship":{"type":["null","object"],"additionalProperties":false,"required":["street"],
	       "properties":{"street":{"type":"string"},"zip":{"type":"string","description":"postal code"}}},
	    "notes":{"type":"object","additionalProperties":{"type":"string"}},
	    "speed":{"type":"string","enum":["slow","fast"]},
	    "tags":{"type":["null","array"],"items":{"type":"string","enum":["gift","urgent"]}},
	    "priority":{"type":"integer","enum":[1,2,3]}
	  }}`), &want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("schema (-want +got):\n%s", diff)
	}
}

func TestFunctionCall(t *testing.T) {
	f, _ := tool.NewFunction("Place an order.", placeOrder, nil)
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{f}})
	if err != nil {
		t.Fatal(err)
	}
	st := tool.NewState(nil)
	in := json.RawMessage(`{"customer":"ann","items":[{"sku":"a","count":2}]}`)
	r, _ := tk.Call(context.Background(), &tool.Call{Name: "placeOrder", Input: in, State: st})
	if r.Status != tool.StatusAsking || r.Decision.Message != "Permission required for placeOrder" {
		t.Fatalf("default permission: %+v", r.Decision)
	}
	st.AddRule(permission.Rule{Tool: "placeOrder", Behavior: permission.Allow})
	r, _ = tk.Call(context.Background(), &tool.Call{Name: "placeOrder", Input: in, State: st})
	if r.Status != tool.StatusSuccess || r.Text() != `{"customer":"ann","items":1,"note":"<ok>"}` {
		t.Fatalf("call: %s %q", r.Status, r.Text())
	}
	r, _ = tk.Call(context.Background(), &tool.Call{Name: "placeOrder", Input: json.RawMessage(`{"customer":"fail","items":[]}`), State: st})
	if r.Status != tool.StatusError || r.Text() != "customer is blocked" {
		t.Fatalf("error: %s %q", r.Status, r.Text())
	}
	r, _ = tk.Call(context.Background(), &tool.Call{Name: "placeOrder", Input: json.RawMessage(`{"customer":"x","items":[],"speed":"warp"}`), State: st})
	if r.Status != tool.StatusError || !strings.Contains(r.Text(), `field "speed" must be one of "slow", "fast"; got "warp"`) {
		t.Fatalf("enum: %s %q", r.Status, r.Text())
	}
}

func TestFunctionOptions(t *testing.T) {
	if _, err := tool.NewFunction("", placeOrder, nil); err == nil {
		t.Error("missing description accepted")
	}
	anon := func(_ context.Context, in struct {
		X string `json:"x"`
	}) (string, error) {
		return "x=" + in.X, nil
	}
	if _, err := tool.NewFunction("d", anon, nil); err == nil || !strings.Contains(err.Error(), "set FunctionOptions.Name") {
		t.Errorf("anonymous function: %v", err)
	}
	f, err := tool.NewFunction("d", anon, &tool.FunctionOptions{Name: "show", ReadOnly: true, Serial: true})
	if err != nil {
		t.Fatal(err)
	}
	if i := f.Info(); i.Name != "show" || !i.ReadOnly || i.ConcurrencySafe {
		t.Fatalf("info %+v", i)
	}
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{f}})
	r, _ := tk.Call(context.Background(), &tool.Call{Name: "show", Input: json.RawMessage(`{"x":"1"}`)})
	if r.Status != tool.StatusSuccess || r.Text() != "x=1" || r.Decision.Reason != "Read-only operations are auto-allowed" {
		t.Fatalf("read-only function: %+v", r)
	}
	if _, err := tool.NewFunction("d", anon, &tool.FunctionOptions{Name: "x", InputSchema: json.RawMessage(`{"type":"array"}`)}); err == nil {
		t.Error("array schema accepted")
	}
}

func BenchmarkToolkitCall(b *testing.B) {
	type in struct {
		Text string `json:"text"`
		N    int    `json:"n,omitempty"`
	}
	f, err := tool.NewFunction("no-op", func(_ context.Context, x in) (string, error) { return x.Text, nil },
		&tool.FunctionOptions{Name: "noop"})
	if err != nil {
		b.Fatal(err)
	}
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{f}})
	st := tool.NewState(&permission.Context{Mode: permission.Default, Allow: []permission.Rule{{Tool: "noop", Behavior: permission.Allow}}})
	c := &tool.Call{ID: "1", Name: "noop", Input: json.RawMessage(`{"text":"hello","n":3}`), State: st}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := tk.Call(ctx, c)
		if err != nil || r.Status != tool.StatusSuccess {
			b.Fatal(r, err)
		}
	}
}
