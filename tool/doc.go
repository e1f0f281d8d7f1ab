// Package tool defines what a tool is and runs calls to tools for an agent.
//
// A [Tool] describes itself ([Info]: name, description, JSON Schema of its
// input, and flags such as ReadOnly and ConcurrencySafe), gives its opinion of
// a call (CheckPermissions) and runs it (Call), streaming [Chunk]s. Optional
// interfaces refine how the permission engine sees it: [ReadOnlyChecker],
// [RuleMatcher], [Suggester].
//
// A [Toolkit] holds the tools of an agent, organised in groups that the model
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
// [Toolkit.CallBatch] runs the calls of one model turn, in parallel where the
// tools allow it.
//
// [NewFunction] turns a typed Go function into a tool, inferring its schema
// from the input struct. Tools written by hand decode their input with
// [DecodeInput], whose errors name the field and the type it wants.
//
// # Middleware and wrappers
//
// A [Middleware] wraps the handling of every call (ToolkitOptions.Middleware)
// or of one tool's calls (ToolkitOptions.ToolMiddleware): it can rewrite the
// call (the new input is validated and judged again), transform or drop
// chunks, answer by itself, or bound the call's time; the first is outermost.
// A tool that decorates another implements [Wrapper] (Unwrap), so that the
// rules written for the tool it wraps keep applying; a rule with content that
// no [RuleMatcher] can evaluate fails closed. Errors of [Toolkit.Check] are
// told apart with errors.Is: [ErrToolNotFound], [ErrGroupInactive],
// [ErrInvalidInput] (all [ErrInvalidCall]). A caller that streams a call with
// [Toolkit.Stream] gathers the chunks with [Result.Append] and ends with
// [Result.Finish], as [Toolkit.Call] does.
//
// A host decides with ToolkitOptions.PermissionHook (before, after or
// instead of the permission engine; deny rules still win) and answers
// approvals at once with an [Asker]. Packages keep their own data in the
// [State] through a [Slot].
package tool
