package mcp

import (
	"context"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscope/toolscope/internal/jsonscan"
)

// A stdio session's tools/call requests are run here rather than by the
// SDK, when they are plain: the session is initialised, the params hold
// only "name" (a string naming a served tool) and "arguments", and the
// server is not stopping. The call then goes through the same handler
// (Server.handle: the Toolkit, its permission engine, elicitation through
// the SDK's session) and its answer is the SDK's to the byte (see
// TestDirectCallsAnswerAsTheSDK), but what the SDK does around a call is
// left out: it decodes the params twice more, each time through a
// decoder that starts with a 32 KiB buffer (64 KiB a call, more than a
// no-op call's whole work), hands the request through two more
// goroutines, and encodes the result three times over (the content
// blocks, the result, the response, each compacting the one before: a
// third of a 4 KB Read's CPU). Everything else (initialize, listings,
// pings, a call with _meta, a call of a tool that is not served, which
// the SDK refuses, a 2026-07-28 request) goes to the SDK as before, and
// so do the calls read before the session was set up.
//
// notifications/cancelled cancels a direct call as the SDK cancels its
// own (the frameConn keeps the running calls by id), and a stopping
// server waits for direct calls as for the SDK's: they are pending
// until answered.

// directCall is the frameConn's call hook of session ss: it takes a
// plain tools/call and runs it in a goroutine of the frameConn's (see
// frameConn.run), or returns false and leaves it to the SDK.
func (s *Server) directCall(ctx context.Context, c *frameConn, ss *sdk.ServerSession, id jsonrpc.ID, params json.RawMessage) bool {
	if ss.InitializeParams() == nil {
		return false // the SDK refuses calls before initialize
	}
	name, args, ok := plainCallParams(params)
	if !ok {
		return false
	}
	s.mu.Lock()
	_, served := s.shown[name]
	s.mu.Unlock()
	if !served {
		return false // the SDK answers "unknown tool"
	}
	ctx, cancel := context.WithCancel(ctx)
	c.startDirect(id, cancel)
	c.run(func() {
		defer cancel()
		res, err := s.handle(ctx, &sdk.CallToolRequest{Session: ss, Params: &sdk.CallToolParamsRaw{Name: name, Arguments: args}})
		c.answerDirect(id, appendResponse(nil, id, res, err))
	})
	return true
}

// plainCallParams returns the name and arguments of tools/call params
// that hold nothing else, the name a JSON string. ok is false for any
// other params, which the SDK is left to read (or refuse).
func plainCallParams(params json.RawMessage) (name string, args json.RawMessage, ok bool) {
	fields, isObject := objectFields(params, make([]jsonField, 0, 4))
	if !isObject {
		return "", nil, false
	}
	for _, f := range fields {
		if !jsonscan.QuotedIs(f.key, "name") && !jsonscan.QuotedIs(f.key, "arguments") {
			return "", nil, false
		}
	}
	raw, has := field(fields, "name")
	if !has {
		return "", nil, false
	}
	if name, ok = jsonscan.Unquote(raw); !ok {
		return "", nil, false
	}
	args, _ = field(fields, "arguments")
	return name, args, true
}

// appendResponse appends the JSON-RPC response to a call
// whose handler returned res and err, as the SDK would write it: the
// result of json.Marshal(res) in {"jsonrpc":"2.0","id":…,"result":…}. A
// result of text blocks only, the most common by far, is written here in
// one pass; any other goes through json.Marshal.
func appendResponse(b []byte, id jsonrpc.ID, res *sdk.CallToolResult, err error) []byte {
	if err != nil || res == nil {
		if err == nil {
			err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the tool handler returned no result"}
		}
		out, merr := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: err})
		if merr != nil {
			out, _ = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: merr.Error()}})
		}
		return append(b, out...)
	}
	if b == nil {
		n := 64
		for _, c := range res.Content {
			if t, ok := c.(*sdk.TextContent); ok {
				n += len(t.Text) + len(t.Text)/8 + 32
			}
		}
		b = make([]byte, 0, n)
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	switch v := id.Raw().(type) {
	case int64:
		b = strconv.AppendInt(b, v, 10)
	case string:
		b = appendJSONString(b, v, false) // the SDK's encoder escapes no HTML in the envelope
	default:
		b = append(b, "null"...)
	}
	b = append(b, `,"result":`...)
	b = appendResult(b, res)
	return append(b, '}')
}

// appendResult appends json.Marshal(res).
func appendResult(b []byte, res *sdk.CallToolResult) []byte {
	if !plainResult(res) {
		out, err := json.Marshal(res)
		if err != nil {
			out, _ = json.Marshal(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "encoding the result: " + err.Error()}}, IsError: true})
		}
		return append(b, out...)
	}
	b = append(b, `{"content":[`...)
	for i, c := range res.Content {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","text":`...)
		b = appendJSONString(b, c.(*sdk.TextContent).Text, true)
		b = append(b, '}')
	}
	b = append(b, ']')
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}')
}

// plainResult reports whether res is what appendResult writes itself:
// text blocks (without _meta or annotations) and an error flag, the
// results callResult makes of text. (Were a later SDK to add a field that
// callResult set, TestDirectCallsAnswerAsTheSDK would tell.)
func plainResult(res *sdk.CallToolResult) bool {
	if res.Meta != nil || res.StructuredContent != nil || res.Content == nil || res.InputRequests != nil || res.RequestState != "" {
		return false
	}
	for _, c := range res.Content {
		t, ok := c.(*sdk.TextContent)
		if !ok || t == nil || t.Meta != nil || t.Annotations != nil {
			return false
		}
	}
	return true
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as encoding/json writes a string: invalid
// UTF-8 as U+FFFD, control characters, U+2028 and U+2029 escaped, and,
// with html, '<', '>' and '&' as \u003c, \u003e and \u0026.
func appendJSONString(b []byte, s string, html bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!html || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
