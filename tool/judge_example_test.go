package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// sayTool repeats words. Deciding about a call means splitting its text
// into words: it does that once per call, in Judge.
type sayTool struct{ splits int }

func (t *sayTool) Info() tool.Info {
	return tool.Info{Name: "say", Description: "Repeat words.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)}
}

func (t *sayTool) Judge(_ context.Context, input json.RawMessage) (tool.Judgment, error) {
	var in struct{ Text string }
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, err
	}
	t.splits++
	return sayJudgment(strings.Fields(in.Text)), nil
}

// The Toolkit asks the Judgment instead; these answer a direct caller.
func (t *sayTool) CheckPermissions(ctx context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error) {
	j, err := t.Judge(ctx, input)
	if err != nil {
		return permission.Decision{}, err
	}
	return j.CheckPermissions(ctx, pc)
}

func (t *sayTool) Call(_ context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
	words := c.Judgment.(sayJudgment) // what was judged is what runs
	return func(yield func(*tool.Chunk, error) bool) {
		yield(tool.Text(strings.Join(words, " ")), nil)
	}
}

// sayJudgment is a call's words.
type sayJudgment []string

func (w sayJudgment) ReadOnly(context.Context) bool { return true }
func (w sayJudgment) CheckPermissions(context.Context, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Passthrough}, nil
}

// MatchRule: a rule's content is a word the call must not say (deny) or
// must be all it says (allow).
func (w sayJudgment) MatchRule(_ context.Context, r permission.Rule) bool {
	for _, x := range w {
		if x == r.Content && r.Behavior != permission.Allow {
			return true
		}
		if x != r.Content && r.Behavior == permission.Allow {
			return false
		}
	}
	return r.Behavior == permission.Allow
}
func (w sayJudgment) Suggestions(context.Context) []permission.Rule { return nil }

// A tool that implements Judge makes one judgment per call; every rule,
// the read-only check and the run use it.
func ExampleJudge() {
	say := &sayTool{}
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{say}})
	pc := &permission.Context{Mode: permission.Default}
	for _, w := range []string{"secret", "password", "token"} {
		pc.AddRule(permission.Rule{Tool: "say", Content: w, Behavior: permission.Deny})
	}
	st := tool.NewState(pc)
	for _, text := range []string{"hello  there world", "the password is"} {
		r, _ := tk.Call(context.Background(), &tool.Call{Name: "say", Input: json.RawMessage(`{"text":"` + text + `"}`), State: st})
		fmt.Printf("%s: %s (%s)\n", r.Status, r.Text(), r.Decision.Reason)
	}
	fmt.Println("splits:", say.splits)
	// Output:
	// success: hello there world (Read-only operations are auto-allowed)
	// denied: Permission to use say has been denied (Rule: say(password))
	// splits: 2
}
