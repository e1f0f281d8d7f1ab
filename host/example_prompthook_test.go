package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// friday is a model that judges prompt hooks: it refuses what deploys.
// (toolscope run gives its own model: openai or anthropic.)
type friday struct{}

func (friday) Stream(ctx context.Context, req *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		verdict := `{"ok": true}`
		if strings.Contains(req.Messages[0].Text, "deploy") {
			verdict = `{"ok": false, "reason": "No deploys on Friday."}`
		}
		yield(agent.ModelEvent{Text: verdict}, nil)
	}
}

// A PreToolUse prompt hook, judged by the model HookModel makes: its
// "ok": false denies a call even in bypass mode; its "ok": true leaves the
// call to the permission engine.
func ExampleOptions_hookModel() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	settings := filepath.Join(dir, "settings.json")
	os.WriteFile(settings, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash",
		"hooks": [{"type": "prompt", "prompt": "Is this command fine today? $ARGUMENTS"}]}]}}`), 0o644)

	ws, err := host.Open(context.Background(), &host.Options{Dir: dir, Settings: settings, NoClaudeSettings: true,
		HookModel: func(name string) (agent.Model, error) { return friday{}, nil }})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()
	st := tool.NewState(&permission.Context{Mode: permission.Bypass})
	for _, command := range []string{"echo deploy", "echo hello"} {
		input, _ := json.Marshal(map[string]string{"command": command})
		r, _ := ws.Toolkit.Call(context.Background(), &tool.Call{Name: "Bash", Input: input, State: st})
		fmt.Printf("%s: %s: %s\n", command, r.Decision.Behavior, strings.TrimSpace(r.Text()))
	}
	// Output:
	// echo deploy: deny: No deploys on Friday.
	// echo hello: allow: hello
}
