package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// aliasTool is a read tool whose rules are also filed under "Read": its
// MatchRule matches when the path starts with the rule content.
type aliasTool struct {
	matched []permission.Rule
}

func (a *aliasTool) Info() tool.Info {
	return tool.Info{Name: "Search", Description: "search", RuleNames: []string{"Read"},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
}
func (a *aliasTool) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Passthrough}, nil
}
func (a *aliasTool) MatchRule(_ context.Context, r permission.Rule, in json.RawMessage) bool {
	a.matched = append(a.matched, r)
	var v struct{ Path string }
	json.Unmarshal(in, &v)
	return strings.HasPrefix(v.Path, r.Content)
}
func (a *aliasTool) Call(context.Context, *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) { yield(tool.Text("found"), nil) }
}

func TestRuleNames(t *testing.T) {
	ctx := context.Background()
	a := &aliasTool{}
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{a}})
	rule := func(s string, b permission.Behavior) permission.Rule {
		r, err := permission.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		r.Behavior = b
		return r
	}
	pc := &permission.Context{Mode: permission.Default}
	pc.AddRule(rule("Read(/secret)", permission.Deny))
	pc.AddRule(rule("Read(/src/gen)", permission.Ask))
	pc.AddRule(rule("Read(/src)", permission.Allow))
	pc.AddRule(rule("Write(/)", permission.Allow)) // not an alias: never applies
	for in, want := range map[string]string{
		`{"path":"/secret/key"}`: "deny Rule: Read(/secret)",
		`{"path":"/src/gen/x"}`:  "ask Rule: Read(/src/gen)",
		`{"path":"/src/a.go"}`:   "allow Rule: Read(/src)",
		`{"path":"/etc/passwd"}`: "ask Mode: default",
	} {
		v, err := tk.Check(ctx, &tool.Call{Name: "Search", Input: json.RawMessage(in), State: tool.NewState(pc)})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(v.Decision.Behavior) + " " + v.Decision.Reason; got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	for _, r := range a.matched {
		if r.Tool != "Read" {
			t.Errorf("MatchRule got a rule for %q, want the Read rules as written", r.Tool)
		}
	}
	// An approved call still meets the deny rules filed under the alias.
	r := call(t, tk, &tool.Call{Name: "Search", Input: json.RawMessage(`{"path":"/secret/x"}`), State: tool.NewState(pc), Approved: true})
	if r.Status != tool.StatusDenied {
		t.Errorf("approved call under an alias deny rule: %s %s", r.Status, r.Text())
	}
}

func TestCheckErrInvalidCall(t *testing.T) {
	ctx := context.Background()
	broken := echoTool("broken")
	tk := newKit(t, &tool.ToolkitOptions{Tools: []tool.Tool{echoTool("echo"), &failingCheck{broken}}})
	for _, c := range []struct {
		*tool.Call
		kind error
	}{
		{&tool.Call{Name: "nope", Input: json.RawMessage(`{}`)}, tool.ErrToolNotFound},
		{&tool.Call{Name: "echo", Input: json.RawMessage(`{"text":`)}, tool.ErrInvalidInput},
		{&tool.Call{Name: "echo", Input: json.RawMessage(`{"text":1}`)}, tool.ErrInvalidInput},
	} {
		_, err := tk.Check(ctx, c.Call)
		if !errors.Is(err, tool.ErrInvalidCall) || !errors.Is(err, c.kind) {
			t.Errorf("%s %s: err = %v, want ErrInvalidCall and %v", c.Name, c.Input, err, c.kind)
		}
		for _, other := range []error{tool.ErrToolNotFound, tool.ErrGroupInactive, tool.ErrInvalidInput} {
			if other != c.kind && errors.Is(err, other) {
				t.Errorf("%s %s: err = %v also matches %v", c.Name, c.Input, err, other)
			}
		}
		if err != nil && strings.Contains(err.Error(), "invalid call") {
			t.Errorf("the sentinel's text leaked into the model's message: %v", err)
		}
	}
	_, err := tk.Check(ctx, &tool.Call{Name: "broken", Input: json.RawMessage(`{"text":"x"}`)})
	if err == nil || errors.Is(err, tool.ErrInvalidCall) {
		t.Errorf("a failing permission check: err = %v, want an error that is not ErrInvalidCall", err)
	}
}

type failingCheck struct{ *fnTool }

func (f *failingCheck) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{}, errors.New("cannot tell")
}

func TestStateJSON(t *testing.T) {
	st := tool.NewState(&permission.Context{Mode: permission.AcceptEdits})
	st.AddRule(permission.Rule{Tool: "Bash", Content: "git add:*", Behavior: permission.Allow, Source: "suggested"})
	st.AddRule(permission.Rule{Tool: "Bash", Content: "git add:*", Behavior: permission.Allow, Source: "cli"})
	builtin.DataOf(st).SetCwd("/p")
	if n := len(st.Permissions().Allow); n != 1 {
		t.Errorf("State.AddRule stored %d copies of one rule", n)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), `{"toolscope_state":2,`) {
		t.Errorf("the state JSON does not start with its marker: %s", b)
	}
	back := tool.NewState(nil)
	if err := json.Unmarshal(b, back); err != nil || builtin.DataOf(back).Cwd() != "/p" || back.Permissions().Mode != permission.AcceptEdits {
		t.Fatalf("round trip: %v", err)
	}
	// A state written before the marker existed still loads.
	if err := json.Unmarshal([]byte(`{"permissions":{"mode":"explore"},"cwd":"/q"}`), back); err != nil || builtin.DataOf(back).Cwd() != "/q" {
		t.Errorf("a state without the marker: %v", err)
	}
	for in, want := range map[string]string{
		`{"toolscope_state":3}`:                                            `Invalid input: field "toolscope_state": the state has format 3, which is newer than this version of toolscope reads (2). Fix the input and call the tool again.`,
		`{"toolscope_state":2,"slots":{"builtin.cwd":3}}`:                  `Invalid input: field "slots.builtin.cwd" must be a string, not 3. Fix the input and call the tool again.`,
		`{"toolscope_state":2,"slots":{"builtin.tasks":[{"id":1}]}}`:       `Invalid input: field "slots.builtin.tasks[0].id" must be a string, not 1. Fix the input and call the tool again.`,
		`{"toolscope_state":1,"cwd":3}`:                                    `Invalid input: field "cwd" must be a string, not 3. Fix the input and call the tool again.`,
		`{"toolscope_state":1,"permissions":{"allow":[{"tool":3}]}}`:       `Invalid input: field "permissions.allow[0].tool" must be a string, not 3. Fix the input and call the tool again.`,
		`{"toolscope_state":1,"read_files":[{"path":"/a","mtime":"now"}]}`: `Invalid input: field "read_files[0].mtime" must be a time such as "2006-01-02T15:04:05Z" (RFC 3339), not a string ("now"). Fix the input and call the tool again.`,
	} {
		err := json.Unmarshal([]byte(in), tool.NewState(nil))
		var ie *tool.InputError
		if !errors.As(err, &ie) || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", in, err, want)
		}
	}
}
