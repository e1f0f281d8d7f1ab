package mcp

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

//go:embed ListMcpResources.md
var listResourcesDescription string

//go:embed ReadMcpResource.md
var readResourceDescription string

// The names of the resource tools, as Claude Code names them.
const (
	ListResourcesTool = "ListMcpResources"
	ReadResourceTool  = "ReadMcpResource"
)

// MaxResourceText is how many bytes of a resource's text ReadMcpResource
// gives the model; the rest is cut, with a note saying how much.
const MaxResourceText = 256 << 10

// ResourceServer is an MCP server whose resources the resource tools
// reach: a [*Client], or a wrapper that connects one when first used.
type ResourceServer interface {
	Name() string
	// OffersResources reports whether the server, once connected, said it
	// has resources.
	OffersResources() bool
	Resources(ctx context.Context) ([]Resource, error)
	ReadResource(ctx context.Context, uri string) ([]ResourceContents, error)
}

// TrustsHints reports whether the client takes its server's hints at
// their word (ClientOptions.TrustHints): its read-only tools, and the
// reads of its resources, need no permission.
func (c *Client) TrustsHints() bool { return c.opts.TrustHints }

// ResourceTools returns a [tool.Source] of two tools over servers:
// ListMcpResources, which lists their resources, and ReadMcpResource,
// which reads one. They are offered while at least one of the servers
// offers resources; list the source after the servers' own (a server says
// what it offers when it connects, which listing its tools does).
//
// Listing only reads names and needs no permission. A read is judged like
// a call of one of the server's tools: rules naming the server
// ("mcp__fs", "mcp__fs__*") apply to it, deny rules first, and so do
// rules for ReadMcpResource itself: "ReadMcpResource(fs)" covers every
// resource of server fs, "ReadMcpResource(fs:file:///docs/readme.md)" one
// URI and "ReadMcpResource(fs:file:///docs/*)" the URIs that begin with
// file:///docs/. A URI with "..", "." segments, percent escapes or
// backslashes is covered by no allow rule with '*' and by every deny or
// ask rule of its server; deny and ask rules also match the URI's
// letters in either case. Without a rule, a read asks, unless the server's
// hints are trusted (a server that implements TrustsHints() bool, as
// [*Client] does, returning true).
func ResourceTools(servers []ResourceServer) tool.Source {
	return &resourceSource{servers: servers}
}

type resourceSource struct {
	servers []ResourceServer
}

func (s *resourceSource) Name() string { return "mcp resources" }

// ListVersion moves when a server's does: a server that connects (or
// reconnects) may have started or stopped offering resources.
func (s *resourceSource) ListVersion() uint64 {
	var v uint64
	for _, srv := range s.servers {
		if cr, ok := srv.(tool.ChangeReporter); ok {
			v += cr.ListVersion()
		}
	}
	return v
}

func (s *resourceSource) Tools(context.Context) ([]tool.Tool, error) {
	for _, srv := range s.servers {
		if srv.OffersResources() {
			return []tool.Tool{&listResources{s}, &readResource{s}}, nil
		}
	}
	return nil, nil
}

// server returns the server named name, or an error the model can act on.
func (s *resourceSource) server(name string) (ResourceServer, error) {
	for _, srv := range s.servers {
		if srv.Name() == name {
			return srv, nil
		}
	}
	return nil, fmt.Errorf("there is no MCP server named %q; the servers with resources are: %s", name, strings.Join(s.offering(), ", "))
}

// offering names the servers that offer resources.
func (s *resourceSource) offering() []string {
	var names []string
	for _, srv := range s.servers {
		if srv.OffersResources() {
			names = append(names, srv.Name())
		}
	}
	if len(names) == 0 {
		return []string{"(none)"}
	}
	return names
}

// serverRuleName is the name under which a call that reaches server's
// resources finds the rules naming the server: "mcp__fs" and "mcp__fs__*"
// apply to it. No tool can have it ('(' is not in a tool's name), so a
// rule for one tool of the server never applies.
func serverRuleName(server string) string { return "mcp__" + server + "__(resources)" }

type resourceInput struct {
	Server string `json:"server,omitempty"`
	URI    string `json:"uri,omitempty"`
}

func parseResourceInput(input json.RawMessage) resourceInput {
	var in resourceInput
	_ = json.Unmarshal(input, &in)
	return in
}

// listResources is ListMcpResources.
type listResources struct{ s *resourceSource }

var listResourcesSchema = json.RawMessage(`{"type":"object","properties":{
"server":{"type":"string","description":"The name of the MCP server whose resources to list; omit it to list every server's"}},
"additionalProperties":false}`)

func (l *listResources) Info() tool.Info {
	ro, no := true, false
	return tool.Info{Name: ListResourcesTool, Title: "List MCP resources", Description: listResourcesDescription, InputSchema: listResourcesSchema,
		ReadOnly: true, ConcurrencySafe: true, Annotations: &tool.Annotations{ReadOnlyHint: &ro, DestructiveHint: &no, IdempotentHint: &ro, OpenWorldHint: &ro}}
}

// RuleNamesFor implements [tool.InputRuleNamer]: the listed servers'
// rules apply (a deny rule for one denies listing all).
func (l *listResources) RuleNamesFor(input json.RawMessage) []string {
	if in := parseResourceInput(input); in.Server != "" {
		return []string{serverRuleName(in.Server)}
	}
	var names []string
	for _, srv := range l.s.servers {
		names = append(names, serverRuleName(srv.Name()))
	}
	return names
}

func (l *listResources) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Allow, Message: "Listing MCP resources only reads their names."}, nil
}

// MatchRule implements [tool.RuleMatcher]: "ListMcpResources(fs)" is a
// rule for listing server fs's resources (and, for a deny or ask rule,
// every server's at once).
func (l *listResources) MatchRule(_ context.Context, r permission.Rule, input json.RawMessage) bool {
	in := parseResourceInput(input)
	if r.Tool != ListResourcesTool {
		return r.Behavior != permission.Allow // content on a server's rule: fail closed
	}
	if in.Server == "" {
		return r.Behavior != permission.Allow
	}
	return r.Content == in.Server
}

func (l *listResources) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		in := parseResourceInput(call.Input)
		servers := l.s.servers
		if in.Server != "" {
			srv, err := l.s.server(in.Server)
			if err != nil {
				yield(tool.Errorf("Error: %v", err), nil)
				return
			}
			servers = []ResourceServer{srv}
		}
		all := []Resource{}
		var failed []string
		for _, srv := range servers {
			rs, err := srv.Resources(ctx)
			switch {
			case errors.Is(err, ErrNoResources):
				if in.Server != "" {
					yield(tool.Errorf("Error: MCP server %q offers no resources; the servers with resources are: %s", in.Server, strings.Join(l.s.offering(), ", ")), nil)
					return
				}
			case err != nil:
				if ctx.Err() != nil {
					yield(&tool.Chunk{Status: tool.StatusInterrupted, Content: []tool.Block{tool.TextBlock("Listing the MCP resources was interrupted.")}}, nil)
					return
				}
				failed = append(failed, fmt.Sprintf("%s: %v", srv.Name(), err))
			default:
				all = append(all, rs...)
			}
		}
		if len(failed) > 0 && len(all) == 0 {
			yield(tool.Errorf("Error: %s", strings.Join(failed, "; ")), nil)
			return
		}
		b, err := json.MarshalIndent(all, "", "  ")
		if err != nil {
			yield(nil, err)
			return
		}
		text := string(b)
		if len(all) == 0 {
			text = "No resources found."
		}
		for _, f := range failed {
			text += "\n(Could not list the resources of " + f + ")"
		}
		yield(tool.Text(text), nil)
	}
}

// readResource is ReadMcpResource.
type readResource struct{ s *resourceSource }

var readResourceSchema = json.RawMessage(`{"type":"object","properties":{
"server":{"type":"string","minLength":1,"description":"The name of the MCP server that has the resource"},
"uri":{"type":"string","minLength":1,"description":"The URI of the resource to read"}},
"required":["server","uri"],"additionalProperties":false}`)

func (r *readResource) Info() tool.Info {
	ro, no := true, false
	return tool.Info{Name: ReadResourceTool, Title: "Read an MCP resource", Description: readResourceDescription, InputSchema: readResourceSchema,
		ConcurrencySafe: true, Annotations: &tool.Annotations{ReadOnlyHint: &ro, DestructiveHint: &no, IdempotentHint: &ro, OpenWorldHint: &ro}}
}

// RuleNamesFor implements [tool.InputRuleNamer]: the server's rules apply.
func (r *readResource) RuleNamesFor(input json.RawMessage) []string {
	if in := parseResourceInput(input); in.Server != "" {
		return []string{serverRuleName(in.Server)}
	}
	return nil
}

// CheckReadOnly implements [tool.ReadOnlyChecker]: a read of a server
// whose hints are trusted needs no permission.
func (r *readResource) CheckReadOnly(_ context.Context, input json.RawMessage) bool {
	srv, err := r.s.server(parseResourceInput(input).Server)
	if err != nil {
		return false
	}
	t, ok := srv.(interface{ TrustsHints() bool })
	return ok && t.TrustsHints()
}

// CheckPermissions implements [tool.Tool]: a read of an unknown server is
// refused with the names of the known ones; any other asks unless a rule
// allows it.
func (r *readResource) CheckPermissions(_ context.Context, input json.RawMessage, _ *permission.Context) (permission.Decision, error) {
	in := parseResourceInput(input)
	if _, err := r.s.server(in.Server); err != nil {
		return permission.Decision{Behavior: permission.Deny, Message: "Error: " + err.Error(), Reason: "Unknown MCP server"}, nil
	}
	return permission.Decision{Behavior: permission.Passthrough, Message: "Reading MCP resources must be allowed by the user.",
		Suggestions: r.Suggestions(context.Background(), input)}, nil
}

// Suggestions implements [tool.Suggester]: the server's resources.
func (r *readResource) Suggestions(_ context.Context, input json.RawMessage) []permission.Rule {
	return []permission.Rule{{Tool: ReadResourceTool, Content: parseResourceInput(input).Server, Behavior: permission.Allow, Source: "suggested"}}
}

// MatchRule implements [tool.RuleMatcher]: see [ResourceTools].
func (r *readResource) MatchRule(_ context.Context, rule permission.Rule, input json.RawMessage) bool {
	if rule.Tool != ReadResourceTool {
		return rule.Behavior != permission.Allow // content on a server's rule: fail closed
	}
	in := parseResourceInput(input)
	return matchResource(rule, in.Server, in.URI)
}

// matchResource matches the content of a ReadMcpResource rule ("SERVER",
// "SERVER:URI" or "SERVER:PREFIX*") against a read of uri on server.
func matchResource(rule permission.Rule, server, uri string) bool {
	srv, pat, hasURI := strings.Cut(rule.Content, ":")
	if srv != server {
		return false
	}
	if !hasURI {
		return true
	}
	allow := rule.Behavior == permission.Allow
	prefix, wild := strings.CutSuffix(pat, "*")
	if !wild {
		if allow {
			return uri == pat
		}
		return strings.EqualFold(uri, pat) || uncleanURI(uri)
	}
	if allow {
		return !uncleanURI(uri) && strings.HasPrefix(uri, prefix)
	}
	return uncleanURI(uri) || len(uri) >= len(prefix) && strings.EqualFold(uri[:len(prefix)], prefix)
}

// uncleanURI reports whether uri could name, in its server's eyes, a
// resource outside a prefix it begins with: it has a "." or ".." segment,
// a percent escape or a backslash.
func uncleanURI(uri string) bool {
	if strings.ContainsAny(uri, "%\\") {
		return true
	}
	return slices.ContainsFunc(strings.FieldsFunc(uri, func(r rune) bool { return r == '/' || r == '?' || r == '#' }), func(seg string) bool {
		return seg == "." || seg == ".."
	})
}

func (r *readResource) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		in := parseResourceInput(call.Input)
		srv, err := r.s.server(in.Server)
		if err != nil {
			yield(tool.Errorf("Error: %v", err), nil)
			return
		}
		contents, err := srv.ReadResource(ctx, in.URI)
		switch {
		case errors.Is(err, ErrNoResources):
			yield(tool.Errorf("Error: MCP server %q offers no resources; the servers with resources are: %s", in.Server, strings.Join(r.s.offering(), ", ")), nil)
			return
		case err != nil && ctx.Err() != nil:
			yield(&tool.Chunk{Status: tool.StatusInterrupted, Content: []tool.Block{tool.TextBlock("Reading the MCP resource was interrupted.")}}, nil)
			return
		case err != nil:
			yield(tool.Errorf("Error: %v", err), nil)
			return
		}
		yield(resourceChunk(in.URI, contents), nil)
	}
}

// resourceChunk is what the model reads of a resource's contents.
func resourceChunk(uri string, contents []ResourceContents) *tool.Chunk {
	c := &tool.Chunk{}
	if len(contents) == 0 {
		c.Content = append(c.Content, tool.TextBlock(fmt.Sprintf("The resource %s is empty.", uri)))
		return c
	}
	budget := MaxResourceText
	for i, rc := range contents {
		if rc.Blob != nil && textual(rc.MIMEType) && utf8.Valid(rc.Blob) {
			rc.Text, rc.Blob = string(rc.Blob), nil
		}
		head := ""
		if len(contents) > 1 {
			head = fmt.Sprintf("[%s", rc.URI)
			if rc.MIMEType != "" {
				head += ", " + rc.MIMEType
			}
			head += "]\n"
			if i > 0 {
				head = "\n" + head
			}
		}
		switch {
		case rc.Blob != nil && strings.HasPrefix(rc.MIMEType, "image/"):
			if head != "" {
				c.Content = append(c.Content, tool.TextBlock(head))
			}
			c.Content = append(c.Content, tool.DataBlock(rc.MIMEType, rc.Blob))
		case rc.Blob != nil:
			c.Content = append(c.Content, tool.TextBlock(fmt.Sprintf("%sBinary content (%s, %d bytes) is not shown.", head, orUnknown(rc.MIMEType), len(rc.Blob))))
		default:
			text := rc.Text
			if len(text) > budget {
				cut := budget
				for cut > 0 && cut < len(text) && text[cut]&0xC0 == 0x80 {
					cut-- // not inside a UTF-8 sequence
				}
				text = fmt.Sprintf("%s\n[... %d more bytes of this resource are not shown]", text[:cut], len(rc.Text)-cut)
			}
			budget = max(budget-len(rc.Text), 0)
			c.Content = append(c.Content, tool.TextBlock(head+text))
		}
	}
	return c
}

// textual reports whether data of type mime is text to show as text.
func textual(mime string) bool {
	mime, _, _ = strings.Cut(mime, ";")
	mime = strings.TrimSpace(strings.ToLower(mime))
	return strings.HasPrefix(mime, "text/") || mime == "application/json" || strings.HasSuffix(mime, "+json") ||
		mime == "application/xml" || strings.HasSuffix(mime, "+xml") || mime == "application/yaml" || mime == "application/javascript"
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}
