package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"strings"

	an "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/tool"
)

// Options configures a [Model]; nil means the defaults.
type Options struct {
	// APIKey authenticates; "" means $ANTHROPIC_API_KEY.
	APIKey string
	// BaseURL is the API root; "" means $ANTHROPIC_BASE_URL, else
	// Anthropic's.
	BaseURL string
	// MaxTokens bounds an answer; 0 means 8192.
	MaxTokens int
	// MaxRetries is how often a request that failed with 429, 5xx or a
	// connection error is tried again, with backoff; 0 means 3, < 0 none.
	MaxRetries int
	// HTTPClient sends the requests; nil means the SDK's default.
	HTTPClient *http.Client
}

// Model is a Claude model reached through the Messages API, with
// streaming. It implements agent.Model.
type Model struct {
	name      string
	maxTokens int64
	client    an.Client
}

// New returns the model named name ("claude-sonnet-4-5", ...).
func New(name string, opts *Options) *Model {
	if opts == nil {
		opts = &Options{}
	}
	var o []option.RequestOption
	if opts.APIKey != "" {
		o = append(o, option.WithAPIKey(opts.APIKey))
	}
	if opts.BaseURL != "" {
		o = append(o, option.WithBaseURL(opts.BaseURL))
	}
	switch {
	case opts.MaxRetries == 0:
		o = append(o, option.WithMaxRetries(3))
	case opts.MaxRetries < 0:
		o = append(o, option.WithMaxRetries(0))
	default:
		o = append(o, option.WithMaxRetries(opts.MaxRetries))
	}
	if opts.HTTPClient != nil {
		o = append(o, option.WithHTTPClient(opts.HTTPClient))
	}
	m := &Model{name: name, maxTokens: int64(opts.MaxTokens), client: an.NewClient(o...)}
	if m.maxTokens <= 0 {
		m.maxTokens = 8192
	}
	return m
}

// Stream implements agent.Model: text deltas as they come, each tool call
// when its input is complete.
func (m *Model) Stream(ctx context.Context, req *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		params, err := m.params(req)
		if err != nil {
			yield(agent.ModelEvent{}, err)
			return
		}
		stream := m.client.Messages.NewStreaming(ctx, params)
		defer stream.Close()
		type pending struct {
			id, name string
			input    strings.Builder
		}
		calls := map[int64]*pending{}
		for stream.Next() {
			ev := stream.Current()
			switch ev.Type {
			case "content_block_start":
				if ev.ContentBlock.Type == "tool_use" {
					calls[ev.Index] = &pending{id: ev.ContentBlock.ID, name: ev.ContentBlock.Name}
				}
			case "content_block_delta":
				switch ev.Delta.Type {
				case "text_delta":
					if !yield(agent.ModelEvent{Text: ev.Delta.Text}, nil) {
						return
					}
				case "input_json_delta":
					if p := calls[ev.Index]; p != nil {
						p.input.WriteString(ev.Delta.PartialJSON)
					}
				}
			case "content_block_stop":
				if p := calls[ev.Index]; p != nil {
					delete(calls, ev.Index)
					in := json.RawMessage(p.input.String())
					if strings.TrimSpace(p.input.String()) == "" {
						in = json.RawMessage(`{}`)
					}
					if !yield(agent.ModelEvent{ToolCall: &agent.ToolCall{ID: p.id, Name: p.name, Input: in}}, nil) {
						return
					}
				}
			}
		}
		if err := stream.Err(); err != nil {
			yield(agent.ModelEvent{}, fmt.Errorf("anthropic model %s: %w", m.name, err))
		}
	}
}

// params turns an agent request into Messages parameters. Tool results
// go in user messages, next to each other, as the API wants them.
func (m *Model) params(req *agent.Request) (an.MessageNewParams, error) {
	p := an.MessageNewParams{Model: m.name, MaxTokens: m.maxTokens}
	if req.System != "" {
		p.System = []an.TextBlockParam{{Text: req.System}}
	}
	var userBlocks []an.ContentBlockParamUnion
	flush := func() {
		if len(userBlocks) > 0 {
			p.Messages = append(p.Messages, an.NewUserMessage(userBlocks...))
			userBlocks = nil
		}
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case agent.User:
			userBlocks = append(userBlocks, an.NewTextBlock(msg.Text))
		case agent.ToolRole:
			if r := msg.Result; r != nil {
				userBlocks = append(userBlocks, an.NewToolResultBlock(r.ID, agent.ResultText(r), r.Status != tool.StatusSuccess))
			}
		case agent.Assistant:
			flush()
			var blocks []an.ContentBlockParamUnion
			if msg.Text != "" {
				blocks = append(blocks, an.NewTextBlock(msg.Text))
			}
			for _, c := range msg.ToolCalls {
				blocks = append(blocks, an.NewToolUseBlock(c.ID, c.Input, c.Name))
			}
			if len(blocks) > 0 {
				p.Messages = append(p.Messages, an.NewAssistantMessage(blocks...))
			}
		}
	}
	flush()
	for _, s := range req.Tools {
		var schema map[string]any
		if err := json.Unmarshal(s.InputSchema, &schema); err != nil {
			return p, fmt.Errorf("anthropic: the schema of tool %s: %w", s.Name, err)
		}
		in := an.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					in.Required = append(in.Required, s)
				}
			}
		}
		for k, v := range schema {
			if k != "properties" && k != "required" && k != "type" {
				in.ExtraFields[k] = v
			}
		}
		tp := an.ToolParam{Name: s.Name, InputSchema: in}
		if s.Description != "" {
			tp.Description = an.String(s.Description)
		}
		p.Tools = append(p.Tools, an.ToolUnionParam{OfTool: &tp})
	}
	return p, nil
}
