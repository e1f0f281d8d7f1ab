package temporal_test

import (
	"context"
	"fmt"
	"log"
	"os/signal"
	"syscall"

	"go.temporal.io/sdk/client"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/model/openai"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/temporal"
	"github.com/toolscope/toolscope/tool"
)

// A worker for the workspace /srv/repo: it runs the runs started on the
// queue "build-07-repo", their tool calls, and model turns.
func ExampleServe() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	c, err := client.Dial(client.Options{HostPort: "127.0.0.1:7233"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: "/srv/repo"})})
	if err != nil {
		log.Fatal(err)
	}
	err = temporal.Serve(ctx, c, &temporal.WorkerOptions{
		TaskQueue: "build-07-repo",
		Tools:     &temporal.Tools{Toolkit: tk, Mode: permission.Default},
		Models: &temporal.Models{New: func(string) (agent.Model, error) {
			return openai.New("gpt-5.2", nil), nil
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
}

// Start a run, wait until it ends or waits for approval, and approve what
// it waits for.
func ExampleAnswerCall() {
	ctx := context.Background()
	c, err := client.Dial(client.Options{HostPort: "127.0.0.1:7233"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	run, err := temporal.Start(ctx, c, "", "build-07-repo", temporal.RunInput{Prompt: "Fix the failing test."})
	if err != nil {
		log.Fatal(err)
	}
	for pause := 0; ; {
		st, err := temporal.Wait(ctx, c, run.GetID(), pause)
		if err != nil {
			log.Fatal(err)
		}
		if st.Closed() {
			if st.Output != nil {
				fmt.Println(st.Output.Answer)
			}
			return
		}
		for _, w := range st.Waiting {
			fmt.Printf("%s wants to run %s\n", w.Name, w.Input)
			if pause, err = temporal.AnswerCall(ctx, c, run.GetID(), temporal.Answer{CallID: w.ID, Approve: true}); err != nil {
				log.Fatal(err)
			}
		}
	}
}
