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
// asks about) get through.
//
// Every [Decision] carries a Reason naming the rule or the layer that decided, so
// a user can always learn why a call was let through or stopped.
//
// The package has no dependencies beyond the standard library and does no I/O:
// tools bring their own knowledge (paths, shell syntax) through [Subject].
//
// # Which rules apply to a tool
//
// Steps 1, 2 and 5 look, in the deny, ask and allow list alike, for rules
// filed under any of these names:
//
//   - the tool's own name ("Bash", "mcp__fs__read_file");
//   - the names in [Subject.RuleNames], as Claude Code applies Read rules to
//     Grep and Glob and Edit rules to Write;
//   - for an MCP tool named mcp__SERVER__TOOL, the server: "mcp__SERVER" and
//     "mcp__SERVER__*" cover every tool of that server (and only that server:
//     "mcp__fs" is not a rule for "mcp__fsx__read").
//
// Within a list the first rule that applies wins. A rule with empty content
// applies to every input; any other rule goes, as written, to
// [Subject.MatchRule], which decides what its content means for the input.
package permission
