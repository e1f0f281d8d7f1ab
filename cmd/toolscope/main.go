// Command toolscope checks and runs agent tool calls from the shell.
//
//	toolscope tools [--format openai|anthropic|mcp]
//	toolscope check [--mode M] [--allow R]... [--deny R]... [--ask R]... (--tool NAME [--input JSON|-] | -- SHELL COMMAND...)
//	toolscope call [--mode M] [--allow R]... [--deny R]... [--ask R]... [--yes] [--json] TOOL [JSON|-]
//	toolscope version
//
// Every command takes --config FILE (the "permissions" of a Claude Code
// settings file: allow, deny and ask rules, defaultMode,
// additionalDirectories; other keys are ignored), --cwd DIR (the project
// root; default: the current directory) and --state FILE (the agent state,
// kept between calls; call saves it).
//
// Flags may come before or after the arguments; "--" ends them, and for
// check everything after it is the shell command. An input of "-" is read
// from standard input.
//
// check prints the permission engine's final decision as one JSON object and
// exits 0. call runs one tool call through the engine. The exit status is
// the same for the same error in every command:
//
//	0  success
//	1  the tool ran and failed, or toolscope itself failed (a permission
//	   check that broke, a state that could not be saved after the call)
//	2  usage: a bad flag or argument, an unknown tool, input that is not JSON
//	   or breaks the tool's schema, a bad --mode, rule flag, --cwd, --config
//	   or --state (unreadable, not a toolscope state, not writable); nothing
//	   ran and no file was written
//	3  call only: the call was denied, or needs approval that was refused or
//	   that no terminal can give; the message says what would let it through
//
// A call that needs approval asks at the terminal (y, N or always); with the
// input on standard input it asks on the controlling terminal, /dev/tty.
// Without a terminal it exits 3: pass --yes, or the suggested --allow rules.
//
// The commands that run agents on Temporal (worker, run --temporal,
// approve, deny, runs) are in the Temporal build, module temporal/:
// cd temporal && go run ./cmd/toolscope from a checkout.
package main

import (
	"os"

	"github.com/toolscope/toolscope/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], nil))
}
