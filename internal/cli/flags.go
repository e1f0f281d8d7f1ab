package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/internal/spell"
	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/tracing"
)

// listFlag collects repeated flags.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// common are the flags every command takes, and the arguments left over.
type common struct {
	name       string
	fs         *flag.FlagSet
	stdout     io.Writer
	configPath string
	cwd        string
	mode       string
	allow      listFlag
	deny       listFlag
	ask        listFlag
	statePath  string
	// runFile is run's and chat's --state file, which they read
	// themselves (statePath is then ""): like the state file, a file of
	// toolscope's that the tools must not change unasked.
	runFile      string
	noClaude     bool
	trustProject bool
	sandbox      bool
	quiet        bool // no warnings on standard error
	// args are the arguments that are not flags, in order; dashdash
	// reports that "--" ended the flags.
	args     []string
	dashdash bool
	// asker answers approvals for the toolkit (serve: the MCP client's
	// user); nil means none.
	asker tool.Asker
	// elicitor answers the MCP servers' questions (chat: the terminal);
	// nil: the asker, when it can.
	elicitor mcp.Elicitor
	// noHooks and noServers: toolscope hook runs none of the settings'
	// hooks and starts no MCP server (host.Options).
	noHooks, noServers bool
	// background offers background shells (host.Options.Background):
	// serve's sessions, run and chat, which close their agent's state.
	background bool
	// hookModel makes the model of the settings' prompt hooks
	// (host.Options.HookModel): run's and chat's; nil for the others.
	hookModel func(name string) (agent.Model, error)
	// tracer records spans of the calls (run, chat, serve); nil: off.
	tracer *tracing.Tracer
	// middleware wraps every call, inside the tracer's (serve --console:
	// the console's record of each session's calls).
	middleware []tool.Middleware
}

func newFlags(name string, stdout io.Writer, withRules bool) *common {
	c := &common{name: name, fs: flag.NewFlagSet(name, flag.ContinueOnError), stdout: stdout}
	c.fs.SetOutput(io.Discard) // errors are reported by parse, help by run
	c.fs.StringVar(&c.configPath, "config", "", "JSON config file: \"permissions\" as Claude Code writes them")
	c.fs.StringVar(&c.cwd, "cwd", "", "project root (default: the current directory)")
	c.fs.BoolVar(&c.noClaude, "no-claude-settings", false, "do not read Claude Code's settings (~/.claude/settings.json, .claude/settings.json, .claude/settings.local.json, .mcp.json)")
	c.fs.BoolVar(&c.quiet, "quiet", false, "print no warnings (about the settings, servers, hooks) on standard error")
	c.fs.BoolVar(&c.trustProject, "trust-project", false, "apply the project's .claude settings in full (allow rules, hooks, servers) as if the folder were trusted in Claude Code")
	c.fs.StringVar(&c.statePath, "state", "", "agent state file (read cache, shell directory, rules added with \"always\")")
	c.fs.BoolVar(&c.sandbox, "sandbox", false, "run Bash commands in the OS sandbox: writes only inside the project, no network, secrets hidden (see toolscope sandbox status)")
	if withRules {
		c.fs.StringVar(&c.mode, "mode", "", "permission mode: default, accept_edits, explore, bypass, dont_ask")
		c.fs.Var(&c.allow, "allow", "allow rule, e.g. 'Bash(git log:*)' (repeatable)")
		c.fs.Var(&c.deny, "deny", "deny rule (repeatable)")
		c.fs.Var(&c.ask, "ask", "ask rule (repeatable)")
	}
	return c
}

// parse parses args with flags anywhere: before, between and after the
// arguments, up to a "--", after which everything is an argument (so that
// `check -- ls -la` keeps its -la). "-" is an argument (standard input).
func (c *common) parse(args []string) error {
	for {
		if err := c.fs.Parse(args); err != nil {
			return c.flagError(err, args)
		}
		rest := c.fs.Args()
		done := args[:len(args)-len(rest)]
		if n := len(done); n > 0 && done[n-1] == "--" && !(n > 1 && c.takesValue(done[n-2])) {
			c.args, c.dashdash = append(c.args, rest...), true
			return nil
		}
		if len(rest) == 0 {
			return nil
		}
		c.args = append(c.args, rest[0])
		args = rest[1:]
	}
}

// takesValue reports whether arg is a flag that takes the next argument as
// its value ("--mode", not "--mode=x" nor "--yes").
func (c *common) takesValue(arg string) bool {
	name, ok := strings.CutPrefix(arg, "-")
	name = strings.TrimPrefix(name, "-")
	if !ok || name == "" || strings.Contains(name, "=") {
		return false
	}
	f := c.fs.Lookup(name)
	if f == nil {
		return false
	}
	b, isBool := f.Value.(interface{ IsBoolFlag() bool })
	return !isBool || !b.IsBoolFlag()
}

// flagError rewrites the flag package's errors: the flag as the user spelled
// it, and what to do.
func (c *common) flagError(err error, args []string) error {
	if errors.Is(err, flag.ErrHelp) {
		// The command's own usage lines, then its flags, and no other's.
		fmt.Fprintln(c.stdout, "usage:")
		first, _, _ := strings.Cut(c.name, " ")
		for _, l := range strings.Split(usageText, "\n") {
			if strings.HasPrefix(l, "  toolscope "+first+" ") || l == "  toolscope "+first {
				fmt.Fprintln(c.stdout, l)
			}
		}
		fmt.Fprintf(c.stdout, "\nflags of %s:\n", c.name)
		c.fs.SetOutput(c.stdout)
		c.fs.PrintDefaults()
		return &exitError{code: 0}
	}
	msg := err.Error()
	spelled := func(name string) string {
		for _, a := range args {
			if a == "--" {
				break
			}
			if n := strings.TrimLeft(a, "-"); strings.HasPrefix(a, "-") && (n == name || strings.HasPrefix(n, name+"=")) {
				return strings.SplitN(a, "=", 2)[0]
			}
		}
		return "--" + name
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var known []string
		c.fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
		m := fmt.Sprintf("%s: unknown flag %s", c.name, spelled(name))
		if near := spell.Nearest(name, known); near != "" {
			m += fmt.Sprintf(" (did you mean --%s?)", near)
		}
		if c.name == "check" {
			m += "; a shell command with flags of its own goes after --: toolscope check -- ls -la"
		}
		return usageErr("%s\nrun 'toolscope help' for the usage", m)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return usageErr("%s: flag %s needs a value", c.name, spelled(name))
	}
	return usageErr("%s: %s", c.name, strings.ReplaceAll(msg, " -", " --"))
}
