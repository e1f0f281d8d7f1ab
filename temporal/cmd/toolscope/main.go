// Command toolscope is the toolscope CLI with the commands that run agents
// on Temporal: every command of the core build, plus
//
//	toolscope worker --temporal ADDR --task-queue Q [--sandbox] [--config F] [--cwd D] [--model M]
//	toolscope run --temporal ADDR --task-queue Q [--id WORKFLOW_ID] [--mode M] [--allow R]... 'PROMPT'
//	toolscope approve --temporal ADDR [--always] [--input JSON] WORKFLOW_ID CALL_ID
//	toolscope deny --temporal ADDR WORKFLOW_ID CALL_ID
//	toolscope runs --temporal ADDR [--all] [--json]
//
// worker serves one workspace (--cwd, its settings, --sandbox) on its task
// queue: the runs started there and their tool calls; unless --model-queue
// is "none", it also answers model turns on the shared model queue.
// run starts a run and prints its workflow id; it waits until the run ends
// (exit 0, the answer printed) or waits for approval (exit 3, the waiting
// calls on standard error), like the local run. approve and deny answer a
// waiting call, then wait the same way. runs lists the runs that wait, with
// their waiting calls, without needing a worker.
//
// --temporal defaults to $TEMPORAL_ADDRESS, --namespace to
// $TEMPORAL_NAMESPACE or "default".
package main

import (
	"os"

	"github.com/toolscope/toolscope/internal/cli"
	"github.com/toolscope/toolscope/temporal/internal/tcli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], tcli.Options()))
}
