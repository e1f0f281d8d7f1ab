package tool_test

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

type asker struct {
	approve bool
	rules   []permission.Rule
	asked   int
	input   string // the input of the last call asked about
}

func (a *asker) Ask(_ context.Context, c *tool.Call, d permission.Decision) (bool, []permission.Rule, error) {
	a.asked++
	a.input = string(c.Input)
	return a.approve, a.rules, nil
}

// A permission hook decides before, after or instead of the engine, but a
// deny rule still wins; an Asker answers approvals at once.
func TestPermissionHookAndAsker(t *testing.T) {
	in := json.RawMessage(`{"text":"hi"}`)
	defaultState := func(deny ...permission.Rule) *tool.State {
		return tool.NewState(&permission.Context{Mode: permission.Default, Deny: deny})
	}
	// Instead of the engine: allow everything.
	allow := func(ctx context.Context, c *tool.Call, engine func() (permission.Decision, error)) (permission.Decision, error) {
		return permission.Decision{Behavior: permission.Allow, Reason: "hook"}, nil
	}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{echoTool("echo")}, PermissionHook: allow})
	if r := call(t, tk, &tool.Call{Name: "echo", Input: in, State: defaultState()}); r.Status != tool.StatusSuccess || r.Decision.Reason != "hook" {
		t.Errorf("hook allow: %s %+v", r.Status, r.Decision)
	}
	if r := call(t, tk, &tool.Call{Name: "echo", Input: in, State: defaultState(permission.Rule{Tool: "echo", Behavior: permission.Deny})}); r.Status != tool.StatusDenied {
		t.Errorf("a deny rule under a hook that allows: %s", r.Status)
	}
	// After the engine: turn its asks into denials.
	strict := func(ctx context.Context, c *tool.Call, engine func() (permission.Decision, error)) (permission.Decision, error) {
		d, err := engine()
		if d.Behavior == permission.Ask || d.Behavior == permission.Passthrough {
			d = permission.Decision{Behavior: permission.Deny, Message: "no humans here", Reason: "hook"}
		}
		return d, err
	}
	tk = newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{echoTool("echo")}, PermissionHook: strict})
	e := echoTool("echo")
	e.perm = permission.Decision{Behavior: permission.Passthrough}
	tk = newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{e}, PermissionHook: strict})
	if r := call(t, tk, &tool.Call{Name: "echo", Input: in, State: defaultState()}); r.Status != tool.StatusDenied || r.Text() != "no humans here" {
		t.Errorf("hook after the engine: %s %q", r.Status, r.Text())
	}

	// An Asker: "always" adds the rule, so the next call needs no question.
	a := &asker{approve: true, rules: []permission.Rule{{Tool: "echo", Behavior: permission.Allow}}}
	tk = newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{e}, Asker: a})
	st := defaultState()
	for i := 0; i < 2; i++ {
		if r := call(t, tk, &tool.Call{Name: "echo", Input: in, State: st}); r.Status != tool.StatusSuccess || r.Text() != "hi" {
			t.Errorf("approved call %d: %s %q", i, r.Status, r.Text())
		}
	}
	if a.asked != 1 {
		t.Errorf("asked %d times, want 1 (the rule answers the second)", a.asked)
	}
	no := &asker{}
	tk = newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{e}, Asker: no})
	if r := call(t, tk, &tool.Call{Name: "echo", Input: in, State: defaultState()}); r.Status != tool.StatusDenied {
		t.Errorf("refused by the user: %s", r.Status)
	}
}

// matchTool matches a rule's content anywhere in the input.
type matchTool struct{ *fnTool }

func (matchTool) MatchRule(_ context.Context, r permission.Rule, input json.RawMessage) bool {
	return strings.Contains(string(input), r.Content)
}

// A hook that rewrites the input makes a new call, judged again: a deny
// rule on the rewritten input wins over the hook's Allow, so does the
// engine's Ask (the user is asked about the rewritten input, which then
// runs), and a rewrite into an invalid input is refused.
func TestPermissionHookRewriteJudged(t *testing.T) {
	rewrite := func(to string, b permission.Behavior) func(context.Context, *tool.Call, func() (permission.Decision, error)) (permission.Decision, error) {
		return func(ctx context.Context, c *tool.Call, engine func() (permission.Decision, error)) (permission.Decision, error) {
			return permission.Decision{Behavior: b, Reason: "hook", UpdatedInput: json.RawMessage(to)}, nil
		}
	}
	e := echoTool("echo")
	e.perm = permission.Decision{Behavior: permission.Passthrough} // the engine asks about any input
	in := json.RawMessage(`{"text":"harmless"}`)
	state := func(rules ...permission.Rule) *tool.State {
		pc := &permission.Context{Mode: permission.Default}
		for _, r := range rules {
			pc.AddRule(r)
		}
		return tool.NewState(pc)
	}
	denyEvil := permission.Rule{Tool: "echo", Content: "evil", Behavior: permission.Deny}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{matchTool{e}}, PermissionHook: rewrite(`{"text":"evil"}`, permission.Allow)})
	if r := call(t, tk, &tool.Call{Name: "echo", Input: in, State: state(denyEvil)}); r.Status != tool.StatusDenied {
		t.Errorf("a rewrite into what a deny rule names: %s %q", r.Status, r.Text())
	}
	// The hook allows, the engine would ask about the rewrite: asked, and
	// the asker sees what will run.
	a := &asker{approve: true}
	tk = newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{e}, Asker: a, PermissionHook: rewrite(`{"text":"rewritten"}`, permission.Allow)})
	if r := call(t, tk, &tool.Call{Name: "echo", Input: in, State: state()}); r.Status != tool.StatusSuccess || r.Text() != "rewritten" || a.asked != 1 || a.input != `{"text":"rewritten"}` {
		t.Errorf("a rewrite the engine asks about: %s %q, asked %d about %s", r.Status, r.Text(), a.asked, a.input)
	}
	tk = newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{e}, PermissionHook: rewrite(`{"text":7}`, permission.Allow)})
	if r := call(t, tk, &tool.Call{Name: "echo", Input: in, State: state()}); r.Status != tool.StatusDenied || !strings.Contains(r.Text(), "cannot run") {
		t.Errorf("a rewrite into an invalid input: %s %q", r.Status, r.Text())
	}
}

// Only StateInjected tools see the State while they run.
func TestStateInjectedEnforced(t *testing.T) {
	var sawCall, sawCtx [2]bool
	mk := func(i int, injected bool) *fnTool {
		e := echoTool([]string{"plain", "injected"}[i])
		e.info.StateInjected = injected
		inner := e.call
		e.call = func(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
			sawCall[i], sawCtx[i] = c.State != nil, tool.StateFromContext(ctx) != nil
			return inner(ctx, c)
		}
		return e
	}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{mk(0, false), mk(1, true)}})
	st := tool.NewState(&permission.Context{Mode: permission.Bypass})
	call(t, tk, &tool.Call{Name: "plain", Input: json.RawMessage(`{"text":"x"}`), State: st})
	call(t, tk, &tool.Call{Name: "injected", Input: json.RawMessage(`{"text":"x"}`), State: st})
	if sawCall[0] || sawCtx[0] || !sawCall[1] || !sawCtx[1] {
		t.Errorf("plain tool saw the state: call %v ctx %v; injected: call %v ctx %v", sawCall[0], sawCtx[0], sawCall[1], sawCtx[1])
	}
}

// inputAsker approves with an edited input, or refuses with a message.
type inputAsker struct {
	asker
	edited, message string
}

func (a *inputAsker) AskApproval(ctx context.Context, c *tool.Call, d permission.Decision) (tool.Approval, error) {
	ok, rules, err := a.Ask(ctx, c, d)
	return tool.Approval{Approve: ok, Input: json.RawMessage(a.edited), Rules: rules, Message: a.message}, err
}

// An ApprovalAsker's edited input is what runs, judged again: a deny rule
// that matches it refuses it, an invalid one is refused by the schema,
// and the same input as asked runs as a plain approval. A refusal's
// message reaches the model.
func TestApprovalAskerEditedInputJudged(t *testing.T) {
	e := matchTool{echoTool("echo")}
	e.perm = permission.Decision{Behavior: permission.Passthrough}
	in := json.RawMessage(`{"text":"asked"}`)
	state := func(rules ...permission.Rule) *tool.State {
		return tool.NewState(&permission.Context{Mode: permission.Default, Deny: rules})
	}
	for _, tc := range []struct {
		name, edited string
		deny         []permission.Rule
		status       tool.Status
		text         string
	}{
		{"edited runs", `{"text":"edited"}`, nil, tool.StatusSuccess, "edited"},
		{"same input", `{"text":"asked"}`, nil, tool.StatusSuccess, "asked"},
		{"no input", ``, nil, tool.StatusSuccess, "asked"},
		{"deny rule on the edit", `{"text":"secret"}`, []permission.Rule{{Tool: "echo", Content: "secret", Behavior: permission.Deny}}, tool.StatusDenied, ""},
		{"invalid edit", `{"text":7}`, nil, tool.StatusError, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &inputAsker{asker: asker{approve: true}, edited: tc.edited}
			tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{e}, Asker: a})
			r := call(t, tk, &tool.Call{ID: "c1", Name: "echo", Input: in, State: state(tc.deny...)})
			if r.Status != tc.status || tc.text != "" && r.Text() != tc.text {
				t.Fatalf("%s %q, want %s %q", r.Status, r.Text(), tc.status, tc.text)
			}
			if a.asked != 1 || a.input != string(in) {
				t.Errorf("asked %d times about %s", a.asked, a.input)
			}
			if r.Status == tool.StatusSuccess && r.Decision.Reason != "User approval" {
				t.Errorf("decision %+v", r.Decision)
			}
		})
	}
	a := &inputAsker{message: "use git clean instead"}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{e}, Asker: a})
	r := call(t, tk, &tool.Call{ID: "c1", Name: "echo", Input: in, State: state()})
	if r.Status != tool.StatusDenied || !strings.HasSuffix(r.Text(), "\nThe user says: use git clean instead") {
		t.Errorf("refused with a message: %s %q", r.Status, r.Text())
	}
}
