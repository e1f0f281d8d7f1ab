// Package permission decides, for every tool call an agent makes, whether it runs
// ([Allow]), is refused ([Deny]) or needs a human ([Ask]).
//
// The decision depends on three things: the [Mode] the agent runs in, the user's
// rules ([Rule], in the Claude Code string form such as "Bash(git log:*)",
// "Read(src/**)" or "mcp__fs__read_file"), and the tool's own opinion of the input
// (a [Subject]). An [Engine] combines them in a fixed order, the same for every
// tool:
//
//  1. deny rules: a match denies;
//  2. ask rules: a match asks (in [DontAsk] mode: denies);
//  3. the read-only fast path: a read-only invocation is allowed;
//  4. the tool's own check ([Subject.CheckPermissions]): Allow and Deny are final;
//     an Ask marked BypassImmune is kept in [Default] and [AcceptEdits] mode,
//     ignored in [Bypass] mode and turned into Deny in [DontAsk] mode; any other
//     Ask or [Passthrough] falls through;
//  5. allow rules: a match allows;
//  6. the mode's fallback: Ask in Default and AcceptEdits, Allow in Bypass, Deny
//     in Explore and DontAsk.
//
// [Explore] mode skips steps 4 and 5: only read-only calls (and nothing a rule
// asks about) get through. Rules are looked up under the exact tool name; within
// a list the first match wins, and a rule with empty content matches every input
// of its tool.
//
// Every [Decision] carries a Reason naming the rule or the layer that decided, so
// a user can always learn why a call was let through or stopped.
//
// The package has no dependencies beyond the standard library and does no I/O:
// tools bring their own knowledge (paths, shell syntax) through [Subject].
package permission
