// Package subagent lets an agent start sub-agents: the Agent tool
// (Claude Code's, Task before 2.1.63) runs another agent on one task, with
// its own system prompt, a subset of its parent's tools and a permission
// mode no wider than its parent's, and returns its final answer.
//
// Kinds of sub-agent are [Definition]s: the built-in [GeneralPurpose] and
// [Explore], others from Go or from Claude Code's agent files
// (.claude/agents/*.md, read by [Load]). Every call a sub-agent makes goes
// through the parent's Toolkit: the same rules, hooks, sandbox and
// approval prompts; a pause for approval becomes the pause of the Agent
// call in the parent's run (see [New]).
package subagent
