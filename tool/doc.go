// Package tool defines what a tool is and runs calls to tools for an agent.
//
// # Writing a tool
//
// The quickest tool is a typed Go function. [NewFunction] infers the input
// schema from the input struct (json tags name the fields, jsonschema tags
// describe them) and turns the function's result or error into the text the
// model reads:
//
//	type AddInput struct {
//		A int `json:"a" jsonschema:"the first number"`
//		B int `json:"b" jsonschema:"the second number"`
//	}
//	adder, err := tool.NewFunction("Add two integers.", func(ctx context.Context, in AddInput) (int, error) {
//		return in.A + in.B, nil
//	}, &tool.FunctionOptions{ReadOnly: true})
//
// A tool that streams, or that judges its own calls, implements [Tool]:
//
//   - Info returns the same [Info] every time: the name the model calls it by,
//     a description that tells the model when to use it, the JSON Schema of
//     its input, and flags. ReadOnly lets every call through the permission
//     engine unless a rule says otherwise; ConcurrencySafe lets a batch run
//     it beside other such calls; External leaves the running to the caller.
//   - CheckPermissions gives the tool's opinion of a call. Return
//     permission.Passthrough to let the engine decide; Ask with BypassImmune
//     for inputs so dangerous that no mode may skip the question.
//   - Call yields [Chunk] values as the work goes: [Text] for output, [Errorf] for
//     a failure the model should read and act on, a chunk with Progress for
//     the host's eyes only. A Go error means the infrastructure broke. Decode
//     the input with [DecodeInput], whose errors name the field and the type
//     it wants; the Toolkit has validated it against the schema already.
//     Stop soon after ctx is cancelled.
//
// Three optional interfaces refine how the permission engine sees the tool:
// [ReadOnlyChecker] when read-only-ness depends on the input (a Bash
// command), [RuleMatcher] to understand rule content such as "git log:*" or
// "src/**", and [Suggester] to propose the rules a user may add to allow
// calls like this one. They receive the context, which carries the agent's
// [State] ([StateFromContext]), so an answer can depend on where the call
// runs. Check any tool against this contract with the tooltest package, as
// fstest.TestFS checks a file system. See [ExampleTool].
//
// # Running calls
//
// A [Toolkit] holds an agent's tools, organised in groups that the model
// switches on and off with the reset_tools meta tool, plus dynamic [Source]s
// such as MCP servers. For every [Call] it:
//
//  1. finds the tool among the active groups;
//  2. parses the input JSON and validates it against the tool's schema, then
//     writes whole numbers given as 2.0 or 1e3 as 2 and 1000 where the
//     schema wants an integer (JSON Schema counts them as integers, Go's
//     decoder does not), leaving every other byte of the input as it was;
//  3. asks the permission engine (package permission), with the agent's
//     [State]: a denied call ends here, a call needing approval comes back
//     [StatusAsking] with the decision and suggested rules, an External tool's
//     call comes back [StatusSubmitted];
//  4. runs the tool, accumulating its chunks into a [Result].
//
// Every failure the model can act on (an unknown tool, bad JSON, a field of
// the wrong type, a denial, a tool that panicked) is a result with an
// explanatory text, never a Go error: Go errors mean broken infrastructure.
// Errors of [Toolkit.Check] are told apart with errors.Is: [ErrToolNotFound],
// [ErrGroupInactive], [ErrInvalidInput] (all [ErrInvalidCall]).
//
// An agent's model turn goes: begin it with [Toolkit.BeginTurn]; send the
// [Toolkit.Schemas] under the turn's context, each put in the provider's
// shape by package model/openai, model/anthropic or mcp; run the calls of the answer
// with [Toolkit.CallBatch] (or [Toolkit.StreamBatch], to show progress)
// under the same ctx. Consecutive concurrency-safe calls run in parallel,
// the others in order, and a call that needs approval holds back the calls
// after it. Within the turn each source is listed once. A caller that streams
// one call with [Toolkit.Stream] gathers the chunks with [Result.Append] and
// ends with [Result.Finish], as [Toolkit.Call] does.
//
// # Writing a middleware
//
// A [Middleware] wraps the [Handler] that runs a call, for every tool
// (ToolkitOptions.Middleware) or for one (ToolkitOptions.ToolMiddleware);
// the first listed is outermost. It sees the call before the Toolkit looks
// the tool up and every chunk after, and can:
//
//   - rewrite the call: the new input is validated and judged again, so a
//     middleware cannot slip an input past the permission engine;
//   - transform or drop chunks (truncate output, redact);
//   - answer by itself without calling next (a cache, a dry run);
//   - bound the call's time with a context deadline.
//
// See [ExampleMiddleware]. A tool that decorates another tool instead
// implements [Wrapper] (Unwrap), so that the rules written for the tool it
// wraps keep applying; a rule with content that no [RuleMatcher] can
// evaluate fails closed (a deny or ask rule applies, an allow rule does not).
//
// # Writing a source
//
// A [Source] lists tools known only at run time: Name identifies it in logs,
// Tools returns the current list. Put it in ToolkitOptions.Sources, or in a
// [Group] to keep its tools, and its listings, out of the way until the
// model activates the group. A source whose listing costs a round trip
// implements [ChangeReporter]: the Toolkit lists it again only when
// ListVersion moves. A tool whose name is already taken is dropped with a
// warning; a source that fails is skipped for the turn. See [ExampleSource].
//
// # One decision, carried to the run
//
// A call is judged once. For a tool that implements [Judge] (Bash), the
// Toolkit asks it for a [Judgment] of the input (the command parsed and
// analysed where it will run) and every question of the permission engine
// goes to it: the deny, ask and allow rules, the read-only fast path, the
// tool's own check, the suggestions. The Judgment then reaches the tool in
// [Call.Judgment], so the run is the one judged: the same command, in the
// same directory, with the environment the analysis chose. An input
// changed on the way (a middleware, a hook's rewrite) is a new call and is
// judged anew; a caller's own Call.Judgment is never trusted.
//
// # Hosts
//
// A host decides with ToolkitOptions.PermissionHook (before, after or
// instead of the permission engine; deny rules still win) and answers
// approvals at once with an [Asker] (a terminal, an MCP elicitation, a web
// UI); without one, a call needing approval comes back asking, and the host
// sends it again with Approved set. Packages keep their own data in the
// [State], which round-trips through JSON, through a [Slot]; a list of
// records that may grow long (package builtin's tasks) through a
// [RecordSlot], read and changed one record at a time, so that a state
// file of 10,000 records read, changed in one and saved
// ([UnmarshalStateFile], [State.MarshalFile]) costs that one record.
package tool
