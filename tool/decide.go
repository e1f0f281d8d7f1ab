package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/permission"
)

// Verdict is what [Toolkit.Check] learns of a call without running it.
type Verdict struct {
	// Decision is the permission engine's final answer.
	Decision permission.Decision
	// ReadOnly reports whether the tool judges this input read-only.
	ReadOnly bool
	// Tool is the tool the call names.
	Tool Tool
	// Judgment is what the tool's [Judge] made of the input (of the input
	// a permission hook rewrote it into, when one did); nil for other tools.
	Judgment Judgment
}

// prepared is a call that found its tool and passed validation.
type prepared struct {
	e     *entry
	input json.RawMessage
	st    *State

	judged bool     // subj is made
	subj   *subject // the call as the permission engine sees it
}

// subject returns the call as the permission engine sees it, made once:
// for a tool that implements [Judge], with its one [Judgment] of the input.
func (p *prepared) subject(ctx context.Context) *subject {
	if !p.judged {
		p.judged = true
		p.subj = &subject{e: p.e, input: p.input}
		if jg, ok := p.e.tool.(Judge); ok {
			p.subj.j, p.subj.jerr = judge(WithState(ctx, p.st), jg, p.input)
			if p.subj.j == nil && p.subj.jerr == nil {
				p.subj.jerr = errors.New("the tool made no judgment of the input")
			}
		}
	}
	return p.subj
}

// judge calls the tool's Judge, turning a panic into an error: a tool that
// cannot judge its input does not run.
func judge(ctx context.Context, jg Judge, input json.RawMessage) (j Judgment, err error) {
	defer func() {
		if v := recover(); v != nil {
			j, err = nil, fmt.Errorf("judging the input panicked: %v", v)
		}
	}()
	return jg.Judge(ctx, input)
}

// ErrInvalidCall is matched (with errors.Is) by the errors of
// [Toolkit.Check] for a call that cannot run as given: its tool does not
// exist or is in an inactive group, or its input is not JSON or breaks the
// tool's schema. Any other error of Check means the tool's permission check
// failed.
var ErrInvalidCall = errors.New("invalid call")

// The kinds of [ErrInvalidCall], each matched with errors.Is as well: the
// text of the error is what the model reads, and these let a caller tell
// the cases apart without parsing it.
var (
	// ErrToolNotFound: no tool has the call's name.
	ErrToolNotFound = errors.New("tool not found")
	// ErrGroupInactive: the tool is in a group that is not active.
	ErrGroupInactive = errors.New("tool group inactive")
	// ErrInvalidInput: the input is not a JSON object or breaks the schema.
	ErrInvalidInput = errors.New("invalid input")
)

// invalidCall is an error of the model's call; its text is what the model reads.
type invalidCall struct {
	msg  string
	kind error // one of ErrToolNotFound, ErrGroupInactive, ErrInvalidInput
}

func (e *invalidCall) Error() string { return e.msg }

func (e *invalidCall) Is(target error) bool {
	return target == ErrInvalidCall || target == e.kind
}

// prepare finds the tool of call among the active groups, validates the
// input against its schema and writes whole numbers at integer locations as
// digits (see integerLiterals). The error's text is what the model reads.
func (tk *Toolkit) prepare(ctx context.Context, call *Call) (*prepared, error) {
	st := call.State
	if st == nil {
		// Nobody owns this state past the call: it holds no runtime part
		// (a background shell started in it could never be read or
		// stopped).
		st = NewState(nil)
		st.Close()
	}
	e, missing := tk.lookup(ctx, call.Name, st.ActiveGroups())
	if e == nil {
		kind := ErrToolNotFound
		if strings.HasPrefix(missing, "ToolGroupInactiveError") {
			kind = ErrGroupInactive
		}
		return nil, &invalidCall{missing, kind}
	}
	input := call.Input
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	m, err := decodeInput(call.Name, input, decodesInGo(e.info))
	if err != nil {
		return nil, &invalidCall{err.Error(), ErrInvalidInput}
	}
	schema, err := e.compiled()
	if err != nil {
		return nil, err
	}
	if err := schema.validate(call.Name, m); err != nil {
		return nil, &invalidCall{err.Error(), ErrInvalidInput}
	}
	if decodesInGo(e.info) {
		if err := schema.checkIntegerRange(call.Name, input); err != nil {
			return nil, &invalidCall{err.Error(), ErrInvalidInput}
		}
	}
	return &prepared{e: e, input: schema.integerLiterals(input), st: st}, nil
}

// decide is the decision on a prepared call: the permission hook's, when
// there is one, else the engine's. Deny rules win over a hook's Allow. It
// returns the prepared call the decision is about: p, or the call a hook
// rewrote p into.
//
// A hook that rewrites the input (Decision.UpdatedInput) makes a new call:
// what will run is judged again, as if the model had sent it (see
// rejudge), so a rewrite cannot carry a command past the deny rules, the
// safety checks or the mode that the original input passed.
func (tk *Toolkit) decide(ctx context.Context, p *prepared, call *Call) (permission.Decision, *prepared, error) {
	if tk.hook == nil {
		d, err := p.decide(ctx, call)
		return d, p, err
	}
	d, err := tk.hook(ctx, call, func() (permission.Decision, error) { return p.decide(ctx, call) })
	if err != nil || d.Behavior == permission.Deny {
		return d, p, err
	}
	if len(d.UpdatedInput) > 0 && string(d.UpdatedInput) != string(p.input) {
		return tk.rejudge(ctx, p, call, d)
	}
	if d.Behavior != permission.Allow {
		return d, p, nil
	}
	if dd, denied := permission.NewEngine(p.st.Permissions()).CheckDenyRules(ctx, p.subject(ctx)); denied {
		return dd, p, nil
	}
	return d, p, nil
}

// rejudge decides a call whose input a permission hook rewrote into
// d.UpdatedInput. The new input must pass the tool's schema, and the engine
// judges it as if the model had sent it: its Deny stands (a deny rule,
// dont_ask, explore), and so does its Ask, which shows the new input; the
// deny rules of the original input still apply too. A hook's Allow cannot
// pass what the engine would ask about (the hook answered, or passed on
// the engine's answer, about the original input); a hook's Ask still asks
// about what the engine would allow. A call the user approved (after seeing
// the rewritten input) meets only the deny rules again.
func (tk *Toolkit) rejudge(ctx context.Context, p *prepared, call *Call, d permission.Decision) (permission.Decision, *prepared, error) {
	engine := permission.NewEngine(p.st.Permissions())
	if dd, denied := engine.CheckDenyRules(ctx, p.subject(ctx)); denied {
		return dd, p, nil
	}
	rewritten := *call
	rewritten.Input = d.UpdatedInput
	q, err := tk.prepare(ctx, &rewritten)
	if err != nil {
		return permission.Decision{Behavior: permission.Deny, Reason: "PreToolUse hook",
			Message: fmt.Sprintf("A PreToolUse hook rewrote the input of %s into one that cannot run, so it was not run: %v", call.Name, err)}, p, nil
	}
	if dd, denied := engine.CheckDenyRules(ctx, q.subject(ctx)); denied {
		return dd, q, nil
	}
	if call.Approved {
		d.Behavior = permission.Allow
		return d, q, nil
	}
	ed, err := engine.Check(ctx, q.subject(ctx))
	if err != nil {
		return permission.Decision{}, q, err
	}
	if ed.Behavior == permission.Allow && d.Behavior != permission.Allow {
		return d, q, nil // the hook asks about what the engine would allow
	}
	ed.UpdatedInput = d.UpdatedInput
	return ed, q, nil
}

// decide asks the permission engine about a prepared call. A call the user
// approved is allowed without the engine, except that deny rules still win.
func (p *prepared) decide(ctx context.Context, call *Call) (permission.Decision, error) {
	engine := permission.NewEngine(p.st.Permissions())
	if call.Approved {
		if d, denied := engine.CheckDenyRules(ctx, p.subject(ctx)); denied {
			return d, nil
		}
		if s := p.subject(ctx); s.jerr != nil {
			return permission.Decision{}, fmt.Errorf("permission check of %s: %w", call.Name, s.jerr)
		}
		return permission.Decision{Behavior: permission.Allow, Message: "Permission granted for " + call.Name + " (approved by the user)", Reason: "User approval"}, nil
	}
	return engine.Check(ctx, p.subject(ctx))
}

// Check finds the tool of call, validates the input and asks the permission
// engine, without running anything. The error's text is what the model would
// have read for a call that cannot run (an unknown tool, invalid input: the
// error matches [ErrInvalidCall]), or the failure of the tool's permission
// check.
func (tk *Toolkit) Check(ctx context.Context, call *Call) (*Verdict, error) {
	p, err := tk.prepare(ctx, call)
	if err != nil {
		return nil, err
	}
	ctx = WithState(ctx, p.st)
	d, fp, err := tk.decide(ctx, p, call)
	if err != nil {
		return nil, err
	}
	s := fp.subject(ctx)
	return &Verdict{Decision: d, ReadOnly: s.ReadOnly(ctx), Tool: fp.e.tool, Judgment: s.j}, nil
}

// Validate finds the tool of call and validates the input, as Check and
// Call do first, without judging it: the error (matching
// [ErrInvalidCall]) is what the model would read.
func (tk *Toolkit) Validate(ctx context.Context, call *Call) error {
	_, err := tk.prepare(ctx, call)
	return err
}

// subject is one call of a registered tool as [permission.Subject] sees
// it: with the tool's [Judgment] of the input when the tool judges (j, or
// jerr when judging broke), else through the tool's methods with the raw
// input and the documented defaults for the optional interfaces.
type subject struct {
	e     *entry
	input json.RawMessage
	j     Judgment
	jerr  error
}

func (s *subject) Name() string { return s.e.info.Name }

func (s *subject) RuleNames() []string {
	if n, ok := find[InputRuleNamer](s.e.tool); ok {
		if more := n.RuleNamesFor(s.input); len(more) > 0 {
			return append(slices.Clip(s.e.info.RuleNames), more...)
		}
	}
	return s.e.info.RuleNames
}

func (s *subject) ReadOnly(ctx context.Context) bool {
	switch {
	case s.jerr != nil:
		return false
	case s.j != nil:
		return s.j.ReadOnly(ctx)
	}
	if c, ok := find[ReadOnlyChecker](s.e.tool); ok {
		return c.CheckReadOnly(ctx, s.input)
	}
	return s.e.info.ReadOnly
}

func (s *subject) CheckPermissions(ctx context.Context, pc *permission.Context) (permission.Decision, error) {
	switch {
	case s.jerr != nil:
		return permission.Decision{}, s.jerr
	case s.j != nil:
		return s.j.CheckPermissions(ctx, pc)
	}
	return s.e.tool.CheckPermissions(ctx, s.input, pc)
}

// MatchRule asks the tool's Judgment, or its RuleMatcher, found through
// wrappers (see [Wrapper]). A rule with content that no matcher can
// evaluate fails closed: it never allows, and a deny or ask rule applies.
func (s *subject) MatchRule(ctx context.Context, r permission.Rule) bool {
	switch {
	case s.jerr != nil:
		return r.Content == "" || r.Behavior != permission.Allow
	case s.j != nil:
		return s.j.MatchRule(ctx, r)
	}
	if m, ok := find[RuleMatcher](s.e.tool); ok {
		return m.MatchRule(ctx, r, s.input)
	}
	return r.Content == "" || r.Behavior != permission.Allow
}

func (s *subject) Suggestions(ctx context.Context) []permission.Rule {
	switch {
	case s.jerr != nil:
		return nil
	case s.j != nil:
		return s.j.Suggestions(ctx)
	}
	if g, ok := find[Suggester](s.e.tool); ok {
		return g.Suggestions(ctx, s.input)
	}
	return []permission.Rule{{Tool: s.e.info.Name, Behavior: permission.Allow, Source: "suggested"}}
}
