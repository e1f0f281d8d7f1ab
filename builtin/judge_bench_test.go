package builtin_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// benchToolkit is a project with the built-in tools and a permission
// context with the rules a user has: deny, ask and allow rules for Bash.
func benchToolkit(b *testing.B) (*tool.Toolkit, *tool.State) {
	root := b.TempDir()
	os.MkdirAll(root+"/src", 0o755)
	os.WriteFile(root+"/src/a.go", []byte("package a\n"), 0o644)
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: root})})
	if err != nil {
		b.Fatal(err)
	}
	var pc permission.Context
	pc.Mode = permission.Default
	for _, r := range []string{"Bash(rm -rf:*)", "Bash(git push:*)", "Bash(curl:*)", "Bash(wget:*)", "Bash(shred:*)"} {
		rule, _ := permission.ParseRule(r)
		rule.Behavior = permission.Deny
		pc.AddRule(rule)
	}
	for _, r := range []string{"Bash(git commit:*)", "Bash(npm publish:*)"} {
		rule, _ := permission.ParseRule(r)
		rule.Behavior = permission.Ask
		pc.AddRule(rule)
	}
	for _, r := range []string{"Bash(make:*)", "Bash(go test:*)", "Bash(true)"} {
		rule, _ := permission.ParseRule(r)
		rule.Behavior = permission.Allow
		pc.AddRule(rule)
	}
	return tk, tool.NewState(&pc)
}

// BenchmarkBashCheck is the permission decision on a Bash call (what
// `toolscope check` and every call pay before anything runs).
func BenchmarkBashCheck(b *testing.B) {
	tk, st := benchToolkit(b)
	in, _ := json.Marshal(map[string]string{"command": "git status && ls -la src | head -5"})
	c := &tool.Call{Name: "Bash", Input: in, State: st}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tk.Check(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolkitCallBash is a whole Bash call through the toolkit: the
// decision (an allow rule) and the run of a command that does nothing.
func BenchmarkToolkitCallBash(b *testing.B) {
	tk, st := benchToolkit(b)
	c := &tool.Call{ID: "1", Name: "Bash", Input: json.RawMessage(`{"command":"true"}`), State: st}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		r, err := tk.Call(ctx, c)
		if err != nil || r.Status != tool.StatusSuccess {
			b.Fatal(r.Text(), err)
		}
	}
}
