package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/tool"
)

// Resource is a resource an MCP server offers, or a template of
// resources (URITemplate set, URI empty), as resources/list and
// resources/templates/list give them.
type Resource struct {
	Server      string `json:"server"`
	URI         string `json:"uri,omitempty"`
	URITemplate string `json:"uriTemplate,omitempty"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
}

// ResourceContents is one part of a read resource: text, or binary data
// (Blob, not nil).
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
}

// Prompt is a prompt template an MCP server offers (prompts/list).
type Prompt struct {
	Server      string           `json:"server"`
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is an argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptMessage is a message of a prompt the server filled in
// (prompts/get): the role ("user" or "assistant") and its content.
type PromptMessage struct {
	Role    string
	Content tool.Block
}

// ErrNoResources is the error of listing or reading the resources of a
// server that offers none (its capabilities have no "resources").
var ErrNoResources = errors.New("mcp: the server offers no resources")

// ErrNoPrompts is the error of listing or getting the prompts of a server
// that offers none.
var ErrNoPrompts = errors.New("mcp: the server offers no prompts")

// OffersResources reports whether the server said, when the client last
// connected, that it has resources. It is false before the first
// connection (a stateless client's first listing or call connects).
func (c *Client) OffersResources() bool {
	caps := c.caps.Load()
	return caps != nil && caps.Resources != nil
}

// OffersPrompts reports whether the server said, when the client last
// connected, that it has prompts.
func (c *Client) OffersPrompts() bool {
	caps := c.caps.Load()
	return caps != nil && caps.Prompts != nil
}

// Resources lists the server's resources and resource templates.
func (c *Client) Resources(ctx context.Context) ([]Resource, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.ListTimeout)
	defer cancel()
	var out []Resource
	err := c.use(ctx, true, func(s *sdk.ClientSession) error {
		if !offers(s, hasResources) {
			return ErrNoResources
		}
		out = out[:0]
		for r, err := range s.Resources(ctx, nil) {
			if err != nil {
				return err
			}
			out = append(out, Resource{Server: c.name, URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Size: r.Size})
		}
		for r, err := range s.ResourceTemplates(ctx, nil) {
			if err != nil {
				if methodMissing(err) {
					break // templates are optional
				}
				return err
			}
			out = append(out, Resource{Server: c.name, URITemplate: r.URITemplate, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("mcp: listing the resources of server %q: %w", c.name, err)
	}
	return out, nil
}

// ReadResource reads the resource uri of the server. A server that needs
// input first (2026-07-28: input_required) is answered through
// ClientOptions.Elicit, as for a tool call.
func (c *Client) ReadResource(ctx context.Context, uri string) ([]ResourceContents, error) {
	var res *sdk.ReadResourceResult
	err := c.request(ctx, hasResources, ErrNoResources, func(ctx context.Context, s *sdk.ClientSession) (err error) {
		res, err = s.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("mcp: reading resource %q of server %q: %w", uri, c.name, err)
	}
	out := make([]ResourceContents, 0, len(res.Contents))
	for _, rc := range res.Contents {
		if rc == nil {
			continue
		}
		out = append(out, ResourceContents{URI: rc.URI, MIMEType: rc.MIMEType, Text: rc.Text, Blob: rc.Blob})
	}
	return out, nil
}

// Prompts lists the server's prompts.
func (c *Client) Prompts(ctx context.Context) ([]Prompt, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.ListTimeout)
	defer cancel()
	var out []Prompt
	err := c.use(ctx, true, func(s *sdk.ClientSession) error {
		if !offers(s, hasPrompts) {
			return ErrNoPrompts
		}
		out = out[:0]
		for p, err := range s.Prompts(ctx, nil) {
			if err != nil {
				return err
			}
			q := Prompt{Server: c.name, Name: p.Name, Title: p.Title, Description: p.Description}
			for _, a := range p.Arguments {
				if a != nil {
					q.Arguments = append(q.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
				}
			}
			out = append(out, q)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("mcp: listing the prompts of server %q: %w", c.name, err)
	}
	return out, nil
}

// GetPrompt fills in the server's prompt name with args.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) ([]PromptMessage, error) {
	var res *sdk.GetPromptResult
	err := c.request(ctx, hasPrompts, ErrNoPrompts, func(ctx context.Context, s *sdk.ClientSession) (err error) {
		res, err = s.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("mcp: getting prompt %q of server %q: %w", name, c.name, err)
	}
	var out []PromptMessage
	for _, m := range res.Messages {
		if m == nil {
			continue
		}
		b, ok := block(m.Content)
		if !ok {
			continue
		}
		out = append(out, PromptMessage{Role: string(m.Role), Content: b})
	}
	return out, nil
}

// request runs f on a session of a server that has the capability has
// (else it is the error none), as a tool call runs: within CallTimeout,
// and under a context the server's questions are asked with.
func (c *Client) request(ctx context.Context, has func(*sdk.ServerCapabilities) bool, none error, f func(context.Context, *sdk.ClientSession) error) error {
	if c.opts.CallTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.CallTimeout)
		defer cancel()
	}
	ctx, untrack := c.track(ctx)
	defer untrack()
	return c.use(ctx, true, func(s *sdk.ClientSession) error {
		if !offers(s, has) {
			return none
		}
		return f(ctx, s)
	})
}

func hasResources(c *sdk.ServerCapabilities) bool { return c.Resources != nil }
func hasPrompts(c *sdk.ServerCapabilities) bool   { return c.Prompts != nil }

// offers reports whether the session's server has the capability has
// tells of.
func offers(s *sdk.ClientSession, has func(*sdk.ServerCapabilities) bool) bool {
	ir := s.InitializeResult()
	return ir != nil && ir.Capabilities != nil && has(ir.Capabilities)
}

// methodMissing reports whether err is the JSON-RPC "method not found".
func methodMissing(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code == jsonrpc.CodeMethodNotFound
}
