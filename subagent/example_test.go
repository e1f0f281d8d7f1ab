package subagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/subagent"
	"github.com/toolscope/toolscope/tool"
)

// delegating is a model that, as the parent, hands the question to a
// reviewer sub-agent and passes on its answer; as the reviewer, answers.
type delegating struct{}

func (delegating) Stream(_ context.Context, req *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case strings.HasPrefix(req.System, "You review"):
			yield(agent.ModelEvent{Text: "No problems found."}, nil)
		case last.Result != nil:
			yield(agent.ModelEvent{Text: "The reviewer says: " + last.Result.Text()}, nil)
		default:
			in, _ := json.Marshal(map[string]string{"description": "review", "prompt": "Review main.go", "subagent_type": "reviewer"})
			yield(agent.ModelEvent{ToolCall: &agent.ToolCall{ID: "1", Name: subagent.Name, Input: in}}, nil)
		}
	}
}

func ExampleNew() {
	tk, _ := tool.NewToolkit(nil)
	reviewer := subagent.Definition{Name: "reviewer", Description: "Reviews code", Prompt: "You review code.", Tools: []string{"Read", "Grep"}}
	at, err := subagent.New(&subagent.Options{Definitions: []subagent.Definition{reviewer}, Model: delegating{}, Toolkit: tk})
	if err != nil {
		panic(err)
	}
	tk.Add(tool.BasicGroup, at)
	a := &agent.Agent{Model: delegating{}, Toolkit: tk}
	for ev, err := range a.Run(context.Background(), agent.NewRun(nil), "Is main.go all right?") {
		if err != nil {
			panic(err)
		}
		if ev.Kind == agent.EventReplyEnd {
			fmt.Println(ev.Text)
		}
	}
	// Output: The reviewer says: No problems found.
}
