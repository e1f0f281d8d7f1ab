package permission_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolscope/toolscope/permission"
)

// shellCall is a tiny Subject: one call of a shell tool, its command
// parsed once. Commands starting with "ls" only read; rules match by prefix.
type shellCall struct{ command string }

func (shellCall) Name() string        { return "Bash" }
func (shellCall) RuleNames() []string { return nil }
func (c shellCall) ReadOnly(context.Context) bool {
	return strings.HasPrefix(c.command, "ls")
}
func (c shellCall) CheckPermissions(context.Context, *permission.Context) (permission.Decision, error) {
	if strings.Contains(c.command, "rm -rf") {
		return permission.Decision{Behavior: permission.Ask, Message: "dangerous", Reason: "rm -rf", BypassImmune: true}, nil
	}
	return permission.Decision{Behavior: permission.Passthrough}, nil
}
func (c shellCall) MatchRule(_ context.Context, r permission.Rule) bool {
	return strings.HasPrefix(c.command, strings.TrimSuffix(r.Content, ":*"))
}
func (shellCall) Suggestions(context.Context) []permission.Rule { return nil }

func command(in json.RawMessage) string {
	var v struct{ Command string }
	json.Unmarshal(in, &v)
	return v.Command
}

func Example() {
	allow, _ := permission.ParseRule("Bash(git log:*)")
	allow.Behavior = permission.Allow
	deny, _ := permission.ParseRule("Bash(git push:*)")
	deny.Behavior = permission.Deny

	pc := &permission.Context{Mode: permission.Default, Allow: []permission.Rule{allow}, Deny: []permission.Rule{deny}}
	engine := permission.NewEngine(pc)
	for _, cmd := range []string{"ls -la", "git log -3", "git push", "make", "rm -rf /"} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		d, _ := engine.Check(context.Background(), shellCall{command(in)})
		fmt.Printf("%-10s %-5s %s\n", cmd, d.Behavior, d.Reason)
	}
	// Output:
	// ls -la     allow Read-only operations are auto-allowed
	// git log -3 allow Rule: Bash(git log:*)
	// git push   deny  Rule: Bash(git push:*)
	// make       ask   Mode: default
	// rm -rf /   ask   rm -rf
}

func ExampleParseRule() {
	r, _ := permission.ParseRule(`Bash(python -c "print\(1\)")`)
	fmt.Printf("%s | %s\n", r.Tool, r.Content)
	fmt.Println(r)
	// Output:
	// Bash | python -c "print(1)"
	// Bash(python -c "print\(1\)")
}
