package mcp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/toolscope/toolscope/internal/peers"
	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// TestConformanceServer runs every server scenario each revision requires
// (and those it runs without scoring) against a toolscope mcp.Server over
// HTTP, stateful and stateless, serving the fixture tools the scenarios
// call (confTools), and compares the outcome with
// testdata/conformance-expected-REV.txt.
func TestConformanceServer(t *testing.T) {
	suite, node := peers.Need(t, confDir+"/dist/index.js", true)
	for _, r := range confRevisions {
		for _, leg := range r.legs {
			if leg == "client" {
				continue
			}
			t.Run(r.rev+"/"+leg, func(t *testing.T) {
				t.Parallel()
				url := confServer(t, leg == "stateless")
				out := runConformance(t, node, suite, nil, "server", "--url", url, "--requirements", r.rev)
				checkConformance(t, r.rev, leg, out)
			})
		}
	}
}

// confServer serves confTools over HTTP on a loopback port and returns
// the server's URL.
func confServer(t *testing.T, stateless bool) string {
	t.Helper()
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: confTools(t), Asker: mcp.ElicitAsker{}})
	if err != nil {
		t.Fatal(err)
	}
	// test_trigger_tool_change (server-stateless, 2026-07-28) changes the
	// tools served: it adds one to the Toolkit, which the server follows
	// and tells its clients of (tools/list_changed).
	added := 0
	var mu sync.Mutex
	trigger, err := tool.NewFunction("Adds a tool to the served ones.", func(context.Context, struct{}) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		added++
		name := fmt.Sprintf("added_%d", added)
		f, err := tool.NewFunction("A tool added by test_trigger_tool_change.", func(context.Context, struct{}) (string, error) {
			return "ok", nil
		}, &tool.FunctionOptions{Name: name, ReadOnly: true})
		if err != nil {
			return "", err
		}
		return "added " + name, tk.Add(tool.BasicGroup, f)
	}, &tool.FunctionOptions{Name: "test_trigger_tool_change", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := tk.Add(tool.BasicGroup, trigger); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h, err := mcp.NewServer(tk, &mcp.ServerOptions{Name: "toolscope-conformance"}).Handler(ctx, stateless)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		cancel()
		sctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		h.Shutdown(sctx)
		hs.Close()
	})
	return hs.URL + "/mcp"
}

// The fixtures of the suite's server scenarios that a toolkit's tool can
// be: results of text, image, audio and embedded data, an error, and
// progress. (The others, sampling, elicitation and logging from within a
// tool, are not what a toolscope tool can do; the expected failures say
// so.)
var (
	// A 1×1 red PNG and a short silent WAV, as the suite's own fixtures.
	confPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	confWAV, _ = base64.StdEncoding.DecodeString("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAAAAA==")
)

func confTools(t *testing.T) []tool.Tool {
	t.Helper()
	var tools []tool.Tool
	add := func(name, desc string, fn func(context.Context, struct{}) (*tool.Chunk, error)) {
		f, err := tool.NewFunction(desc, fn, &tool.FunctionOptions{Name: name, ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, f)
	}
	result := func(blocks ...tool.Block) func(context.Context, struct{}) (*tool.Chunk, error) {
		return func(context.Context, struct{}) (*tool.Chunk, error) {
			return &tool.Chunk{Content: blocks}, nil
		}
	}
	add("test_simple_text", "Returns a simple text.", result(tool.TextBlock("This is a simple text response for testing.")))
	add("test_image_content", "Returns an image.", result(tool.DataBlock("image/png", confPNG)))
	add("test_audio_content", "Returns audio.", result(tool.DataBlock("audio/wav", confWAV)))
	add("test_embedded_resource", "Returns an embedded resource.", result(
		tool.Block{Kind: tool.KindData, MediaType: "text/plain", Name: "test://embedded-resource", Data: []byte("This is an embedded resource content.")}))
	add("test_multiple_content_types", "Returns text, an image and an embedded resource.", result(
		tool.TextBlock("Multiple content types test:"),
		tool.DataBlock("image/png", confPNG),
		tool.Block{Kind: tool.KindData, MediaType: "application/json", Name: "test://mixed-content-resource", Data: []byte(`{"test":"data","value":123}`)}))
	add("test_error_handling", "Fails on purpose.", func(context.Context, struct{}) (*tool.Chunk, error) {
		return nil, errors.New("This tool intentionally returns an error for testing")
	})
	tools = append(tools, progressTool{})
	// A tool whose input schema uses JSON Schema 2020-12 ($schema, $defs,
	// $anchor, $ref, allOf/anyOf, if/then/else), to be served unchanged.
	schema, err := tool.NewFunction("Takes a contact, described in JSON Schema 2020-12.", func(context.Context, map[string]any) (string, error) {
		return "ok", nil
	}, &tool.FunctionOptions{Name: "json_schema_2020_12_tool", ReadOnly: true, InputSchema: json.RawMessage(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
		"properties": {
			"name": {"type": "string"},
			"address": {"$ref": "#/$defs/address"},
			"contactMethod": {"type": "string", "enum": ["phone", "email"]},
			"phone": {"type": "string"},
			"email": {"type": "string"}
		},
		"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
		"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
		"then": {"required": ["phone"]},
		"else": {"required": ["email"]},
		"additionalProperties": false
	}`)})
	if err != nil {
		t.Fatal(err)
	}
	tools = append(tools, schema)
	// The input_required scenarios of 2026-07-28 call tools that ask the
	// client for input. A toolscope server asks for one thing, approval
	// of a call, so these are tools that need it (not read-only, so the
	// permission engine asks, through mcp.ElicitAsker): what runs is
	// toolscope's own approval round (mrtr.go), with its own form (key
	// "approval", a boolean "allow"), not the scenario's.
	for _, name := range []string{"test_input_required_result_elicitation", "test_input_required_result_tampered_state", "test_input_required_result_capabilities"} {
		f, err := tool.NewFunction("Needs the user's approval, then answers.", func(context.Context, struct{}) (string, error) {
			return "approved and run", nil
		}, &tool.FunctionOptions{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, f)
	}
	return tools
}

// progressTool is test_tool_with_progress: it reports progress 0, 50 and
// 100 of 100 (as tool.Progress chunks, for the host), then answers.
type progressTool struct{}

func (progressTool) Info() tool.Info {
	return tool.Info{Name: "test_tool_with_progress", Description: "Reports its progress.", ReadOnly: true,
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
}

func (progressTool) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Passthrough}, nil
}

func (progressTool) Call(ctx context.Context, _ *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		for _, done := range []float64{0, 50, 100} {
			if !yield(&tool.Chunk{Progress: &tool.Progress{Done: done, Total: 100}}, nil) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		yield(tool.Text("Progress test completed."), nil)
	}
}
