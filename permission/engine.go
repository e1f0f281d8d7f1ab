package permission

import (
	"context"
	"fmt"
	"strings"
)

// Subject is one call of one tool, as the engine sees it: the tool's name
// and rules, and its opinion of the call's input. The input is not passed
// to the methods: a Subject is made for one input, parsed once (package
// tool makes one per call, and a shell command is parsed and analysed once
// for every question below and for its run).
type Subject interface {
	// Name is the tool's name ("Bash", "mcp__fs__read_file"): rules filed
	// under it apply, and so do rules naming its MCP server (see the package
	// documentation).
	Name() string
	// RuleNames are further tool names whose rules apply to this tool, as
	// Claude Code applies Read rules to Grep and Glob and Edit rules to
	// Write. Most tools have none.
	RuleNames() []string
	// ReadOnly reports whether this invocation only reads (the fast path).
	// ctx is the one given to [Engine.Check]: it carries what the tool needs
	// to judge the input in place (the agent state with the shell's working
	// directory, in package tool).
	ReadOnly(ctx context.Context) bool
	// CheckPermissions is the tool's own opinion of the call. It returns
	// Passthrough when it has none. An error means the check itself broke; the
	// engine passes it on and the call must not run.
	CheckPermissions(ctx context.Context, pc *Context) (Decision, error)
	// MatchRule reports whether rule applies to the input. The rule is
	// passed as the user wrote it: its Tool is Name(), one of RuleNames(),
	// or the tool's MCP server ("mcp__fs").
	// The rule's Behavior is given so a tool can match conservatively: an
	// allow rule must cover the whole input, a deny rule any part of it.
	MatchRule(ctx context.Context, rule Rule) bool
	// Suggestions returns rules that would allow this call next time.
	Suggestions(ctx context.Context) []Rule
}

// Engine evaluates calls against a [Context]. An Engine is cheap; make one per
// check or keep one per agent. It reads the Context and never changes it.
type Engine struct {
	ctx *Context
}

// NewEngine returns an engine over c. A nil c means Default mode without rules.
func NewEngine(c *Context) *Engine {
	if c == nil {
		c = &Context{Mode: Default}
	}
	return &Engine{ctx: c}
}

// Check decides the call s, in the order documented for the
// package. The returned error is never a permission answer: it means the tool's
// check failed, and the call must not run.
func (e *Engine) Check(ctx context.Context, s Subject) (Decision, error) {
	mode := e.ctx.Mode
	if mode == "" {
		mode = Default
	}
	name := s.Name()

	// 1. Deny rules.
	if d, ok := e.CheckDenyRules(ctx, s); ok {
		return d, nil
	}
	// 2. Ask rules. No allow rule can pass what an ask rule matches, so an
	// ask suggests no rule.
	if r, ok := e.match(ctx, e.ctx.Ask, s); ok {
		d := Decision{
			Behavior: Ask,
			Message:  "Permission required for " + name,
			Reason:   "Rule: " + r.String(),
			Rules:    []Rule{r},
		}
		if mode == DontAsk {
			return dontAsk(name, d), nil
		}
		return d, nil
	}
	// 3. Read-only fast path.
	if s.ReadOnly(ctx) {
		return Decision{
			Behavior: Allow,
			Message:  "Permission granted for " + name + " (read-only invocation)",
			Reason:   "Read-only operations are auto-allowed",
		}, nil
	}
	// 4. The tool's own check.
	var toolSuggestions []Rule
	if mode != Explore {
		d, err := s.CheckPermissions(ctx, e.ctx)
		if err != nil {
			return Decision{}, fmt.Errorf("permission check of %s: %w", name, err)
		}
		if d.Reason == "" {
			d.Reason = "Tool check: " + name
		}
		switch d.Behavior {
		case Allow, Deny:
			return d, nil
		case Ask:
			if d.BypassImmune {
				// No rule can pass an immune ask: it suggests none.
				d.Suggestions = nil
				switch mode {
				case Default, AcceptEdits:
					return d, nil
				case DontAsk:
					return dontAsk(name, d), nil
				}
				// Bypass ignores even immune asks.
			}
			toolSuggestions = d.Suggestions
		case Passthrough:
			toolSuggestions = d.Suggestions
		default:
			return Decision{}, fmt.Errorf("permission check of %s: invalid behavior %q", name, d.Behavior)
		}
		// 5. Allow rules.
		if r, ok := e.match(ctx, e.ctx.Allow, s); ok {
			return Decision{
				Behavior: Allow,
				Message:  "Permission granted for " + name,
				Reason:   "Rule: " + r.String(),
				Rules:    []Rule{r},
			}, nil
		}
	}
	// 6. The mode's fallback.
	switch mode {
	case Bypass:
		return Decision{
			Behavior: Allow,
			Message:  "Permission granted for " + name + " (bypass mode)",
			Reason:   "Bypass mode allows all operations",
		}, nil
	case Explore:
		return Decision{
			Behavior: Deny,
			Message:  "Permission denied for " + name + " (explore mode is read-only)",
			Reason:   "Explore mode does not allow modifications",
		}, nil
	case DontAsk:
		return Decision{
			Behavior: Deny,
			Message:  "Permission denied for " + name + " (dont_ask mode - user not available)",
			Reason:   "User is not available to answer permission prompts",
		}, nil
	case Default, AcceptEdits:
		// The tool's own suggestions, when its check made some, know where
		// the call runs (the shell's working directory).
		sugg := toolSuggestions
		if sugg == nil {
			sugg = s.Suggestions(ctx)
		}
		return Decision{
			Behavior:    Ask,
			Message:     "Permission required for " + name,
			Reason:      "Mode: " + string(mode),
			Suggestions: sugg,
		}, nil
	}
	return Decision{}, fmt.Errorf("permission check of %s: unknown mode %q", name, mode)
}

// CheckDenyRules reports the decision of the first deny rule that matches,
// if any. Callers running a call the user already approved use it: a deny
// rule wins even over the user's approval.
func (e *Engine) CheckDenyRules(ctx context.Context, s Subject) (Decision, bool) {
	r, ok := e.match(ctx, e.ctx.Deny, s)
	if !ok {
		return Decision{}, false
	}
	return Decision{
		Behavior: Deny,
		Message:  "Permission to use " + s.Name() + " has been denied",
		Reason:   "Rule: " + r.String(),
		Rules:    []Rule{r},
	}, true
}

// dontAsk converts an Ask into the Deny that DontAsk mode gives instead. The
// suggestions stay (a caller may show them later); BypassImmune does not carry
// over, as the result is no longer an Ask.
func dontAsk(name string, d Decision) Decision {
	return Decision{
		Behavior:    Deny,
		Message:     "Permission denied for " + name + " (dont_ask mode - ASK converted to DENY, user not available)",
		Reason:      "DONT_ASK mode converted ASK to DENY. Original reason: " + d.Reason,
		Rules:       d.Rules,
		Suggestions: d.Suggestions,
	}
}

// match returns the first rule of rules that is filed under one of s's names
// and applies to its input. Empty content matches everything.
func (e *Engine) match(ctx context.Context, rules []Rule, s Subject) (Rule, bool) {
	name, aliases := s.Name(), s.RuleNames()
	for _, r := range rules {
		if !fileMatches(r.Tool, name, aliases) {
			continue
		}
		if r.Content == "" || s.MatchRule(ctx, r) {
			return r, true
		}
	}
	return Rule{}, false
}

// fileMatches reports whether a rule for ruleTool is filed under the tool
// name or one of its aliases.
func fileMatches(ruleTool, name string, aliases []string) bool {
	if ruleNameMatches(ruleTool, name) {
		return true
	}
	for _, a := range aliases {
		if ruleNameMatches(ruleTool, a) {
			return true
		}
	}
	return false
}

// ruleNameMatches reports whether a rule for ruleTool is filed under the tool
// name: the two are equal, or ruleTool names the MCP server of an MCP tool
// ("mcp__fs" and "mcp__fs__*" for "mcp__fs__read_file", but not for
// "mcp__fsx__read_file").
func ruleNameMatches(ruleTool, name string) bool {
	if ruleTool == name {
		return true
	}
	server, ok := strings.CutPrefix(ruleTool, "mcp__")
	if !ok {
		return false
	}
	if s, wild := strings.CutSuffix(server, "__*"); wild {
		server = s
	} else if strings.Contains(server, "__") {
		return false // mcp__server__tool names one tool
	}
	if server == "" {
		return false
	}
	rest, ok := strings.CutPrefix(name, "mcp__"+server+"__")
	return ok && rest != ""
}
