package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"sort"
	"strings"

	oa "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/toolscope/toolscope/agent"
)

// Options configures a [Model]; nil means the defaults.
type Options struct {
	// APIKey authenticates; "" means $OPENAI_API_KEY.
	APIKey string
	// BaseURL is the server's API root; "" means $OPENAI_BASE_URL, else
	// OpenAI's. Any OpenAI-compatible server works: Ollama
	// (http://localhost:11434/v1), vLLM, the llama.cpp server.
	BaseURL string
	// MaxRetries is how often a request that failed with 429, 5xx or a
	// connection error is tried again, with backoff; 0 means 3, < 0 none.
	MaxRetries int
	// HTTPClient sends the requests; nil means the SDK's default.
	HTTPClient *http.Client
}

// Model is a chat model reached through the Chat Completions API, with
// streaming. It implements agent.Model.
type Model struct {
	name   string
	client oa.Client
}

// New returns the model named name ("gpt-4.1", "qwen3:8b", ...).
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
	return &Model{name: name, client: oa.NewClient(o...)}
}

// Stream implements agent.Model: text deltas as they come, each tool call
// once its arguments are complete (at the end of the answer).
func (m *Model) Stream(ctx context.Context, req *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		params, err := m.params(req)
		if err != nil {
			yield(agent.ModelEvent{}, err)
			return
		}
		stream := m.client.Chat.Completions.NewStreaming(ctx, params)
		defer stream.Close()
		type pending struct {
			id, name string
			args     strings.Builder
		}
		calls := map[int64]*pending{}
		for stream.Next() {
			chunk := stream.Current()
			for _, ch := range chunk.Choices {
				if ch.Delta.Content != "" {
					if !yield(agent.ModelEvent{Text: ch.Delta.Content}, nil) {
						return
					}
				}
				for _, tc := range ch.Delta.ToolCalls {
					p := calls[tc.Index]
					if p == nil {
						p = &pending{}
						calls[tc.Index] = p
					}
					if tc.ID != "" {
						p.id = tc.ID
					}
					if tc.Function.Name != "" {
						p.name = tc.Function.Name
					}
					p.args.WriteString(tc.Function.Arguments)
				}
			}
		}
		if err := stream.Err(); err != nil {
			yield(agent.ModelEvent{}, fmt.Errorf("openai model %s: %w", m.name, err))
			return
		}
		idx := make([]int64, 0, len(calls))
		for i := range calls {
			idx = append(idx, i)
		}
		sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
		for _, i := range idx {
			p := calls[i]
			args := json.RawMessage(p.args.String())
			if len(strings.TrimSpace(p.args.String())) == 0 {
				args = json.RawMessage(`{}`)
			}
			if !yield(agent.ModelEvent{ToolCall: &agent.ToolCall{ID: p.id, Name: p.name, Input: args}}, nil) {
				return
			}
		}
	}
}

// params turns an agent request into Chat Completions parameters.
func (m *Model) params(req *agent.Request) (oa.ChatCompletionNewParams, error) {
	p := oa.ChatCompletionNewParams{Model: shared.ChatModel(m.name)}
	if req.System != "" {
		p.Messages = append(p.Messages, oa.SystemMessage(req.System))
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case agent.User:
			p.Messages = append(p.Messages, oa.UserMessage(msg.Text))
		case agent.Assistant:
			a := oa.ChatCompletionAssistantMessageParam{}
			if msg.Text != "" {
				a.Content.OfString = oa.String(msg.Text)
			}
			for _, c := range msg.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, oa.ChatCompletionMessageToolCallUnionParam{OfFunction: &oa.ChatCompletionMessageFunctionToolCallParam{
					ID: c.ID, Function: oa.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: string(c.Input)}}})
			}
			p.Messages = append(p.Messages, oa.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case agent.ToolRole:
			if msg.Result != nil {
				p.Messages = append(p.Messages, oa.ToolMessage(agent.ResultText(msg.Result), msg.Result.ID))
			}
		}
	}
	for _, s := range req.Tools {
		var params map[string]any
		if err := json.Unmarshal(s.InputSchema, &params); err != nil {
			return p, fmt.Errorf("openai: the schema of tool %s: %w", s.Name, err)
		}
		fd := shared.FunctionDefinitionParam{Name: s.Name, Parameters: shared.FunctionParameters(params)}
		if s.Description != "" {
			fd.Description = oa.String(s.Description)
		}
		p.Tools = append(p.Tools, oa.ChatCompletionFunctionTool(fd))
	}
	return p, nil
}
