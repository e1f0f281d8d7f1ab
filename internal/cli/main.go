// Package cli is the toolscope command, as a library: cmd/toolscope runs it,
// and the Temporal build (module temporal/) runs it with its own commands
// added (see [Options]).
package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/internal/inputview"
	"github.com/toolscope/toolscope/internal/spell"
	"github.com/toolscope/toolscope/internal/toolformat"
	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/shell"
	"github.com/toolscope/toolscope/subagent"
	"github.com/toolscope/toolscope/tool"
)

// Main runs the command line args (without the program name) on the
// process's standard streams and returns the exit status. SIGTERM and
// SIGHUP (a closed terminal, a supervisor stopping us) end a call as Ctrl-C
// does: the command's processes are ended, temporary files removed and the
// state saved.
func Main(args []string, opts *Options) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	err := Run(ctx, args, os.Stdin, os.Stdout, os.Stderr, opts)
	stop()
	return ExitCode(err, os.Stderr)
}

// exitError carries an exit status; its message (if any) goes to stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// Exit returns an error that ends the command with the exit status code,
// printing msg (unless empty) to stderr as "toolscope: msg".
func Exit(code int, msg string) error { return &exitError{code: code, msg: msg} }

// UsageError is a usage error (exit 2) with a message.
func UsageError(format string, args ...any) error { return usageErr(format, args...) }

func usageErr(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

// ExitCode prints err's message, if any, to stderr and returns the exit
// status it carries: 0 for nil, the status of an [ExitError], else 1.
func ExitCode(err error, stderr io.Writer) int { return exitCode(err, stderr) }

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, "toolscope:", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "toolscope:", err)
	return 1
}

const usageText = `usage:
  toolscope tools [--format openai|anthropic|mcp] [--agent]
  toolscope check [--mode M] [--allow R]... [--deny R]... [--ask R]... (--tool NAME [--input JSON|-] | -- SHELL COMMAND...)
  toolscope call [--mode M] [--allow R]... [--deny R]... [--ask R]... [--yes] [--json] TOOL [JSON|-]
  toolscope serve [--http ADDR [--stateless]] [--console DIR] [--mode M] [--allow R]... [--deny R]... [--ask R]...
  toolscope run [--model openai:M|anthropic:M] [--state FILE] [--mode M] [--allow R]... 'PROMPT'
  toolscope run --resume FILE (--approve ID [--always | --input JSON] | --deny ID [--message TEXT])...
  toolscope config [--json] (the effective settings, with the origin of every rule and server)
  toolscope chat [--model openai:M|anthropic:M] [--state FILE] [--mode M] [--allow R]...
  toolscope sandbox status [--json] (the OS sandbox's protections on this machine)
  toolscope mcp login|logout NAME, toolscope mcp list (OAuth logins of remote MCP servers)
  toolscope hook claude-code|cursor|gemini (the permission layer in an agent's hook; event on stdin)
  toolscope hook install|uninstall claude-code [--user|--project|--local]
  toolscope console [--http 127.0.0.1:PORT] [--runs DIR] [--auth-token [NAME=]TOKEN]... [--export FILE]
  toolscope completion bash|zsh|fish (a completion script for the shell)
  toolscope version
Every command takes --config FILE, --cwd DIR and --state FILE; --sandbox runs Bash
in the OS sandbox (settings: "sandbox": {"enabled": true, ...}). Flags may follow the
arguments; -- ends them (check: the shell command follows). "-" reads the input from stdin.
Modes: default, accept_edits, explore, bypass, dont_ask.
Exit status: 0 ok; 1 the tool failed; 2 usage error (bad flag, unknown tool, invalid
input, bad --config/--state/--cwd; nothing ran); 3 call denied or needing approval;
4 the call succeeded (its changes stand) but the --state file could not be saved.`

// Options extend the command.
type Options struct {
	// Commands are more commands, by name; one named like a built-in
	// command replaces it (it can call [Run] without Options to fall back).
	Commands map[string]Command
}

// A Command is one more command of the CLI.
type Command struct {
	// Usage is its line in the usage text, without "toolscope ".
	Usage string
	// Run runs it; args follow the command's name. The error's exit
	// status is ExitCode's.
	Run func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// temporalCommands are the commands of the Temporal build: this one only
// says where they are.
var temporalCommands = []string{"worker", "approve", "deny", "runs"}

// Run is the whole program; main only wires the process to it.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, opts *Options) error {
	use := usageText
	if opts != nil {
		var extra []string
		for _, c := range opts.Commands {
			if c.Usage != "" {
				extra = append(extra, "  toolscope "+c.Usage)
			}
		}
		slices.Sort(extra)
		if len(extra) > 0 {
			head, tail, _ := strings.Cut(usageText, "  toolscope version\n")
			use = head + strings.Join(extra, "\n") + "\n  toolscope version\n" + tail
		}
		if len(args) > 0 {
			if c, ok := opts.Commands[args[0]]; ok {
				return c.Run(ctx, args[1:], stdin, stdout, stderr)
			}
		}
	}
	return run(ctx, args, stdin, stdout, stderr, use)
}

// temporalFlag reports whether args name a Temporal server (before any --).
func temporalFlag(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--temporal" || a == "-temporal" || strings.HasPrefix(a, "--temporal=") || strings.HasPrefix(a, "-temporal=") {
			return true
		}
	}
	return false
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, usage ...string) error {
	use := usageText
	if len(usage) > 0 {
		use = usage[0]
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, use)
		return &exitError{code: 2}
	}
	if slices.Contains(temporalCommands, args[0]) || args[0] == "run" && temporalFlag(args[1:]) {
		return usageErr("%s runs agents on Temporal, which this build leaves out (the core module never pulls the Temporal SDK); use the Temporal build of toolscope, from a checkout: cd temporal && go run ./cmd/toolscope %s ... (or go build -o toolscope ./cmd/toolscope there)", args[0], args[0])
	}
	switch args[0] {
	case "tools":
		return runTools(ctx, args[1:], stdout, stderr)
	case "check":
		return runCheck(ctx, args[1:], stdin, stdout, stderr)
	case "call":
		return runCall(ctx, args[1:], stdin, stdout, stderr)
	case "serve":
		return runServe(ctx, args[1:], stdin, stdout, stderr)
	case "run":
		return runRun(ctx, args[1:], stdin, stdout, stderr)
	case "config":
		return runConfig(ctx, args[1:], stdout, stderr)
	case "chat":
		return runChat(ctx, args[1:], stdin, stdout, stderr)
	case "sandbox":
		return runSandbox(ctx, args[1:], stdout, stderr)
	case "mcp":
		return runMCP(ctx, args[1:], stdout, stderr)
	case "hook":
		return runHook(ctx, args[1:], stdin, stdout, stderr)
	case "console":
		return runConsole(ctx, args[1:], stdout, stderr)
	case "completion":
		return runCompletion(args[1:], stdout)
	case "version", "--version":
		fmt.Fprintln(stdout, "toolscope", version())
		return nil
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, use)
		return nil
	}
	commands := []string{"tools", "check", "call", "serve", "run", "config", "chat", "sandbox", "mcp", "hook", "console", "completion", "version", "help"}
	if near := spell.Nearest(args[0], commands); near != "" {
		return usageErr("unknown command %q; did you mean %q?\n%s", args[0], near, use)
	}
	return usageErr("unknown command %q\n%s", args[0], use)
}

// The build's stamp, set by make dist (-ldflags -X): the release, the
// commit and the time of the build.
var (
	buildVersion string
	buildCommit  string
	buildDate    string
)

// version is the build's version, commit and date: make dist's stamp,
// else what the Go toolchain recorded (a module version, the VCS commit
// and time of a build from a checkout).
func version() string {
	v, commit, date := buildVersion, buildCommit, buildDate
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, kv := range bi.Settings {
			switch {
			case kv.Key == "vcs.revision" && commit == "":
				commit = kv.Value
			case kv.Key == "vcs.time" && date == "":
				date = kv.Value
			case kv.Key == "vcs.modified" && kv.Value == "true" && buildCommit == "" && commit != "" && !strings.HasSuffix(commit, "-dirty"):
				commit += "-dirty"
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	out := v
	if commit != "" {
		if len(commit) > 12 && !strings.Contains(commit, "-") {
			commit = commit[:12]
		}
		out += " (commit " + commit
		if date != "" {
			out += ", " + date
		}
		out += ")"
	}
	return out
}

// setup is what a command needs: the workspace (root, settings,
// toolkit), the agent state, and the persisted permission context.
type setup struct {
	*host.Workspace
	// snap is the state as loaded (st is its State): saving merges this
	// run's changes to it with another run's.
	snap      *host.Snapshot
	st        *tool.State
	persisted *permission.Context
	// effective is the permission context of this invocation: persisted,
	// settings and flags.
	effective *permission.Context
	// input is the call's input (for call's hints), and judgment the
	// tool's judgment of it, when the call made one.
	input    string
	judgment tool.Judgment
	// state is the --state file, nil for none; saving is set when the
	// command saves it (checked writable at setup).
	state  *host.StateFile
	saving bool
}

// close stops the MCP servers the command started, and releases the
// state's lock if a serialized call still holds it.
func (s *setup) close() {
	s.unlock()
	s.Workspace.Close()
}

// hostOptions are the workspace options the flags give.
func (c *common) hostOptions(warn io.Writer) *host.Options {
	if c.quiet {
		warn = nil // host: discarded (Settings.Warnings still keeps them)
	}
	o := &host.Options{Dir: c.cwd, Settings: c.configPath, NoClaudeSettings: c.noClaude,
		TrustProject: c.trustProject, Sandbox: c.sandbox, Asker: c.asker, Elicitor: c.elicitor, NoHooks: c.noHooks, NoServers: c.noServers, Background: c.background, HookModel: c.hookModel, Warnings: warn,
		Middleware: append(c.traceMiddleware(), c.middleware...)}
	for _, p := range []string{c.statePath, c.runFile} {
		if p != "" {
			o.Protect = append(o.Protect, p)
		}
	}
	return o
}

// usage turns a host.Error (the workspace's files or options are wrong;
// nothing ran) into a usage error (exit 2).
func usage(err error) error {
	var he *host.Error
	if errors.As(err, &he) {
		return usageErr("%s", he.Msg)
	}
	return err
}

// setup checks the flags that name files and builds what a command needs.
// Every failure is a usage error (exit 2). With save set, the --state file
// must also be writable, so that a call never runs when its state could not
// be saved.
func (c *common) setup(ctx context.Context, warn io.Writer, save bool) (*setup, error) {
	ws, err := host.Open(ctx, c.hostOptions(warn))
	if err != nil {
		return nil, usage(err)
	}
	s := &setup{Workspace: ws}
	fail := func(err error) (*setup, error) {
		ws.Close()
		return nil, usage(err)
	}
	if c.statePath != "" {
		s.state = host.NewStateFile(c.statePath)
		if s.snap, err = s.state.Load(); err != nil {
			return fail(err)
		}
		if save {
			if err := s.state.Writable(); err != nil {
				return fail(err)
			}
			s.saving = true
		}
	} else {
		s.snap = &host.Snapshot{State: tool.NewState(nil)}
	}
	s.st = s.snap.State
	s.persisted = s.st.Permissions()
	pc, err := c.permissions(ws.Permissions(s.persisted), ws.ToolNames(), warn)
	if err != nil {
		return fail(err)
	}
	s.st.SetPermissions(pc)
	s.effective = pc
	return s, nil
}

// permissions returns pc with the flags' mode and rules over it. A
// malformed rule flag is a usage error; a rule for a tool that is not
// among known (nor Claude Code's, nor MCP's) gets a warning with the
// nearest name.
func (c *common) permissions(pc *permission.Context, known []string, warn io.Writer) (*permission.Context, error) {
	pc = pc.Clone()
	if c.mode != "" {
		m, err := host.ParseMode(c.mode)
		if err != nil {
			return nil, usageErr("--mode: %v", err)
		}
		pc.Mode = m
	}
	for _, set := range []struct {
		flag  string
		rules []string
		b     permission.Behavior
	}{{"--allow", c.allow, permission.Allow}, {"--deny", c.deny, permission.Deny}, {"--ask", c.ask, permission.Ask}} {
		for _, s := range set.rules {
			r, err := permission.ParseRule(s)
			if err != nil {
				return nil, usageErr("%s: %v", set.flag, err)
			}
			if msg := host.UnknownTool(r.Tool, known); msg != "" {
				fmt.Fprintf(warn, "toolscope: warning: %s: rule %q: %s\n", set.flag, s, msg)
			}
			r.Behavior, r.Source = set.b, "cli"
			pc.AddRule(r)
		}
	}
	return pc, nil
}

// save writes the state back, with the persisted permission context plus any
// rule the user added with "always" (flags and config are not persisted).
func (s *setup) save(added []permission.Rule) error {
	if !s.saving {
		return nil
	}
	pc := s.persisted.Clone()
	for _, r := range added {
		pc.AddRule(r)
	}
	s.st.SetPermissions(pc)
	return s.snap.Save()
}

// stateOnlyTools change nothing but the agent state, in a moment: their
// calls on a shared --state file run one at a time (see serialize).
var stateOnlyTools = []string{"TaskCreate", "TaskUpdate", "reset_tools"}

// serialize takes the lock on the state file's directory and loads the
// state again under it, for a call of a tool that changes only the state:
// the call then sees every change saved before it and is saved before any
// other such call loads, so concurrent TaskCreates get distinct ids and
// nothing a call reported is lost. The lock is released by unlock, after
// save.
func (s *setup) serialize(c *common) error {
	snap, pc, err := s.load(c, true)
	if err != nil {
		return err
	}
	s.snap, s.st, s.persisted, s.effective = snap, snap.State, snap.State.Permissions(), pc
	s.st.SetPermissions(pc)
	return nil
}

// load loads the state file again for one call (under the lock of its
// directory with lock set; the snapshot holds it until saved or released),
// and returns it with the permission context of the call: the state's own
// with the settings' and the flags' over it.
func (s *setup) load(c *common, lock bool) (*host.Snapshot, *permission.Context, error) {
	load := s.state.Load
	if lock {
		load = s.state.LoadLocked
	}
	snap, err := load()
	if err != nil {
		return nil, nil, usage(err)
	}
	pc, err := c.permissions(s.Permissions(snap.State.Permissions()), nil, io.Discard)
	if err != nil {
		snap.Release()
		return nil, nil, err
	}
	return snap, pc, nil
}

// unlock releases the lock serialize took, if any.
func (s *setup) unlock() {
	if s.snap != nil {
		s.snap.Release()
	}
}

// readInput returns the tool input an argument gives: the argument itself,
// or standard input for "-".
func readInput(arg string, stdin io.Reader) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	b, err := io.ReadAll(io.LimitReader(stdin, maxInput+1))
	if err != nil {
		return "", usageErr("reading the input from standard input: %v", err)
	}
	if len(b) > maxInput {
		return "", usageErr("the input on standard input is larger than %d MiB", maxInput>>20)
	}
	return string(b), nil
}

// maxInput bounds an input read from standard input.
const maxInput = 64 << 20

// invalidCall turns an error of Toolkit.Check into the exit status: a call
// that cannot run as given (unknown tool, input that is not JSON or breaks
// the schema) is a usage error, the same in check and call; a permission
// check that broke, or a tool whose MCP server could not start, is an
// error (1).
func (s *setup) invalidCall(name string, err error) error {
	if down := s.Unavailable(name, err); down != nil {
		// Not the caller's mistake: the server that has the tool is down.
		return down
	}
	if errors.Is(err, tool.ErrToolNotFound) {
		var names []string
		for _, sc := range s.Toolkit.Schemas(context.Background(), nil) {
			names = append(names, sc.Name)
		}
		if near := spell.Nearest(name, names); near != "" {
			return usageErr("%v Did you mean %s?", err, near)
		}
		return usageErr("%v The tools are: %s.", err, strings.Join(names, ", "))
	}
	if errors.Is(err, tool.ErrInvalidCall) {
		return usageErr("%v", err)
	}
	return err
}

func runTools(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newFlags("tools", stdout, false)
	format := c.fs.String("format", "openai", "schema format: openai, anthropic or mcp")
	withAgent := c.fs.Bool("agent", false, "list the tools as run and chat offer them: with the Agent tool (sub-agents of the agent files' kinds)")
	if err := c.parse(args); err != nil {
		return err
	}
	if len(c.args) > 0 {
		return usageErr("tools takes no arguments, got %q", c.args[0])
	}
	s, err := c.setup(ctx, stderr, false)
	if err != nil {
		return err
	}
	defer s.close()
	formatTool := map[string]func(tool.Schema) json.RawMessage{
		"openai": toolformat.OpenAI, "anthropic": toolformat.Anthropic, "mcp": mcp.FormatTool,
	}[*format]
	if formatTool == nil {
		return usageErr("--format: unknown schema format %q (want openai, anthropic or mcp)", *format)
	}
	if *withAgent {
		if err := addAgentTool(s, nil); err != nil {
			return err
		}
	}
	schemas := []json.RawMessage{}
	for _, sc := range s.Toolkit.Schemas(ctx, s.st.ActiveGroups()) {
		schemas = append(schemas, formatTool(sc))
	}
	b, _ := json.MarshalIndent(schemas, "", "  ")
	fmt.Fprintln(stdout, string(b))
	return nil
}

// addAgentTool adds the sub-agent tool (Agent) to the setup's toolkit, as
// run and chat offer it: sub-agents of the kinds of the agent files, with
// model m (nil: for listing and judging; a call says there is no model).
func addAgentTool(s *setup, m agent.Model) error {
	if m == nil {
		m = noModel{}
	}
	sub, err := subagent.New(&subagent.Options{Definitions: s.Subagents(), Model: m, Toolkit: s.Toolkit})
	if err == nil {
		err = s.Toolkit.Add(tool.BasicGroup, sub)
	}
	return err
}

// noModel is the model of an Agent tool listed or judged without one.
type noModel struct{}

func (noModel) Stream(context.Context, *agent.Request) iter.Seq2[agent.ModelEvent, error] {
	return func(yield func(agent.ModelEvent, error) bool) {
		yield(agent.ModelEvent{}, errors.New("no model: sub-agents run in toolscope run and chat"))
	}
}

// checkOutput is the JSON object check prints.
type checkOutput struct {
	Behavior     permission.Behavior `json:"behavior"`
	ReadOnly     bool                `json:"read_only"`
	BypassImmune bool                `json:"bypass_immune"`
	Message      string              `json:"message"`
	Reason       string              `json:"reason"`
	Suggestions  []string            `json:"suggestions"`
}

func runCheck(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c := newFlags("check", stdout, true)
	asJSON := c.fs.Bool("json", false, "print the JSON object (the default when standard output is not a terminal)")
	toolName := c.fs.String("tool", "", "tool name (with --input)")
	input := c.fs.String("input", "", "tool input as JSON, or - to read it from standard input (with --tool)")
	if err := c.parse(args); err != nil {
		return err
	}
	switch {
	case *toolName != "" && len(c.args) > 0:
		return usageErr("check takes either --tool and --input, or -- SHELL COMMAND, not both (got the argument %q)", c.args[0])
	case *toolName == "" && len(c.args) == 0:
		return usageErr("check needs --tool NAME --input JSON, or -- SHELL COMMAND")
	case *toolName == "" && *input != "":
		return usageErr("check: --input goes with --tool NAME")
	case *toolName == "":
		b, _ := json.Marshal(map[string]string{"command": strings.Join(c.args, " ")})
		*toolName, *input = "Bash", string(b)
	default:
		var err error
		if *input, err = readInput(*input, stdin); err != nil {
			return err
		}
	}
	s, err := c.setup(ctx, stderr, false)
	if err != nil {
		return err
	}
	defer s.close()
	if *toolName == subagent.Name || *toolName == subagent.OldName {
		// run and chat offer it: judge it as they would.
		*toolName = subagent.Name
		if err := addAgentTool(s, nil); err != nil {
			return err
		}
	}
	v, err := s.Toolkit.Check(ctx, &tool.Call{Name: *toolName, Input: json.RawMessage(*input), State: s.st})
	if err != nil {
		return s.invalidCall(*toolName, err)
	}
	d := v.Decision
	out := checkOutput{Behavior: d.Behavior, ReadOnly: v.ReadOnly, BypassImmune: d.BypassImmune && d.Behavior == permission.Ask,
		Message: d.Message, Reason: d.Reason, Suggestions: []string{}}
	if j, ok := v.Judgment.(*builtin.BashJudgment); ok {
		// Name the simple command and the shell layer even when a rule, the
		// read-only fast path or the mode fallback decided: from the
		// analysis the decision used.
		if a := j.Analysis(); a != nil && a.Reason != "" && !strings.Contains(out.Reason, a.Reason) && !strings.HasPrefix(out.Reason, "Each part allowed") {
			out.Reason += "; shell analysis (" + a.Layer + "): " + a.Reason
		}
	}
	for _, r := range d.Suggestions {
		out.Suggestions = append(out.Suggestions, r.String())
	}
	if !*asJSON && isTerminalOut(stdout) {
		var parts []shell.Command
		if j, ok := v.Judgment.(*builtin.BashJudgment); ok && j.Analysis() != nil {
			parts = j.Analysis().Commands
		}
		printVerdict(stdout, *toolName, *input, out, d.Rules, parts, os.Getenv("NO_COLOR") == "")
		return nil
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// isTerminalOut reports whether w is a terminal (a person reads check's
// answer). It is a variable so that tests can be a terminal.
var isTerminalOut = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTTY(f.Fd())
}

// printVerdict writes check's answer for a person: the behaviour (in
// colour), what was judged, the reason, the rule that decided, each part
// of a shell command with its own verdict, and the suggestions as flags
// to paste. Everything from the input is escaped.
func printVerdict(w io.Writer, name, input string, out checkOutput, rules []permission.Rule, parts []shell.Command, color bool) {
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	colors := map[permission.Behavior]string{permission.Allow: "1;32", permission.Ask: "1;33", permission.Deny: "1;31"}
	what := name + " " + input
	if name == "Bash" {
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal([]byte(input), &in) == nil {
			what = in.Command
		}
	}
	fmt.Fprintf(w, "%s  %s\n", paint(colors[out.Behavior], strings.ToUpper(string(out.Behavior))), inputview.Escape(what))
	fmt.Fprintf(w, "  %s\n", inputview.Escape(out.Message))
	if out.Reason != "" {
		fmt.Fprintf(w, "  why: %s\n", inputview.Escape(out.Reason))
	}
	for _, r := range rules {
		fmt.Fprintf(w, "  rule: %s\n", inputview.Escape(r.String()))
	}
	if out.BypassImmune {
		fmt.Fprintf(w, "  no rule or mode can allow this: it is always asked\n")
	}
	if len(parts) > 1 {
		fmt.Fprintf(w, "  parts:\n")
		for _, p := range parts {
			v := "needs a rule or the user"
			switch {
			case p.ReadOnly:
				v = "read-only"
			case p.Verdict == shell.Ask:
				v = "asks"
			}
			fmt.Fprintf(w, "    %-24s %s", v, inputview.Escape(p.Text))
			if p.Reason != "" && !p.ReadOnly {
				fmt.Fprintf(w, "  (%s)", inputview.Escape(p.Reason))
			}
			fmt.Fprintln(w)
		}
	}
	if len(out.Suggestions) > 0 {
		var flags []string
		for _, sg := range out.Suggestions {
			flags = append(flags, "--allow "+shellQuote(sg))
		}
		fmt.Fprintf(w, "  to allow it: %s\n", inputview.Escape(strings.Join(flags, " ")))
	}
}

func runCall(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c := newFlags("call", stdout, true)
	yes := c.fs.Bool("yes", false, "approve a call that needs approval (without asking); deny rules still apply")
	asJSON := c.fs.Bool("json", false, "print the whole result as JSON")
	if err := c.parse(args); err != nil {
		return err
	}
	if len(c.args) < 1 || len(c.args) > 2 {
		return usageErr("call needs TOOL and its input as JSON (or - to read it from standard input), e.g. toolscope call Read '{\"file_path\":\"/etc/hostname\"}'")
	}
	name, input := c.args[0], "{}"
	if len(c.args) == 2 {
		var err error
		if input, err = readInput(c.args[1], stdin); err != nil {
			return err
		}
	}
	fromStdin := len(c.args) == 2 && c.args[1] == "-"
	// A call that needs approval is asked about in the middle of its one
	// run, so that what the user approves is what was judged and what
	// runs: --yes approves, a terminal asks, and without either the call
	// comes back asking (exit 3).
	ask := &cliAsker{yes: *yes, stdin: stdin, stderr: stderr, fromStdin: fromStdin}
	c.asker = ask
	s, err := c.setup(ctx, stderr, true)
	if err != nil {
		return err
	}
	defer s.close()
	s.input = input
	if s.saving && slices.Contains(stateOnlyTools, name) {
		if err := s.serialize(c); err != nil {
			return err
		}
		defer s.unlock()
	}
	call := &tool.Call{ID: "cli", Name: name, Input: json.RawMessage(input), State: s.st}
	// A call that cannot run as given is a usage error, as in check; the
	// state file is not touched.
	if err := s.Toolkit.Validate(ctx, call); err != nil {
		return s.invalidCall(name, err)
	}
	r, err := s.Toolkit.Call(ctx, call)
	added := ask.added
	if err == nil && r.Status == tool.StatusAsking && ask.noTerminal {
		s.judgment = ask.judgment // the hint's what-ifs judge nothing again
		printResult(stdout, r, *asJSON)
		msg := noTerminalHint(name, r.Decision, s, c, fromStdin)
		if serr := s.save(nil); serr != nil {
			msg = strings.TrimSpace(msg + "\n" + notSaved(name, r.Status, serr))
		}
		return &exitError{code: 3, msg: msg}
	}
	if err == nil && ask.denied && r.Status == tool.StatusDenied {
		r.Content = []tool.Block{tool.TextBlock("The user denied the call.")}
	}
	serr := s.save(added)
	printResult(stdout, r, *asJSON)
	if err != nil {
		if serr != nil {
			return fmt.Errorf("%w\n%s", err, notSaved(name, tool.StatusError, serr))
		}
		return err
	}
	var res *exitError
	switch r.Status {
	case tool.StatusSuccess:
		if serr == nil {
			return nil
		}
		res = &exitError{code: 4}
	case tool.StatusDenied, tool.StatusAsking:
		res = &exitError{code: 3}
		if r.Decision != nil && r.Decision.Behavior == permission.Deny && !ask.denied {
			res.msg = deniedHint(name, r.Decision, s, c)
		}
	default:
		res = &exitError{code: 1}
	}
	if serr != nil {
		res.msg = strings.TrimSpace(res.msg + "\n" + notSaved(name, r.Status, serr))
	}
	return res
}

// cliAsker asks about the call of `toolscope call` that needs approval:
// --yes approves it, a terminal asks the user (standard input, or the
// controlling terminal when standard input carried the tool's input), and
// without either the call comes back asking.
type cliAsker struct {
	yes       bool
	stdin     io.Reader
	stderr    io.Writer
	fromStdin bool

	added      []permission.Rule // the rules an "always" answer added
	denied     bool              // the user said no
	noTerminal bool              // there was no one to ask
	judgment   tool.Judgment     // the tool's judgment of the call asked about
}

func (a *cliAsker) Ask(_ context.Context, call *tool.Call, d permission.Decision) (bool, []permission.Rule, error) {
	a.judgment = call.Judgment
	if a.yes {
		// Say what --yes approved: a hook or a rule that asks is no
		// reason to exit quietly, nor to run quietly.
		why := d.Message
		if d.Reason != "" {
			why += " (" + d.Reason + ")"
		}
		fmt.Fprintf(a.stderr, "toolscope: %s needed approval: %s; --yes approved it.\n", inputview.Escape(call.Name), inputview.Escape(why))
		return true, nil, nil
	}
	answers, promptTo, closeAnswers := terminal(a.stdin, a.stderr, a.fromStdin)
	if answers == nil {
		a.noTerminal = true
		return false, nil, tool.ErrNotAsked
	}
	defer closeAnswers()
	approve, always := prompt(answers, promptTo, call.Name, string(call.Input), &d)
	switch {
	case !approve:
		a.denied = true
		return false, nil, nil
	case always:
		a.added = d.Suggestions
		return true, d.Suggestions, nil
	}
	return true, nil, nil
}

// notSaved says that a call's state could not be saved, and what that
// means for what the call did: a call that succeeded has its effects (the
// file it edited stays edited), but the state file is as before the call.
func notSaved(name string, status tool.Status, err error) string {
	what := name + " did not run"
	switch status {
	case tool.StatusSuccess:
		what = name + " ran and succeeded: what it changed stays changed"
	case tool.StatusError:
		what = name + " ran and failed"
	}
	return fmt.Sprintf("%s, but the state was not saved (%v). The state file is as it was before this call: a later call does not know what this one read, wrote or recorded (Read a file again before you Edit it); free space or fix the state file's directory before the next call.", what, err)
}

// terminal returns where to ask the user: standard input (with the prompt
// on standard error) when it is a terminal; when standard input carried the
// tool's input, the controlling terminal (/dev/tty), prompt and answer
// alike, as sudo does. It returns a nil reader when there is no terminal.
func terminal(stdin io.Reader, stderr io.Writer, inputFromStdin bool) (io.Reader, io.Writer, func()) {
	if !inputFromStdin {
		if isTerminal(stdin) {
			return stdin, stderr, func() {}
		}
		return nil, nil, nil
	}
	tty, err := openTTY()
	if err != nil {
		return nil, nil, nil
	}
	return tty, tty, func() { tty.Close() }
}

// openTTY opens the controlling terminal. It is a variable so that tests can
// stand in for one.
var openTTY = func() (io.ReadWriteCloser, error) { return os.OpenFile("/dev/tty", os.O_RDWR, 0) }

func printResult(w io.Writer, r *tool.Result, asJSON bool) {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		enc.Encode(r)
		return
	}
	for _, b := range r.Content {
		switch {
		case b.Kind == tool.KindText:
			fmt.Fprint(w, b.Text)
		case b.URL != "":
			fmt.Fprintf(w, "[%s: %s]", b.MediaType, b.URL)
		default:
			fmt.Fprintf(w, "[%s: %d bytes]", b.MediaType, len(b.Data))
		}
	}
	if text := r.Text(); len(r.Content) > 0 && !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(w)
	}
}

// isTerminal reports whether the user can be asked on r. It is a variable so
// that tests can stand in for a terminal.
var isTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && isTTY(f.Fd())
}

// maxShown bounds the input an approval shows: a larger one is not asked
// about (it is refused), never shown cut.
const maxShown = 64 << 10

// unshowable says why input cannot be put to a person for approval (a
// duplicate key, whose value depends on the reader; a size no one reads
// whole), or "".
func unshowable(input string) string {
	if path, dup := inputview.DuplicateKey([]byte(input)); dup {
		return fmt.Sprintf("its input has the key %s twice: the tool reads the last value, a person may read the first, so there is no one call to approve", inputview.Escape(path))
	}
	if len(input) > maxShown {
		return fmt.Sprintf("its input is %d bytes, more than the %d KiB an approval shows whole; allow it with a rule if it is meant to run", len(input), maxShown>>10)
	}
	return ""
}

// prompt asks the user at the terminal: y, N (the default) or always. The
// input is shown whole, with every control character spelled out (it
// cannot move the cursor, clear the screen or overwrite the question);
// one that cannot be shown so is refused without asking.
func prompt(stdin io.Reader, stderr io.Writer, name, input string, d *permission.Decision) (approve, always bool) {
	if !showPrompt(stderr, name, input, d) {
		return false, false
	}
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	return promptAnswer(line)
}

// promptStop is prompt, reading from lines, that stops waiting when stop
// is closed (answered is then false, and the line the user types later
// goes to the next reader).
func promptStop(lines *asyncLines, stderr io.Writer, name, input string, d *permission.Decision, stop <-chan struct{}) (approve, always, answered bool) {
	if !showPrompt(stderr, name, input, d) {
		return false, false, true
	}
	line, _, ok := lines.next(stop)
	if !ok {
		return false, false, false
	}
	approve, always = promptAnswer(line)
	return approve, always, true
}

// showPrompt shows the question of prompt; false when the call cannot be
// shown, and is denied (it says so).
func showPrompt(stderr io.Writer, name, input string, d *permission.Decision) bool {
	if why := unshowable(input); why != "" {
		fmt.Fprintf(stderr, "%s was not asked about and is denied: %s.\n", inputview.Escape(name), why)
		return false
	}
	fmt.Fprintf(stderr, "%s wants to run (input of %d bytes, whole): %s\n%s", inputview.Escape(name), len(input), inputview.Escape(input), inputview.Escape(d.Message))
	if d.Reason != "" {
		fmt.Fprintf(stderr, " (%s)", inputview.Escape(d.Reason))
	}
	var sugg []string
	for _, r := range d.Suggestions {
		sugg = append(sugg, inputview.Escape(r.String()))
	}
	if len(sugg) > 0 {
		fmt.Fprintf(stderr, "\nAllow? [y/N/always: adds %s] ", strings.Join(sugg, ", "))
	} else {
		fmt.Fprint(stderr, "\nAllow? [y/N] ")
	}
	return true
}

// promptAnswer reads a prompt's answer: y, always, anything else no.
func promptAnswer(line string) (approve, always bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, false
	case "a", "always":
		return true, true
	}
	return false, false
}
