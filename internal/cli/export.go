package cli

import (
	"context"
	"flag"
	"io"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/permission"
)

// This file is what the Temporal build (module temporal/) uses of the CLI:
// the common flags, the workspace they open (package host, with the
// flags' rules), the model and the printing of waiting calls.

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
	return f.c.permissions(&permission.Context{Mode: permission.Default}, nil, warn)
}

// Mode is the mode --mode names ("" when it was not given).
func (f *Flags) Mode() (permission.Mode, error) {
	if f.c.mode == "" {
		return "", nil
	}
	m, err := host.ParseMode(f.c.mode)
	if err != nil {
		return "", usageErr("--mode: %v", err)
	}
	return m, nil
}

// Workspace is the project the flags describe (see host.Workspace), whose
// permissions also have the flags' mode and rules.
type Workspace struct {
	*host.Workspace
	c    *common
	warn io.Writer
}

// Workspace opens the project's workspace. Close it to stop the MCP
// servers it started.
func (f *Flags) Workspace(ctx context.Context, warn io.Writer) (*Workspace, error) {
	ws, err := host.Open(ctx, f.c.hostOptions(warn))
	if err != nil {
		return nil, usage(err)
	}
	return &Workspace{Workspace: ws, c: f.c, warn: warn}, nil
}

// OfferBackground makes the workspace that Workspace opens offer
// background shells (host.Options.Background), for a program that keeps
// its agents' shells running between calls and kills them when their
// agents end (the Temporal worker).
func (f *Flags) OfferBackground() { f.c.background = true }

// Permissions returns base with the workspace's settings and the flags
// that opened it (mode and rules) added, as run does with the permission
// context of its run file.
func (w *Workspace) Permissions(base *permission.Context) (*permission.Context, error) {
	return w.c.permissions(w.Workspace.Permissions(base), w.ToolNames(), w.warn)
}

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
