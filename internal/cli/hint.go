package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// The hints of call's exit 3 say what would let the call through, as flags
// ready to paste.

// noTerminalHint is the message of a call that needs approval when there is
// no terminal to ask.
func noTerminalHint(name string, d *permission.Decision, s *setup, c *common, fromStdin bool) string {
	why := "there is no terminal to ask"
	if fromStdin {
		why = "the input came from standard input and there is no terminal (/dev/tty) to ask"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s needs approval (%s) and %s.\n", name, d.Message, why)
	b.WriteString(askRemedy(name, d, s, c))
	return strings.TrimSuffix(b.String(), "\n")
}

// askRemedy says what lets an Ask through.
func askRemedy(name string, d *permission.Decision, s *setup, c *common) string {
	if r, ok := decidingRule(d.Reason, s.effective.Ask, c); ok {
		return fmt.Sprintf("The ask rule %s asks for every such call, whatever the allow rules and the mode say: pass --yes to approve this one call, or remove the rule.", r)
	}
	if d.BypassImmune {
		return fmt.Sprintf("Rules cannot allow it: the check that asks (%s) is bypass-immune. Only --yes (approve this one call) or --mode bypass lets it through.", d.Reason)
	}
	if flags := allowFlags(name, d.Suggestions, s.effective, s); flags != "" {
		return "To allow it and calls like it, pass " + flags + "; or pass --yes to approve this one call."
	}
	return "Pass --yes to approve this one call."
}

// allowFlags returns the --allow flags that let the call through in the
// permission context pc: the suggested rules if they do (checked, not
// assumed: a compound command may need more than its suggestions), else the
// rule for the whole tool if it does; "" if no allow rule does.
func allowFlags(name string, suggestions []permission.Rule, pc *permission.Context, s *setup) string {
	try := func(rules []permission.Rule) string {
		with := pc.Clone()
		var flags []string
		for _, r := range rules {
			r.Behavior = permission.Allow
			with.AddRule(r)
			flags = append(flags, "--allow "+shellQuote(r.String()))
		}
		if len(rules) == 0 || s.decide(name, with).Behavior != permission.Allow {
			return ""
		}
		if len(flags) > 1 {
			return strings.Join(flags, " ") + " (all of them: each covers a part of the call)"
		}
		return flags[0]
	}
	if f := try(suggestions); f != "" {
		return f
	}
	if f := try([]permission.Rule{{Tool: name}}); f != "" {
		return f + " (every " + name + " call: no narrower rule covers this one)"
	}
	return ""
}

// decide is the engine's decision on this invocation's call in pc, or a
// zero Decision if the check fails.
func (s *setup) decide(name string, pc *permission.Context) permission.Decision {
	st := tool.NewState(pc)
	builtin.DataOf(st).SetCwd(builtin.DataOf(s.st).Cwd())
	if s.judgment != nil {
		// The engine alone, on the call's own judgment: what another rule
		// or mode would make of what was judged.
		ctx := tool.WithState(context.Background(), st)
		d, err := permission.NewEngine(pc).Check(ctx, judgedCall{name: name, ruleNames: s.ruleNames(name), j: s.judgment})
		if err != nil {
			return permission.Decision{}
		}
		return d
	}
	v, err := s.Toolkit.Check(context.Background(), &tool.Call{Name: name, Input: json.RawMessage(s.input), State: st})
	if err != nil {
		return permission.Decision{}
	}
	return v.Decision
}

// deniedHint is the message of a denied call: who denied it, and what, if
// anything, would let it through.
func deniedHint(name string, d *permission.Decision, s *setup, c *common) string {
	if r, ok := decidingRule(d.Reason, s.effective.Deny, c); ok {
		return fmt.Sprintf("%s was denied by the deny rule %s. A deny rule wins over --yes and every mode: remove the rule to allow the call.", name, r)
	}
	switch mode := s.effective.Mode; {
	case mode == permission.Explore && !strings.HasPrefix(d.Reason, "Tool check"):
		return fmt.Sprintf("%s was denied: explore mode allows only read-only calls. Run it in another mode (--mode default asks for approval).", name)
	case mode == permission.DontAsk && d.Reason != "" && !strings.HasPrefix(d.Reason, "Tool check"):
		// What would default mode have asked? That is what dont_ask denied.
		pc := s.effective.Clone()
		pc.Mode = permission.Default
		asked := s.decide(name, pc)
		msg := fmt.Sprintf("%s was denied: dont_ask mode denies every call that would need approval.", name)
		if asked.Behavior != permission.Ask {
			return msg
		}
		if r, ok := decidingRule(asked.Reason, pc.Ask, c); ok {
			return msg + fmt.Sprintf(" The ask rule %s asks for it: run it in another mode with --yes, or remove the rule.", r)
		}
		if asked.BypassImmune {
			return msg + fmt.Sprintf(" Rules cannot allow it (%s is bypass-immune): only --mode bypass, or another mode with --yes, lets it through.", asked.Reason)
		}
		if flags := allowFlags(name, asked.Suggestions, s.effective, s); flags != "" {
			return msg + " To allow it in dont_ask mode, pass " + flags + "."
		}
		return msg + " Run it in another mode with --yes."
	}
	return fmt.Sprintf("%s was denied by its own check (%s); neither rules nor --yes override that.", name, d.Reason)
}

// decidingRule finds the rule a decision's reason names ("Rule: Bash(rm:*)")
// in rules, and describes it with where it came from: "Bash(rm:*) (given
// with --deny)".
func decidingRule(reason string, rules []permission.Rule, c *common) (string, bool) {
	text, ok := strings.CutPrefix(reason, "Rule: ")
	if !ok {
		return "", false
	}
	want, err := permission.ParseRule(text)
	if err != nil {
		return "", false
	}
	for _, r := range rules {
		if r.Tool != want.Tool || r.Content != want.Content {
			continue
		}
		switch {
		case r.Source == "cli":
			return text + " (given with --" + string(r.Behavior) + ")", true
		case strings.Contains(r.Source, ": "): // a settings file and its key
			return text + " (from " + r.Source + ")", true
		}
		return text + " (saved in --state " + c.statePath + ")", true
	}
	return text, true
}

// shellQuote quotes s for a POSIX shell: in single quotes, each quote inside
// closed, escaped and reopened.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// judgedCall is a call's judgment as the permission engine's subject.
type judgedCall struct {
	name      string
	ruleNames []string
	j         tool.Judgment
}

func (c judgedCall) Name() string                                      { return c.name }
func (c judgedCall) RuleNames() []string                               { return c.ruleNames }
func (c judgedCall) ReadOnly(ctx context.Context) bool                 { return c.j.ReadOnly(ctx) }
func (c judgedCall) Suggestions(ctx context.Context) []permission.Rule { return c.j.Suggestions(ctx) }
func (c judgedCall) MatchRule(ctx context.Context, r permission.Rule) bool {
	return c.j.MatchRule(ctx, r)
}
func (c judgedCall) CheckPermissions(ctx context.Context, pc *permission.Context) (permission.Decision, error) {
	return c.j.CheckPermissions(ctx, pc)
}

// ruleNames are the further names whose rules apply to the tool name.
func (s *setup) ruleNames(name string) []string {
	for _, t := range s.Toolkit.Tools(context.Background(), s.st.ActiveGroups()) {
		if i := t.Info(); i.Name == name {
			return i.RuleNames
		}
	}
	return nil
}
