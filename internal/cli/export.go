package cli

import (
	"context"
	"flag"
	"io"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// This file is what the Temporal build (module temporal/) uses of the CLI:
// the common flags, the workspace they describe, and the model.

// DefaultSystemPrompt is the system prompt of run and chat.
const DefaultSystemPrompt = defaultSystemPrompt

// Flags are the flags every command takes: --config, --cwd, --state,
// --sandbox, --no-claude-settings, --trust-project and, with rules, --mode,
// --allow, --deny and --ask.
type Flags struct{ c *common }

// NewFlags returns the common flags of the command name; more flags go in
// FlagSet before Parse.
func NewFlags(name string, stdout io.Writer, withRules bool) *Flags {
	return &Flags{newFlags(name, stdout, withRules)}
}

// FlagSet is where a command adds its own flags.
func (f *Flags) FlagSet() *flag.FlagSet { return f.c.fs }

// Parse parses args with flags anywhere, as every command does; errors are
// usage errors (exit 2).
func (f *Flags) Parse(args []string) error { return f.c.parse(args) }

// Args are the arguments that are not flags.
func (f *Flags) Args() []string { return f.c.args }

// Permissions returns base with the flags' mode and rules added (not the
// settings': a client that starts a run on another machine has only its
// flags).
func (f *Flags) Permissions(warn io.Writer) (*permission.Context, error) {
	return (&config{}).context(&permission.Context{Mode: permission.Default}, f.c, nil, warn)
}

// Mode is the mode --mode names ("" when it was not given).
func (f *Flags) Mode() (permission.Mode, error) {
	if f.c.mode == "" {
		return "", nil
	}
	m, err := parseMode(f.c.mode)
	if err != nil {
		return "", usageErr("--mode: %v", err)
	}
	return m, nil
}

// Workspace is the project the flags describe: its root, and its toolkit
// with the settings' servers, skills, hooks and sandbox.
type Workspace struct {
	Root    string
	Toolkit *tool.Toolkit
	s       *setup
	c       *common
	warn    io.Writer
}

// Workspace builds the project's toolkit. Close it to stop the MCP servers
// it started.
func (f *Flags) Workspace(ctx context.Context, warn io.Writer) (*Workspace, error) {
	s, err := f.c.setup(ctx, warn, false)
	if err != nil {
		return nil, err
	}
	return &Workspace{Root: s.root, Toolkit: s.tk, s: s, c: f.c, warn: warn}, nil
}

// Permissions returns base with the workspace's settings and the flags
// that built it (mode and rules) added, as run does with the permission
// context of its run file.
func (w *Workspace) Permissions(base *permission.Context) (*permission.Context, error) {
	return w.s.cfg.context(base, w.c, nil, w.warn)
}

// PromptHook returns the workspace's UserPromptSubmit hooks as an agent's
// PromptHook, or nil when it has none.
func (w *Workspace) PromptHook() func(ctx context.Context, input string) (string, error) {
	if w.s.hooks == nil || len(w.s.hooks.matching("UserPromptSubmit", "")) == 0 {
		return nil
	}
	return w.s.hooks.promptHook
}

// StopHook returns the workspace's Stop hooks as an agent's StopHook, or
// nil when it has none.
func (w *Workspace) StopHook() func(ctx context.Context, r *agent.Run, answer string) string {
	if w.s.hooks == nil || len(w.s.hooks.matching("Stop", "")) == 0 {
		return nil
	}
	return w.s.hooks.stopHook()
}

// Close stops the workspace's MCP servers.
func (w *Workspace) Close() { w.s.close() }

// NewModel returns the model spec names ("openai:NAME" or
// "anthropic:NAME"; "" means $TOOLSCOPE_MODEL).
func NewModel(spec string) (agent.Model, error) { return newModel(spec) }

// DescribeWaiting tells the user what the waiting calls of a run wait for.
func DescribeWaiting(w io.Writer, waiting []agent.Waiting) {
	describeWaiting(&agent.Run{Waiting: waiting}, w)
}

// TemporalFlag reports whether args (a command's, after its name) name a
// Temporal server with --temporal, before any "--".
func TemporalFlag(args []string) bool { return temporalFlag(args) }

// Unshowable says why a call's input cannot be put to a person for
// approval (a key twice; more than an approval shows whole), or "": such
// a call is refused, never asked about with its input cut.
func Unshowable(input string) string { return unshowable(input) }
