package mcp_test

import (
	"context"
	"encoding/json"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// resourceServer starts a go-sdk MCP server with resources, a template and
// a prompt, connected to a client named name over a pipe.
func resourceServer(t *testing.T, name string, opts *mcp.ClientOptions) *mcp.Client {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "res", Version: "1"}, nil)
	text := func(uri, body, mime string) sdk.ResourceHandler {
		return func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: mime, Text: body}}}, nil
		}
	}
	s.AddResource(&sdk.Resource{URI: "file:///docs/readme.md", Name: "readme", MIMEType: "text/markdown", Description: "The project's readme"},
		text("file:///docs/readme.md", "# Readme\nhello", "text/markdown"))
	s.AddResource(&sdk.Resource{URI: "file:///secret/key", Name: "key"}, text("file:///secret/key", "SECRET", "text/plain"))
	s.AddResource(&sdk.Resource{URI: "file:///img/dot.png", Name: "dot", MIMEType: "image/png"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "file:///img/dot.png", MIMEType: "image/png", Blob: []byte("\x89PNG fake")}}}, nil
		})
	s.AddResource(&sdk.Resource{URI: "file:///big.txt", Name: "big"}, text("file:///big.txt", strings.Repeat("é", mcp.MaxResourceText), "text/plain"))
	s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "file:///notes/{id}", Name: "note"},
		func(_ context.Context, r *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: r.Params.URI, Text: "note " + strings.TrimPrefix(r.Params.URI, "file:///notes/")}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "review", Description: "Review a file", Arguments: []*sdk.PromptArgument{{Name: "file", Required: true}, {Name: "focus"}}},
		func(_ context.Context, r *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Review " + r.Params.Arguments["file"] + " for " + r.Params.Arguments["focus"]}}}}, nil
		})
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go s.Run(ctx, &sdk.IOTransport{Reader: b, Writer: b})
	c, err := mcp.NewClient(name, mcp.ServerConfig{Conn: a}, opts)
	if err != nil {
		t.Fatal(err)
	}
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	if err := c.Connect(cctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// The resource tools are offered once a server that has resources is
// connected; ListMcpResources lists them and their templates,
// ReadMcpResource reads text, images and templates' URIs, and cuts what is
// too long at a character boundary.
func TestResourceTools(t *testing.T) {
	c := resourceServer(t, "docs", nil)
	if !c.OffersResources() || !c.OffersPrompts() {
		t.Fatalf("capabilities: resources %v prompts %v", c.OffersResources(), c.OffersPrompts())
	}
	tk := kitOf(t, c, mcp.ResourceTools([]mcp.ResourceServer{c}))
	names := toolNames(tk)
	if !slices.Contains(names, "ListMcpResources") || !slices.Contains(names, "ReadMcpResource") {
		t.Fatalf("tools %v lack the resource tools", names)
	}
	st := tool.NewState(&permission.Context{Mode: permission.Default, Allow: rules(t, permission.Allow, "mcp__docs")})

	r := call(t, tk, st, "ListMcpResources", `{}`)
	var listed []mcp.Resource
	if err := json.Unmarshal([]byte(r.Text()), &listed); err != nil {
		t.Fatalf("list: %s %q: %v", r.Status, r.Text(), err)
	}
	if !slices.ContainsFunc(listed, func(x mcp.Resource) bool {
		return x.Server == "docs" && x.URI == "file:///docs/readme.md" && x.MIMEType == "text/markdown" && x.Description == "The project's readme"
	}) || !slices.ContainsFunc(listed, func(x mcp.Resource) bool { return x.URITemplate == "file:///notes/{id}" }) {
		t.Errorf("list: %s", r.Text())
	}
	if r := call(t, tk, st, "ListMcpResources", `{"server":"nope"}`); r.Status != tool.StatusError || !strings.Contains(r.Text(), `no MCP server named "nope"`) || !strings.Contains(r.Text(), "docs") {
		t.Errorf("list of an unknown server: %s %q", r.Status, r.Text())
	}

	if r := call(t, tk, st, "ReadMcpResource", `{"server":"docs","uri":"file:///docs/readme.md"}`); r.Status != tool.StatusSuccess || r.Text() != "# Readme\nhello" {
		t.Errorf("read: %s %q", r.Status, r.Text())
	}
	if r := call(t, tk, st, "ReadMcpResource", `{"server":"docs","uri":"file:///notes/7"}`); r.Text() != "note 7" {
		t.Errorf("read of a template's URI: %s %q", r.Status, r.Text())
	}
	r = call(t, tk, st, "ReadMcpResource", `{"server":"docs","uri":"file:///img/dot.png"}`)
	if len(r.Content) != 1 || r.Content[0].Kind != tool.KindData || r.Content[0].MediaType != "image/png" {
		t.Errorf("read of an image: %s %+v", r.Status, r.Content)
	}
	r = call(t, tk, st, "ReadMcpResource", `{"server":"docs","uri":"file:///big.txt"}`)
	if !strings.Contains(r.Text(), "more bytes of this resource are not shown") || len(r.Text()) > mcp.MaxResourceText+100 || !json.Valid([]byte(`"`+strings.Split(r.Text(), "\n")[0]+`"`)) {
		t.Errorf("read of a big resource: %s, %d bytes", r.Status, len(r.Text()))
	}
	if r := call(t, tk, st, "ReadMcpResource", `{"server":"docs","uri":"file:///none"}`); r.Status != tool.StatusError || !strings.Contains(r.Text(), "file:///none") {
		t.Errorf("read of a missing resource: %s %q", r.Status, r.Text())
	}
	if r := call(t, tk, st, "ReadMcpResource", `{"server":"docs"}`); r.Status != tool.StatusError || !strings.Contains(r.Text(), "uri") {
		t.Errorf("read without a URI: %s %q", r.Status, r.Text())
	}
}

// A source whose servers have no resources offers no tools.
func TestResourceToolsNeedResources(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Run(ctx, &sdk.IOTransport{Reader: b, Writer: b})
	c, err := mcp.NewClient("bare", mcp.ServerConfig{Conn: a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := mcp.ResourceTools([]mcp.ResourceServer{c})
	if tools, _ := src.Tools(ctx); len(tools) != 0 {
		t.Errorf("before connecting: %d tools", len(tools))
	}
	v0 := src.(tool.ChangeReporter).ListVersion()
	if err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v := src.(tool.ChangeReporter).ListVersion(); v == v0 {
		t.Error("the source's list version did not move when its server connected")
	}
	if tools, _ := src.Tools(ctx); len(tools) != 0 {
		t.Errorf("a server without resources: %d tools", len(tools))
	}
	if _, err := c.Resources(ctx); err == nil || !strings.Contains(err.Error(), "offers no resources") {
		t.Errorf("Resources of a server without: %v", err)
	}
}

func kitOf(t *testing.T, sources ...tool.Source) *tool.Toolkit {
	t.Helper()
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Sources: sources})
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func rules(t *testing.T, b permission.Behavior, specs ...string) []permission.Rule {
	t.Helper()
	var out []permission.Rule
	for _, s := range specs {
		r, err := permission.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		r.Behavior = b
		out = append(out, r)
	}
	return out
}

// A read is judged like a call of the server's tools: the server's rules
// apply (and a rule for one of its tools does not), ReadMcpResource rules
// name a server or URIs, a URI that could climb out of a prefix is never
// allowed by it and always denied by it, and the case of a URI does not
// escape a deny rule.
func TestResourcePermissions(t *testing.T) {
	ctx := context.Background()
	c := resourceServer(t, "docs", nil)
	trusted := resourceServer(t, "tr", &mcp.ClientOptions{TrustHints: true})
	tk := kitOf(t, c, trusted, mcp.ResourceTools([]mcp.ResourceServer{c, trusted}))
	read := func(server, uri string) string {
		b, _ := json.Marshal(map[string]string{"server": server, "uri": uri})
		return string(b)
	}
	for _, tc := range []struct {
		mode              permission.Mode
		allow, deny, ask  []string
		name, input, want string
		wantMsg, wantSugg string
	}{
		{name: "ReadMcpResource", input: read("docs", "file:///docs/readme.md"), want: "ask", wantSugg: "ReadMcpResource(docs)"},
		{allow: []string{"mcp__docs"}, name: "ReadMcpResource", input: read("docs", "file:///docs/readme.md"), want: "allow"},
		{allow: []string{"mcp__docs__*"}, name: "ReadMcpResource", input: read("docs", "file:///docs/readme.md"), want: "allow"},
		{allow: []string{"mcp__docs__readme"}, name: "ReadMcpResource", input: read("docs", "file:///docs/readme.md"), want: "ask"},
		{allow: []string{"mcp__doc", "mcp__docsx", "mcp__tr"}, name: "ReadMcpResource", input: read("docs", "file:///docs/readme.md"), want: "ask"},
		{allow: []string{"ReadMcpResource"}, name: "ReadMcpResource", input: read("docs", "file:///secret/key"), want: "allow"},
		{allow: []string{"ReadMcpResource(docs)"}, name: "ReadMcpResource", input: read("docs", "file:///secret/key"), want: "allow"},
		{allow: []string{"ReadMcpResource(tr)"}, name: "ReadMcpResource", input: read("docs", "file:///secret/key"), want: "ask"},
		{allow: []string{"ReadMcpResource(docs:file:///docs/readme.md)"}, name: "ReadMcpResource", input: read("docs", "file:///docs/readme.md"), want: "allow"},
		{allow: []string{"ReadMcpResource(docs:file:///docs/readme.md)"}, name: "ReadMcpResource", input: read("docs", "file:///docs/README.md"), want: "ask"},
		{allow: []string{"ReadMcpResource(docs:file:///docs/*)"}, name: "ReadMcpResource", input: read("docs", "file:///docs/a/b.md"), want: "allow"},
		{allow: []string{"ReadMcpResource(docs:file:///docs/*)"}, name: "ReadMcpResource", input: read("docs", "file:///docs/../secret/key"), want: "ask"},
		{allow: []string{"ReadMcpResource(docs:file:///docs/*)"}, name: "ReadMcpResource", input: read("docs", "file:///docs/%2e%2e/secret/key"), want: "ask"},
		{allow: []string{"ReadMcpResource(docs:file:///docs/*)"}, name: "ReadMcpResource", input: read("docs", `file:///docs/..\secret\key`), want: "ask"},
		{allow: []string{"mcp__docs__(resources)(x)"}, name: "ReadMcpResource", input: read("docs", "file:///docs/readme.md"), want: "ask"},
		{mode: permission.Bypass, deny: []string{"mcp__docs"}, name: "ReadMcpResource", input: read("docs", "file:///docs/readme.md"), want: "deny"},
		{mode: permission.Bypass, deny: []string{"ReadMcpResource(docs:file:///secret/*)"}, name: "ReadMcpResource", input: read("docs", "FILE:///SECRET/key"), want: "deny"},
		{mode: permission.Bypass, deny: []string{"ReadMcpResource(docs:file:///secret/*)"}, name: "ReadMcpResource", input: read("docs", "file:///docs/../secret/key"), want: "deny"},
		{mode: permission.Bypass, deny: []string{"ReadMcpResource(docs:file:///secret/*)"}, name: "ReadMcpResource", input: read("docs", "file:///docs/readme.md"), want: "allow"},
		{mode: permission.Bypass, deny: []string{"ReadMcpResource(docs:file:///secret/key)"}, name: "ReadMcpResource", input: read("docs", "file:///secret/KEY"), want: "deny"},
		{ask: []string{"mcp__tr"}, name: "ReadMcpResource", input: read("tr", "file:///docs/readme.md"), want: "ask"},
		{name: "ReadMcpResource", input: read("tr", "file:///docs/readme.md"), want: "allow"},
		{mode: permission.Explore, name: "ReadMcpResource", input: read("tr", "file:///docs/readme.md"), want: "allow"},
		{mode: permission.Explore, name: "ReadMcpResource", input: read("docs", "file:///docs/readme.md"), want: "deny"},
		{mode: permission.DontAsk, name: "ReadMcpResource", input: read("docs", "file:///docs/readme.md"), want: "deny"},
		{mode: permission.Bypass, name: "ReadMcpResource", input: read("nope", "file:///x"), want: "deny", wantMsg: `no MCP server named "nope"`},
		{allow: []string{"mcp__nope"}, name: "ReadMcpResource", input: read("nope", "file:///x"), want: "deny"},
		{name: "ListMcpResources", input: `{}`, want: "allow"},
		{mode: permission.Explore, name: "ListMcpResources", input: `{}`, want: "allow"},
		{deny: []string{"mcp__tr"}, name: "ListMcpResources", input: `{"server":"docs"}`, want: "allow"},
		{deny: []string{"mcp__tr"}, name: "ListMcpResources", input: `{"server":"tr"}`, want: "deny"},
		{deny: []string{"mcp__tr"}, name: "ListMcpResources", input: `{}`, want: "deny"},
		{deny: []string{"ListMcpResources(tr)"}, name: "ListMcpResources", input: `{}`, want: "deny"},
		{deny: []string{"ListMcpResources(tr)"}, name: "ListMcpResources", input: `{"server":"docs"}`, want: "allow"},
	} {
		mode := tc.mode
		if mode == "" {
			mode = permission.Default
		}
		pc := &permission.Context{Mode: mode, Allow: rules(t, permission.Allow, tc.allow...), Deny: rules(t, permission.Deny, tc.deny...), Ask: rules(t, permission.Ask, tc.ask...)}
		v, err := tk.Check(ctx, &tool.Call{Name: tc.name, Input: json.RawMessage(tc.input), State: tool.NewState(pc)})
		if err != nil {
			t.Errorf("%s %s: %v", tc.name, tc.input, err)
			continue
		}
		d := v.Decision
		if string(d.Behavior) != tc.want || !strings.Contains(d.Message, tc.wantMsg) {
			t.Errorf("%s %s in %s, allow %v deny %v ask %v: %s (%s; %s), want %s", tc.name, tc.input, mode, tc.allow, tc.deny, tc.ask, d.Behavior, d.Message, d.Reason, tc.want)
		}
		if tc.wantSugg != "" && (len(d.Suggestions) != 1 || d.Suggestions[0].String() != tc.wantSugg) {
			t.Errorf("%s %s: suggestions %v, want %s", tc.name, tc.input, d.Suggestions, tc.wantSugg)
		}
	}
}

// Prompts: listed with their arguments, filled in by the server.
func TestPrompts(t *testing.T) {
	ctx := context.Background()
	c := resourceServer(t, "docs", nil)
	ps, err := c.Prompts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Name != "review" || ps[0].Server != "docs" || len(ps[0].Arguments) != 2 || !ps[0].Arguments[0].Required || ps[0].Arguments[1].Required {
		t.Fatalf("prompts: %+v", ps)
	}
	msgs, err := c.GetPrompt(ctx, "review", map[string]string{"file": "main.go", "focus": "races"})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].Role != "user" || msgs[0].Content.Text != "Review main.go for races" {
		t.Errorf("prompt: %+v", msgs)
	}
	if _, err := c.GetPrompt(ctx, "nope", nil); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown prompt: %v", err)
	}
}

// server-everything, the reference server, on both revisions: its
// resources, templates and prompts through the same tools.
func TestEverythingResources(t *testing.T) {
	dir, node := peersOf(t)
	for _, protocol := range []string{"", "auto"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			c, _ := connect(t, "ev", mcp.ServerConfig{Command: node, Args: []string{everything(dir), "stdio"}}, &mcp.ClientOptions{Protocol: protocol})
			tk := kitOf(t, c, mcp.ResourceTools([]mcp.ResourceServer{c}))
			st := tool.NewState(&permission.Context{Mode: permission.Default})
			r := call(t, tk, st, "ListMcpResources", `{"server":"ev"}`)
			if !strings.Contains(r.Text(), `"uri": "demo://resource/static/document/`) || !strings.Contains(r.Text(), `"uriTemplate": "demo://resource/dynamic/text/{resourceId}"`) {
				t.Errorf("list: %s %.500s", r.Status, r.Text())
			}
			// Trusted hints: reads need no rule.
			if r := call(t, tk, st, "ReadMcpResource", `{"server":"ev","uri":"demo://resource/dynamic/text/3"}`); !strings.HasPrefix(r.Text(), "Resource 3: This is a plaintext resource") {
				t.Errorf("read text: %s %q", r.Status, r.Text())
			}
			// A text/plain blob is shown as text.
			if r := call(t, tk, st, "ReadMcpResource", `{"server":"ev","uri":"demo://resource/dynamic/blob/4"}`); !strings.HasPrefix(r.Text(), "Resource 4: This is a base64 blob") {
				t.Errorf("read blob: %s %q", r.Status, r.Text())
			}
			ps, err := c.Prompts(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(ps, func(p mcp.Prompt) bool { return p.Name == "args-prompt" && len(p.Arguments) == 2 }) {
				t.Errorf("prompts: %+v", ps)
			}
			msgs, err := c.GetPrompt(context.Background(), "args-prompt", map[string]string{"city": "Paris"})
			if err != nil || len(msgs) != 1 || msgs[0].Content.Text != "What's weather in Paris?" {
				t.Errorf("args-prompt: %+v %v", msgs, err)
			}
		})
	}
}
