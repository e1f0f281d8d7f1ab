//go:build !lean

package cli

import (
	"os"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/model/anthropic"
	"github.com/toolscope/toolscope/model/openai"
)

// newModel picks the model from --model or $TOOLSCOPE_MODEL:
// "openai:NAME" (any OpenAI-compatible server: $OPENAI_BASE_URL,
// $OPENAI_API_KEY) or "anthropic:NAME" ($ANTHROPIC_API_KEY).
func newModel(spec string) (agent.Model, error) {
	if spec == "" {
		spec = os.Getenv("TOOLSCOPE_MODEL")
	}
	provider, name, ok := strings.Cut(spec, ":")
	if !ok || name == "" {
		return nil, usageErr("no model: pass --model openai:NAME or anthropic:NAME, or set TOOLSCOPE_MODEL (got %q)", spec)
	}
	switch provider {
	case "openai":
		return openai.New(name, nil), nil
	case "anthropic":
		return anthropic.New(name, nil), nil
	}
	return nil, usageErr("unknown model provider %q in %q (want openai or anthropic)", provider, spec)
}
