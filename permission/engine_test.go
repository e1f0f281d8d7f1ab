package permission

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// subject is a configurable Subject: content rules match when the input (a
// JSON string) contains the rule content.
type subject struct {
	readOnly bool
	check    Decision
	checkErr error
	checked  int
}

func (s *subject) Name() string                                   { return "Tool" }
func (s *subject) ReadOnly(context.Context, json.RawMessage) bool { return s.readOnly }
func (s *subject) Suggestions(json.RawMessage) []Rule {
	return []Rule{{Tool: "Tool", Behavior: Allow, Source: "suggested"}}
}
func (s *subject) MatchRule(r Rule, in json.RawMessage) bool {
	return strings.Contains(string(in), r.Content)
}
func (s *subject) CheckPermissions(context.Context, json.RawMessage, *Context) (Decision, error) {
	s.checked++
	if s.check.Behavior == "" {
		return Decision{Behavior: Passthrough}, s.checkErr
	}
	return s.check, s.checkErr
}

var sugg = []Rule{{Tool: "Tool", Behavior: Allow, Source: "suggested"}}

func rules(b Behavior, contents ...string) []Rule {
	var rs []Rule
	for _, c := range contents {
		rs = append(rs, Rule{Tool: "Tool", Content: c, Behavior: b})
	}
	return rs
}

func TestEngineModesBySteps(t *testing.T) {
	immuneAsk := Decision{Behavior: Ask, Message: "Tool says: dangerous", Reason: "danger", BypassImmune: true}
	plainAsk := Decision{Behavior: Ask, Message: "Tool says: maybe", Reason: "maybe"}
	toolAllow := Decision{Behavior: Allow, Message: "Tool says yes", Reason: "tool allowed"}
	toolDeny := Decision{Behavior: Deny, Message: "Tool says no", Reason: "tool denied"}

	denyRule := Decision{Behavior: Deny, Message: "Permission to use Tool has been denied", Reason: "Rule: Tool(x)"}
	askRule := Decision{Behavior: Ask, Message: "Permission required for Tool", Reason: "Rule: Tool(x)", Suggestions: sugg}
	askRuleDontAsk := Decision{Behavior: Deny, Message: "Permission denied for Tool (dont_ask mode - ASK converted to DENY, user not available)",
		Reason: "DONT_ASK mode converted ASK to DENY. Original reason: Rule: Tool(x)", Suggestions: sugg}
	readOnly := Decision{Behavior: Allow, Message: "Permission granted for Tool (read-only invocation)", Reason: "Read-only operations are auto-allowed"}
	allowRule := Decision{Behavior: Allow, Message: "Permission granted for Tool", Reason: "Rule: Tool(x)", UpdatedInput: json.RawMessage(`"x"`)}
	immuneKept := Decision{Behavior: Ask, Message: "Tool says: dangerous", Reason: "danger", BypassImmune: true, Suggestions: sugg}
	immuneDontAsk := Decision{Behavior: Deny, Message: "Permission denied for Tool (dont_ask mode - ASK converted to DENY, user not available)",
		Reason: "DONT_ASK mode converted ASK to DENY. Original reason: danger", Suggestions: sugg}
	fallback := map[Mode]Decision{
		Default:     {Behavior: Ask, Message: "Permission required for Tool", Reason: "Mode: default", Suggestions: sugg},
		AcceptEdits: {Behavior: Ask, Message: "Permission required for Tool", Reason: "Mode: accept_edits", Suggestions: sugg},
		Explore:     {Behavior: Deny, Message: "Permission denied for Tool (explore mode is read-only)", Reason: "Explore mode does not allow modifications"},
		Bypass:      {Behavior: Allow, Message: "Permission granted for Tool (bypass mode)", Reason: "Bypass mode allows all operations"},
		DontAsk:     {Behavior: Deny, Message: "Permission denied for Tool (dont_ask mode - user not available)", Reason: "User is not available to answer permission prompts"},
	}
	all := func(d Decision) map[Mode]Decision {
		return map[Mode]Decision{Default: d, AcceptEdits: d, Explore: d, Bypass: d, DontAsk: d}
	}
	// with returns fallback decisions overridden for some modes.
	with := func(over map[Mode]Decision) map[Mode]Decision {
		m := map[Mode]Decision{}
		for k, v := range fallback {
			m[k] = v
		}
		for k, v := range over {
			m[k] = v
		}
		return m
	}

	tests := []struct {
		name             string
		allow, deny, ask []Rule
		readOnly         bool
		check            Decision
		want             map[Mode]Decision
		checkCalled      map[Mode]bool // nil: called in every mode but Explore
	}{
		{name: "step1 deny rule", deny: rules(Deny, "x"), want: all(denyRule), checkCalled: map[Mode]bool{}},
		{name: "step1 deny rule beats read-only", deny: rules(Deny, "x"), readOnly: true, want: all(denyRule), checkCalled: map[Mode]bool{}},
		{name: "step1 deny beats ask and allow", deny: rules(Deny, "x"), ask: rules(Ask, "x"), allow: rules(Allow, "x"), want: all(denyRule), checkCalled: map[Mode]bool{}},
		{name: "step2 ask rule", ask: rules(Ask, "x"), want: with(map[Mode]Decision{
			Default: askRule, AcceptEdits: askRule, Explore: askRule, Bypass: askRule, DontAsk: askRuleDontAsk}), checkCalled: map[Mode]bool{}},
		{name: "step2 ask rule beats read-only", ask: rules(Ask, "x"), readOnly: true, want: with(map[Mode]Decision{
			Default: askRule, AcceptEdits: askRule, Explore: askRule, Bypass: askRule, DontAsk: askRuleDontAsk}), checkCalled: map[Mode]bool{}},
		{name: "step2 ask beats allow rule", ask: rules(Ask, "x"), allow: rules(Allow, "x"), check: toolAllow, want: with(map[Mode]Decision{
			Default: askRule, AcceptEdits: askRule, Explore: askRule, Bypass: askRule, DontAsk: askRuleDontAsk}), checkCalled: map[Mode]bool{}},
		{name: "step3 read-only", readOnly: true, check: toolDeny, want: all(readOnly), checkCalled: map[Mode]bool{}},
		{name: "step4 tool allow", check: toolAllow, want: with(map[Mode]Decision{
			Default: toolAllow, AcceptEdits: toolAllow, Bypass: toolAllow, DontAsk: toolAllow})},
		{name: "step4 tool deny beats allow rule", check: toolDeny, allow: rules(Allow, "x"), want: with(map[Mode]Decision{
			Default: toolDeny, AcceptEdits: toolDeny, Bypass: toolDeny, DontAsk: toolDeny})},
		{name: "step4 immune ask", check: immuneAsk, want: with(map[Mode]Decision{
			Default: immuneKept, AcceptEdits: immuneKept, DontAsk: immuneDontAsk})},
		{name: "step4 immune ask beats allow rule", check: immuneAsk, allow: rules(Allow, "x"), want: with(map[Mode]Decision{
			Default: immuneKept, AcceptEdits: immuneKept, Bypass: allowRule, DontAsk: immuneDontAsk})},
		{name: "step4 plain ask falls through to fallback", check: plainAsk, want: fallback},
		{name: "step4 plain ask then allow rule", check: plainAsk, allow: rules(Allow, "x"), want: with(map[Mode]Decision{
			Default: allowRule, AcceptEdits: allowRule, Bypass: allowRule, DontAsk: allowRule})},
		{name: "step5 passthrough then allow rule", allow: rules(Allow, "x"), want: with(map[Mode]Decision{
			Default: allowRule, AcceptEdits: allowRule, Bypass: allowRule, DontAsk: allowRule})},
		{name: "step5 allow rule that does not match", allow: rules(Allow, "nomatch"), want: fallback},
		{name: "step6 fallback", want: fallback},
	}
	n := 0
	for _, tt := range tests {
		for _, mode := range Modes {
			n++
			t.Run(tt.name+"/"+string(mode), func(t *testing.T) {
				s := &subject{readOnly: tt.readOnly, check: tt.check}
				pc := &Context{Mode: mode, Allow: tt.allow, Deny: tt.deny, Ask: tt.ask}
				got, err := NewEngine(pc).Check(context.Background(), s, json.RawMessage(`"x"`))
				if err != nil {
					t.Fatal(err)
				}
				want := tt.want[mode]
				if want.Reason == "" && (want.Behavior == Allow || want.Behavior == Deny) && want.Message == "" {
					t.Fatal("bad test")
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("decision (-want +got):\n%s", diff)
				}
				wantCalled := mode != Explore
				if tt.checkCalled != nil {
					wantCalled = tt.checkCalled[mode]
				}
				if (s.checked > 0) != wantCalled {
					t.Errorf("tool check called %d times, want called=%v", s.checked, wantCalled)
				}
			})
		}
	}
	if n < 40 {
		t.Fatalf("only %d cases", n)
	}
}

func TestEngineRuleMatching(t *testing.T) {
	ctx := context.Background()
	s := &subject{}
	// Rules under another tool name never match, even with empty content.
	pc := &Context{Mode: Default, Deny: []Rule{{Tool: "Other", Behavior: Deny}}}
	if d, _ := NewEngine(pc).Check(ctx, s, json.RawMessage(`"x"`)); d.Behavior != Ask {
		t.Errorf("rule of another tool applied: %+v", d)
	}
	// Empty content matches every input; first match wins.
	pc = &Context{Mode: Default, Allow: []Rule{{Tool: "Tool", Behavior: Allow, Source: "a"}, {Tool: "Tool", Content: "x", Behavior: Allow}}}
	d, _ := NewEngine(pc).Check(ctx, s, json.RawMessage(`"x"`))
	if d.Behavior != Allow || d.Reason != "Rule: Tool" {
		t.Errorf("whole-tool rule: %+v", d)
	}
	pc = &Context{Mode: Default, Allow: []Rule{{Tool: "Tool", Content: "nope", Behavior: Allow}, {Tool: "Tool", Content: "x", Behavior: Allow}}}
	d, _ = NewEngine(pc).Check(ctx, s, json.RawMessage(`"x"`))
	if d.Reason != "Rule: Tool(x)" {
		t.Errorf("first matching rule: %+v", d)
	}
	// Nil context: Default mode, no rules.
	if d, _ := NewEngine(nil).Check(ctx, s, json.RawMessage(`"x"`)); d.Behavior != Ask || d.Reason != "Mode: default" {
		t.Errorf("nil context: %+v", d)
	}
}

func TestEngineCheckError(t *testing.T) {
	s := &subject{checkErr: errors.New("cannot resolve path")}
	_, err := NewEngine(&Context{Mode: Bypass}).Check(context.Background(), s, json.RawMessage(`"x"`))
	if err == nil || !strings.Contains(err.Error(), "cannot resolve path") {
		t.Fatalf("err = %v", err)
	}
	s = &subject{check: Decision{Behavior: "maybe"}}
	if _, err := NewEngine(&Context{Mode: Default}).Check(context.Background(), s, json.RawMessage(`"x"`)); err == nil {
		t.Fatal("invalid behavior accepted")
	}
}

func TestToolReasonFilledIn(t *testing.T) {
	s := &subject{check: Decision{Behavior: Allow, Message: "ok"}}
	d, _ := NewEngine(&Context{Mode: Default}).Check(context.Background(), s, json.RawMessage(`"x"`))
	if d.Reason != "Tool check: Tool" {
		t.Errorf("reason = %q", d.Reason)
	}
}

func BenchmarkEngineCheck(b *testing.B) {
	pc := &Context{Mode: Default,
		Deny:  rules(Deny, "rm", "curl", "wget"),
		Ask:   rules(Ask, "push"),
		Allow: rules(Allow, "git log", "ls", "x"),
	}
	s := &subject{}
	e := NewEngine(pc)
	in := json.RawMessage(`"x"`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if d, _ := e.Check(ctx, s, in); d.Behavior != Allow {
			b.Fatal(d)
		}
	}
}
