package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// Open a project as the toolscope command does: its settings, with where
// each rule comes from, and a Toolkit that applies them.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	settings := filepath.Join(dir, "toolscope.json")
	os.WriteFile(settings, []byte(`{"permissions": {"allow": ["Bash(echo:*)"], "deny": ["Read(secret.txt)"]}}`), 0o644)

	ws, err := host.Open(context.Background(), &host.Options{Dir: dir, Settings: settings, NoClaudeSettings: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()
	pc := ws.Permissions(&permission.Context{Mode: permission.Default})
	for _, r := range pc.Deny {
		fmt.Printf("deny %s from %s\n", r, filepath.Base(r.Source))
	}
	st := tool.NewState(pc)
	for _, call := range []struct{ name, input string }{
		{"Bash", `{"command":"echo hi > out.txt"}`}, // allowed by the rule
		{"Read", `{"file_path":"secret.txt"}`},      // denied by the rule
	} {
		r, _ := ws.Toolkit.Call(context.Background(), &tool.Call{Name: call.name, Input: json.RawMessage(call.input), State: st})
		fmt.Println(call.name, r.Status, r.Decision.Reason)
	}
	// Output:
	// deny Read(secret.txt) from toolscope.json: permissions.deny[0]
	// Bash success Rules: Bash(echo:*) (every other simple command is read-only)
	// Read denied Rule: Read(secret.txt)
}

// Keep an agent's state in a file: a second process (here a second
// snapshot) sees what the first recorded, and two snapshots saved one
// after the other both keep their changes.
func ExampleStateFile() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	f := host.NewStateFile(filepath.Join(dir, "state.json"))
	if err := f.Writable(); err != nil {
		fmt.Println(err)
		return
	}
	a, _ := f.Load()
	b, _ := f.Load()
	a.State.SetActiveGroups([]string{"db"})
	a.State.AddRule(permission.Rule{Tool: "Bash", Content: "make:*", Behavior: permission.Allow})
	b.State.SetActiveGroups([]string{"db"})
	fmt.Println(a.Save(), b.Save())

	c, _ := f.Load()
	fmt.Println(c.State.Permissions().Allow, c.State.ActiveGroups())
	// Output:
	// <nil> <nil>
	// [Bash(make:*)] [db]
}
