package builtin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// The built-in tools in a toolkit: read-only commands run, others wait for
// the user, dangerous ones wait even when a rule allows Bash.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: dir})})
	state := tool.NewState(&permission.Context{Mode: permission.Default,
		Allow: []permission.Rule{{Tool: "Bash", Behavior: permission.Allow}}})

	for _, cmd := range []string{"echo hello", "touch notes.txt", "rm -rf ~"} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		r, _ := tk.Call(context.Background(), &tool.Call{Name: "Bash", Input: in, State: state})
		fmt.Printf("%-16s %-8s %q\n", cmd, r.Status, r.Text()+r.Decision.Message)
	}
	// Output:
	// echo hello       success  "hello\nPermission granted for Bash (read-only invocation)"
	// touch notes.txt  success  "(no output)Permission granted for Bash"
	// rm -rf ~         asking   "Permission required: Command contains dangerous pattern: rm -rf"
}
