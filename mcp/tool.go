package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// ToolName is the name a server's tool goes by in a Toolkit:
// mcp__SERVER__TOOL, with every character of the tool's name outside
// [A-Za-z0-9_-] written as 'x' (not '_', which could fake the "__"
// separator).
func ToolName(server, name string) string {
	b := []byte(name)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-') {
			b[i] = 'x'
		}
	}
	return "mcp__" + server + "__" + string(b)
}

// remoteTool is one tool of an MCP server.
type remoteTool struct {
	c      *Client
	remote string // the server's name for it
	info   tool.Info
}

func newRemoteTool(c *Client, t *sdk.Tool) (*remoteTool, error) {
	in, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if string(in) == "null" {
		in = nil
	}
	info := tool.Info{
		Name:        ToolName(c.name, t.Name),
		Title:       t.Title,
		Description: t.Description,
		InputSchema: in,
	}
	if t.OutputSchema != nil {
		if info.OutputSchema, err = json.Marshal(t.OutputSchema); err != nil {
			return nil, fmt.Errorf("output schema: %w", err)
		}
	}
	if a := t.Annotations; a != nil {
		ro, idem := a.ReadOnlyHint, a.IdempotentHint
		info.ReadOnly = ro && c.opts.TrustHints
		info.Annotations = &tool.Annotations{ReadOnlyHint: &ro, IdempotentHint: &idem, DestructiveHint: a.DestructiveHint, OpenWorldHint: a.OpenWorldHint}
		if info.Title == "" {
			info.Title = a.Title
		}
	}
	return &remoteTool{c: c, remote: t.Name, info: info}, nil
}

func (t *remoteTool) Info() tool.Info { return t.info }

// CheckPermissions allows a tool that is read-only (the server marks it
// readOnlyHint and the client trusts its hints: ClientOptions.TrustHints)
// and asks for the others, as AgentScope does for tools it deems
// read-only; rules name the tool (mcp__s__t) or the server (mcp__s).
func (t *remoteTool) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	if t.info.ReadOnly {
		return permission.Decision{Behavior: permission.Allow, Message: "This is a read-only MCP tool (its server's hints are trusted). Allowing execution."}, nil
	}
	return permission.Decision{Behavior: permission.Ask, Message: "MCP tools must be explicitly allowed by the user."}, nil
}

// Call sends the call to the server. Progress the server reports comes as
// progress chunks; its result as one chunk. Every failure (the server's
// isError, a lost connection, the call's time running out) is an error
// result the model reads.
func (t *remoteTool) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		if t.c.opts.CallTimeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeoutCause(ctx, t.c.opts.CallTimeout, errCallTimeout)
			defer cancel()
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ctx, untrack := t.c.track(ctx)
		defer untrack()
		args := call.Input
		if len(strings.TrimSpace(string(args))) == 0 || string(args) == "null" {
			args = json.RawMessage(`{}`)
		}
		params := &sdk.CallToolParams{Name: t.remote, Arguments: args}
		token := t.c.newToken()
		params.SetProgressToken(token)
		progress := make(chan tool.Progress, 8)
		t.c.progress.Store(token, progress)
		defer t.c.progress.Delete(token)

		type outcome struct {
			r   *sdk.CallToolResult
			err error
			why string // what became of a stdio server, when the call failed
		}
		done := make(chan outcome, 1)
		go func() {
			var (
				r    *sdk.CallToolResult
				used *sdk.ClientSession
			)
			err := t.c.use(ctx, t.resendable(), func(s *sdk.ClientSession) error {
				var err error
				used = s
				r, err = s.CallTool(ctx, params)
				return err
			})
			why := ""
			if err != nil && ctx.Err() == nil && used != nil {
				why = t.c.failure(used)
			}
			done <- outcome{r, err, why}
		}()
		for {
			select {
			case p := <-progress:
				if !yield(&tool.Chunk{Progress: &p}, nil) {
					cancel()
					<-done
					return
				}
			case o := <-done:
				yield(t.result(ctx, o.r, o.err, o.why), nil)
				return
			}
		}
	}
}

// resendable reports whether a call may be sent twice: the server marks
// the tool read-only or idempotent. Its hints are taken at their word
// here, trusted or not: a wrong one only makes the server itself see a
// call twice.
func (t *remoteTool) resendable() bool {
	a := t.info.Annotations
	return a != nil && (a.IdempotentHint != nil && *a.IdempotentHint || a.ReadOnlyHint != nil && *a.ReadOnlyHint)
}

var errCallTimeout = errors.New("call timed out")

// result turns the server's answer into the chunk the model reads. why
// says what became of a stdio server when the call failed.
func (t *remoteTool) result(ctx context.Context, r *sdk.CallToolResult, err error, why string) *tool.Chunk {
	if err != nil {
		switch {
		case errors.Is(context.Cause(ctx), errCallTimeout):
			msg := fmt.Sprintf("Error: MCP tool '%s' did not answer within %v; the call was cancelled.", t.info.Name, t.c.opts.CallTimeout)
			if tail := t.c.stderrTail(); tail != "" {
				msg += " The server's standard error ended with:\n" + tail
			}
			return tool.Errorf("%s", msg)
		case ctx.Err() != nil:
			return &tool.Chunk{Status: tool.StatusInterrupted, Content: []tool.Block{tool.TextBlock("The MCP tool call was interrupted.")}}
		case why != "":
			return tool.Errorf("Error: MCP tool '%s' failed: %s\nThe server will be started again for the next call.", t.info.Name, why)
		case errors.Is(err, errMessageTooLarge):
			return tool.Errorf("Error: MCP tool '%s' failed: %v; the connection was closed (a new one is opened for the next call).", t.info.Name, err)
		}
		return tool.Errorf("Error occurred when calling MCP tool '%s': %v", t.info.Name, err)
	}
	c := &tool.Chunk{}
	if r.IsError {
		c.Status = tool.StatusError
	}
	for _, content := range r.Content {
		b, ok := block(content)
		if !ok {
			continue
		}
		if n := len(c.Content); n > 0 && b.Kind == tool.KindText && c.Content[n-1].Kind == tool.KindText {
			b.Text = "\n" + b.Text // the result joins neighbouring texts: keep them apart
		}
		c.Content = append(c.Content, b)
	}
	if r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			c.Structured = b
			if len(c.Content) == 0 {
				c.Content = append(c.Content, tool.TextBlock(string(b)))
			}
		}
	}
	return c
}

// block converts one piece of MCP content.
func block(content sdk.Content) (tool.Block, bool) {
	switch x := content.(type) {
	case *sdk.TextContent:
		return tool.TextBlock(x.Text), true
	case *sdk.ImageContent:
		return tool.DataBlock(x.MIMEType, x.Data), true
	case *sdk.AudioContent:
		return tool.DataBlock(x.MIMEType, x.Data), true
	case *sdk.EmbeddedResource:
		r := x.Resource
		if r == nil {
			return tool.Block{}, false
		}
		if r.Blob != nil {
			b := tool.DataBlock(r.MIMEType, r.Blob)
			b.Name = r.URI
			return b, true
		}
		j, _ := json.MarshalIndent(r, "", "  ")
		return tool.TextBlock(string(j)), true
	case *sdk.ResourceLink:
		var s strings.Builder
		fmt.Fprintf(&s, "Resource link: %s", x.URI)
		if x.Name != "" {
			fmt.Fprintf(&s, " (%s)", x.Name)
		}
		if x.MIMEType != "" {
			fmt.Fprintf(&s, ", %s", x.MIMEType)
		}
		if x.Description != "" {
			fmt.Fprintf(&s, ": %s", x.Description)
		}
		return tool.TextBlock(s.String()), true
	}
	return tool.Block{}, false
}
