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
	name     string   // "" means "Tool"
	aliases  []string // RuleNames
	readOnly bool
	check    Decision
	checkErr error
	checked  int
	record   bool // record the rules given to MatchRule in matched
	matched  []Rule
	in       json.RawMessage // the call's input
}

// withInput sets the input of the call s stands for.
func withInput(s *subject, in json.RawMessage) *subject {
	s.in = in
	return s
}

func (s *subject) Name() string {
	if s.name == "" {
		return "Tool"
	}
	return s.name
}
func (s *subject) RuleNames() []string           { return s.aliases }
func (s *subject) ReadOnly(context.Context) bool { return s.readOnly }
func (s *subject) Suggestions(context.Context) []Rule {
	return []Rule{{Tool: "Tool", Behavior: Allow, Source: "suggested"}}
}
func (s *subject) MatchRule(_ context.Context, r Rule) bool {
	if s.record {
		s.matched = append(s.matched, r)
	}
	return strings.Contains(string(s.in), r.Content)
}
func (s *subject) CheckPermissions(context.Context, *Context) (Decision, error) {
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

	denyRule := Decision{Behavior: Deny, Message: "Permission to use Tool has been denied", Reason: "Rule: Tool(x)", Rules: rules(Deny, "x")}
	askRule := Decision{Behavior: Ask, Message: "Permission required for Tool", Reason: "Rule: Tool(x)", Rules: rules(Ask, "x")}
	askRuleDontAsk := Decision{Behavior: Deny, Message: "Permission denied for Tool (dont_ask mode - ASK converted to DENY, user not available)",
		Reason: "DONT_ASK mode converted ASK to DENY. Original reason: Rule: Tool(x)", Rules: rules(Ask, "x")}
	readOnly := Decision{Behavior: Allow, Message: "Permission granted for Tool (read-only invocation)", Reason: "Read-only operations are auto-allowed"}
	allowRule := Decision{Behavior: Allow, Message: "Permission granted for Tool", Reason: "Rule: Tool(x)", Rules: rules(Allow, "x")}
	immuneKept := Decision{Behavior: Ask, Message: "Tool says: dangerous", Reason: "danger", BypassImmune: true}
	immuneDontAsk := Decision{Behavior: Deny, Message: "Permission denied for Tool (dont_ask mode - ASK converted to DENY, user not available)",
		Reason: "DONT_ASK mode converted ASK to DENY. Original reason: danger"}
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
				got, err := NewEngine(pc).Check(context.Background(), withInput(s, json.RawMessage(`"x"`)))
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
	if d, _ := NewEngine(pc).Check(ctx, withInput(s, json.RawMessage(`"x"`))); d.Behavior != Ask {
		t.Errorf("rule of another tool applied: %+v", d)
	}
	// Empty content matches every input; first match wins.
	pc = &Context{Mode: Default, Allow: []Rule{{Tool: "Tool", Behavior: Allow, Source: "a"}, {Tool: "Tool", Content: "x", Behavior: Allow}}}
	d, _ := NewEngine(pc).Check(ctx, withInput(s, json.RawMessage(`"x"`)))
	if d.Behavior != Allow || d.Reason != "Rule: Tool" {
		t.Errorf("whole-tool rule: %+v", d)
	}
	pc = &Context{Mode: Default, Allow: []Rule{{Tool: "Tool", Content: "nope", Behavior: Allow}, {Tool: "Tool", Content: "x", Behavior: Allow}}}
	d, _ = NewEngine(pc).Check(ctx, withInput(s, json.RawMessage(`"x"`)))
	if d.Reason != "Rule: Tool(x)" {
		t.Errorf("first matching rule: %+v", d)
	}
	// Nil context: Default mode, no rules.
	if d, _ := NewEngine(nil).Check(ctx, withInput(s, json.RawMessage(`"x"`))); d.Behavior != Ask || d.Reason != "Mode: default" {
		t.Errorf("nil context: %+v", d)
	}
}

func TestEngineCheckError(t *testing.T) {
	s := &subject{checkErr: errors.New("cannot resolve path")}
	_, err := NewEngine(&Context{Mode: Bypass}).Check(context.Background(), withInput(s, json.RawMessage(`"x"`)))
	if err == nil || !strings.Contains(err.Error(), "cannot resolve path") {
		t.Fatalf("err = %v", err)
	}
	s = &subject{check: Decision{Behavior: "maybe"}}
	if _, err := NewEngine(&Context{Mode: Default}).Check(context.Background(), withInput(s, json.RawMessage(`"x"`))); err == nil {
		t.Fatal("invalid behavior accepted")
	}
}

func TestToolReasonFilledIn(t *testing.T) {
	s := &subject{check: Decision{Behavior: Allow, Message: "ok"}}
	d, _ := NewEngine(&Context{Mode: Default}).Check(context.Background(), withInput(s, json.RawMessage(`"x"`)))
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
		if d, _ := e.Check(ctx, withInput(s, in)); d.Behavior != Allow {
			b.Fatal(d)
		}
	}
}

// TestEngineRuleNames covers which rules are filed under a tool: its own name,
// its RuleNames (deny, ask and allow lists alike), and its MCP server.
func TestEngineRuleNames(t *testing.T) {
	ctx := context.Background()
	in := json.RawMessage(`"src/a"`)
	for _, tt := range []struct {
		name    string
		tool    string
		aliases []string
		rule    string // the rule's Tool; content "src" matches the input
		want    bool
	}{
		{"own name", "Grep", []string{"Read"}, "Grep", true},
		{"alias", "Grep", []string{"Read"}, "Read", true},
		{"second alias", "Write", []string{"Create", "Edit"}, "Edit", true},
		{"not an alias", "Grep", []string{"Read"}, "Write", false},
		{"no aliases", "Grep", nil, "Read", false},
		{"mcp server", "mcp__fs__read_file", nil, "mcp__fs", true},
		{"mcp server wildcard", "mcp__fs__read_file", nil, "mcp__fs__*", true},
		{"mcp exact tool", "mcp__fs__read_file", nil, "mcp__fs__read_file", true},
		{"mcp other tool", "mcp__fs__read_file", nil, "mcp__fs__write_file", false},
		{"mcp longer server name", "mcp__fsx__read_file", nil, "mcp__fs", false},
		{"mcp longer server name wildcard", "mcp__fsx__read_file", nil, "mcp__fs__*", false},
		{"mcp shorter server name", "mcp__f__read_file", nil, "mcp__fs", false},
		{"mcp server with __ by wildcard", "mcp__my__srv__t", nil, "mcp__my__srv__*", true},
		{"mcp server tool name is not a server", "mcp__fs__read_file__x", nil, "mcp__fs__read_file", false},
		{"mcp server needs a tool part", "mcp__fs__", nil, "mcp__fs", false},
		{"mcp server rule for the bare server name", "mcp__fs", nil, "mcp__fs", true},
		{"empty server", "mcp____t", nil, "mcp__", false},
		{"mcp server via alias", "Proxy", []string{"mcp__fs__read_file"}, "mcp__fs", true},
		{"prefix of a plain name", "BashOutput", nil, "Bash", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, b := range []Behavior{Deny, Ask, Allow} {
				r := Rule{Tool: tt.rule, Content: "src", Behavior: b, Source: "test"}
				pc := &Context{Mode: Default}
				pc.AddRule(r)
				s := &subject{name: tt.tool, aliases: tt.aliases, record: true}
				d, err := NewEngine(pc).Check(ctx, withInput(s, in))
				if err != nil {
					t.Fatal(err)
				}
				applied := d.Reason == "Rule: "+r.String()
				if applied != tt.want {
					t.Errorf("%s rule %s for tool %s (aliases %v): applied=%v, want %v (%+v)", b, r, tt.tool, tt.aliases, applied, tt.want, d)
				}
				if tt.want && (len(s.matched) != 1 || s.matched[0] != r) {
					t.Errorf("%s: MatchRule got %+v, want the rule unchanged: %+v", b, s.matched, r)
				}
			}
		})
	}
	// An alias rule whose content does not match does not apply, and the
	// whole-tool alias rule applies without MatchRule.
	s := &subject{name: "Grep", aliases: []string{"Read"}}
	pc := &Context{Mode: Default, Deny: []Rule{{Tool: "Read", Content: "etc", Behavior: Deny}}, Allow: []Rule{{Tool: "Read", Behavior: Allow}}}
	if d, _ := NewEngine(pc).Check(ctx, withInput(s, in)); d.Behavior != Allow || d.Reason != "Rule: Read" {
		t.Errorf("whole-tool alias allow rule: %+v", d)
	}
	// CheckDenyRules, used for approved calls, sees alias rules too.
	pc = &Context{Mode: Default, Deny: []Rule{{Tool: "Read", Content: "src", Behavior: Deny}}}
	if d, ok := NewEngine(pc).CheckDenyRules(context.Background(), withInput(s, in)); !ok || d.Reason != "Rule: Read(src)" {
		t.Errorf("CheckDenyRules with an alias: %+v %v", d, ok)
	}
}

func TestContextAddRuleNoDuplicates(t *testing.T) {
	var c Context
	c.AddRule(Rule{Tool: "Bash", Content: "git log:*", Behavior: Allow, Source: "suggested"})
	c.AddRule(Rule{Tool: "Bash", Content: "git log:*", Behavior: Allow, Source: "cli"})     // same but Source
	c.AddRule(Rule{Tool: "Bash", Content: "git log:*", Behavior: Deny, Source: "cli"})      // another behavior
	c.AddRule(Rule{Tool: "Bash", Content: "git log", Behavior: Allow})                      // another content
	c.AddRule(Rule{Tool: "Read", Content: "git log:*", Behavior: Allow})                    // another tool
	c.AddRule(Rule{Tool: "Bash", Content: "git log:*", Behavior: Passthrough, Source: "x"}) // ignored
	c.AddRule(Rule{Tool: "Bash", Content: "git log:*", Behavior: Deny})
	want := Context{
		Allow: []Rule{{Tool: "Bash", Content: "git log:*", Behavior: Allow, Source: "suggested"}, {Tool: "Bash", Content: "git log", Behavior: Allow}, {Tool: "Read", Content: "git log:*", Behavior: Allow}},
		Deny:  []Rule{{Tool: "Bash", Content: "git log:*", Behavior: Deny, Source: "cli"}},
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	// A hand-made list whose rules carry no Behavior: the list gives it.
	c = Context{Ask: []Rule{{Tool: "Bash", Content: "git push:*"}}}
	c.AddRule(Rule{Tool: "Bash", Content: "git push:*", Behavior: Ask})
	if len(c.Ask) != 1 {
		t.Errorf("duplicate of a rule without Behavior added: %+v", c.Ask)
	}
}

// TestEngineSuggestions: the fallback ask carries the tool's own
// suggestions when its check made some (they know where the call runs),
// else the Subject's; asks no rule can pass (immune asks, ask rules)
// suggest nothing.
func TestEngineSuggestions(t *testing.T) {
	ctx := context.Background()
	own := []Rule{{Tool: "Tool", Content: "x:*", Behavior: Allow}}
	for _, tc := range []struct {
		name  string
		check Decision
		pc    *Context
		want  []Rule
	}{
		{"tool's own", Decision{Behavior: Passthrough, Suggestions: own}, nil, own},
		{"tool's own on a plain ask", Decision{Behavior: Ask, Suggestions: own}, nil, own},
		{"subject's", Decision{Behavior: Passthrough}, nil, sugg},
		{"immune", Decision{Behavior: Ask, BypassImmune: true, Suggestions: own}, nil, nil},
		{"ask rule", Decision{Behavior: Passthrough, Suggestions: own}, &Context{Ask: rules(Ask, "")}, nil},
	} {
		pc := tc.pc
		if pc == nil {
			pc = &Context{Mode: Default}
		}
		d, err := NewEngine(pc).Check(ctx, withInput(&subject{check: tc.check}, json.RawMessage(`"input"`)))
		if err != nil || d.Behavior != Ask {
			t.Fatalf("%s: %+v %v", tc.name, d, err)
		}
		if diff := cmp.Diff(tc.want, d.Suggestions); diff != "" {
			t.Errorf("%s: suggestions (-want +got):\n%s", tc.name, diff)
		}
	}
}
