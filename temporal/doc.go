// Package temporal runs toolscope's agent as a Temporal workflow: durable
// runs whose tool calls can wait days for a person, on workers spread over
// many machines, surviving restarts and deploys.
//
// It is a module of its own (github.com/toolscope/toolscope/temporal), so
// that the core module never pulls the Temporal SDK. The local default stays
// what it is: package agent, one process and a JSON run file.
//
// # The workflow
//
// [Agent] is the agent loop of package agent as a deterministic workflow:
// the same code (agent.Loop), driven by the workflow (its agent.Driver),
// so that a run here behaves as one in a process does, hold-back of calls
// an earlier "always" would allow and the workspace's UserPromptSubmit and
// Stop hooks included ([CoveredActivity], [PromptActivity],
// [StopActivity]; runs recorded before them replay without them).
// Each model turn is an activity ([ModelActivity]) on a shared queue; each
// tool call is an activity ([CallActivity]) on the task queue of the
// workspace, the one machine where the files are. The agent's tool State
// (permission context, read cache, tasks, groups, shell directory) lives
// in the workflow and travels with each call.
//
// The permission engine runs inside the call's activity, because it must
// look at the files a call names; it decides from the State the workflow
// gives it, and the call and its decision are recorded in the history, so a
// replay takes the same decision without asking anyone again. A call that
// needs approval does not run: the workflow records it as waiting, and
// waits, without a timeout unless [RunInput.ApprovalTimeout] sets one, for
// an answer through the [AnswerUpdate] update: approve, approve with an
// edited input, approve and remember the suggested rules, or deny. Only an
// answer recorded in the history lets it run. An External tool's call
// waits for its result the same way. The [PendingQuery] and [RunQuery]
// queries show the waiting calls and the transcript, and the workflow keeps
// its waiting calls in its memo, so that listing them ([ListWaiting]) needs
// no worker.
//
// # At most once
//
// A model turn is retried. A tool call of a ReadOnly tool (Read, Glob,
// Grep, a read-only MCP tool) is retried as well; any other call (Bash,
// Write, Edit, an MCP tool that may change things) runs at most once: if
// the worker running it is lost (killed, its machine gone), the heartbeat
// times out and the model reads that the call was interrupted and may or
// may not have taken effect; it is never run again blindly. Running calls
// heartbeat, so a lost worker shows within [RunInput.HeartbeatTimeout];
// cancelling the workflow cancels the running call, which kills its
// process group.
//
// # Background shells
//
// Bash with run_in_background, BashOutput and KillShell work on workers
// that [Serve] runs. A shell is a process of the worker that started it:
// its id names that worker, and the workflow sends the calls for it to
// that worker's own queue only. If the worker is gone, the call times out
// quickly ([RunInput.ShellTimeout]) and the model reads that the shell is
// gone with its worker; it is never retried elsewhere. A run's shells are
// killed when it ends ([EndShellsActivity]), when the worker finds it
// closed or idle ([WorkerOptions.ShellIdle]), and when the worker stops.
//
// # Deployment
//
// Run a worker ([NewWorker], or toolscope worker) on each machine that
// holds a workspace, on a task queue of that workspace's own: it runs the
// workflows started on that queue and their tool calls. Workers also serve
// the shared model queue ([DefaultModelQueue]) unless told not to; any
// number of them can, on any machine with the model's credentials. Two
// workers on one workspace queue (one machine, or a shared file system)
// share its runs. See the README of this module for a deployment with N
// workers and a Temporal cluster.
package temporal
