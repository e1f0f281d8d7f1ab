// Package host is what the toolscope command does around a Toolkit, for a
// Go program that wants the same: open a project's workspace (its
// settings, trusted or not, with the origin of every rule, server and hook;
// the MCP servers they configure; the hooks; the OS sandbox) and keep an
// agent's state in a file that several processes share.
//
// The toolscope command, its MCP server (toolscope serve) and the Temporal
// worker all open their workspace with [Open]; a program embedding
// toolscope does too:
//
//	ws, err := host.Open(ctx, &host.Options{Dir: repo, Warnings: os.Stderr})
//	if err != nil { ... }           // a *host.Error: a settings file is wrong
//	defer ws.Close()                // stops the MCP servers it started
//	st := tool.NewState(ws.Permissions(&permission.Context{Mode: permission.Default}))
//	r, err := ws.Toolkit.Call(ctx, &tool.Call{Name: "Bash", Input: in, State: st})
//
// # Settings
//
// The settings are Claude Code's files, lowest precedence first: the
// user's ~/.claude/settings.json, the project's .claude/settings.json and
// .claude/settings.local.json, the servers of the project's .mcp.json that
// the user enabled, then Options.Settings (the command's --config). The
// rules of every file apply; the last file that sets a mode wins. A
// malformed rule is skipped with a warning, not an error, so one typo does
// not lose a file's deny rules.
//
// A project's own files are not trusted until the user trusts the folder
// (Claude Code's trust dialog, or Options.TrustProject): until then a
// cloned repository's settings can only restrict (deny and ask rules, a
// stricter mode); its allow rules, hooks, servers, skills and sandbox
// relaxations are dropped, with a warning saying so.
//
// # The state file
//
// A [StateFile] keeps a [tool.State] between runs: the files read (so that
// read-before-write holds from one process to the next), the tasks, the
// groups, the shell's directory and the rules added with "always". It is
// sealed with an HMAC under a key in the user's configuration directory,
// so a file an agent wrote to grant itself permissions is refused. A
// [Snapshot] saves what it changed merged with what other processes saved
// since it was loaded; [StateFile.LoadLocked] makes a load, change and
// save that no other process interleaves.
//
// Messages name the options by the toolscope command's flags (--config,
// --state, --trust-project), which the fields of [Options] mirror.
package host
