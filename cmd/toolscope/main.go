// Command toolscope checks and runs agent tool calls from the shell.
//
//	toolscope tools [--format openai|anthropic|mcp] [--state FILE]
//	toolscope check [--mode M] [--allow R]... [--deny R]... [--ask R]... (--tool NAME --input JSON | -- 'SHELL COMMAND')
//	toolscope call [--mode M] [--state FILE] [--yes] [--allow R]... TOOL 'JSON'
//	toolscope version
//
// Every command takes --config FILE (JSON with "permissions" and "mcpServers"
// as Claude Code and Claude Desktop write them) and --cwd DIR (the project
// root; default: the current directory).
//
// check prints the permission engine's final decision as one JSON object and
// exits 0. call runs one tool call through the engine: it exits 0 on success,
// 1 when the tool failed, 2 on a usage error, and 3 when the call was denied
// or needs approval that no terminal can give (--yes approves).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitError carries an exit status; its message (if any) goes to stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

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

const usage = `usage:
  toolscope tools [--format openai|anthropic|mcp] [--state FILE]
  toolscope check [--mode M] [--allow R]... [--deny R]... [--ask R]... (--tool NAME --input JSON | -- 'SHELL COMMAND')
  toolscope call [--mode M] [--state FILE] [--yes] [--allow R]... TOOL 'JSON'
  toolscope version
Every command takes --config FILE and --cwd DIR. Modes: default, accept_edits, explore, bypass, dont_ask.`

// run is the whole program; main only wires the process to it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return &exitError{code: 2}
	}
	switch args[0] {
	case "tools":
		return runTools(ctx, args[1:], stdout, stderr)
	case "check":
		return runCheck(ctx, args[1:], stdout, stderr)
	case "call":
		return runCall(ctx, args[1:], stdin, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "toolscope", version())
		return nil
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return usageErr("unknown command %q\n%s", args[0], usage)
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// listFlag collects repeated flags.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// common are the flags every command takes.
type common struct {
	fs         *flag.FlagSet
	configPath string
	cwd        string
	mode       string
	allow      listFlag
	deny       listFlag
	ask        listFlag
	statePath  string
}

func newFlags(name string, stderr io.Writer, withRules, withState bool) *common {
	c := &common{fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	c.fs.SetOutput(stderr)
	c.fs.StringVar(&c.configPath, "config", "", "JSON config file (permissions, mcpServers, skills)")
	c.fs.StringVar(&c.cwd, "cwd", "", "project root (default: the current directory)")
	if withRules {
		c.fs.StringVar(&c.mode, "mode", "", "permission mode: default, accept_edits, explore, bypass, dont_ask")
		c.fs.Var(&c.allow, "allow", "allow rule, e.g. 'Bash(git log:*)' (repeatable)")
		c.fs.Var(&c.deny, "deny", "deny rule (repeatable)")
		c.fs.Var(&c.ask, "ask", "ask rule (repeatable)")
	}
	if withState {
		c.fs.StringVar(&c.statePath, "state", "", "agent state file, loaded and saved (read cache, tasks, groups, rules)")
	}
	return c
}

func (c *common) parse(args []string) error {
	if err := c.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &exitError{code: 0}
		}
		return &exitError{code: 2}
	}
	return nil
}

// setup is what a command needs: the project root, the config, the toolkit,
// the agent state, and the persisted permission context.
type setup struct {
	root      string
	cfg       *config
	tk        *tool.Toolkit
	st        *tool.State
	persisted *permission.Context
}

func (c *common) setup() (*setup, error) {
	s := &setup{root: c.cwd}
	if s.root == "" {
		s.root, _ = os.Getwd()
	}
	abs, err := filepath.Abs(s.root)
	if err != nil {
		return nil, usageErr("--cwd: %v", err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, usageErr("--cwd %s: not a directory", s.root)
	}
	s.root = abs
	if s.cfg, err = loadConfig(c.configPath); err != nil {
		return nil, err
	}
	if s.tk, err = tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: s.root})}); err != nil {
		return nil, err
	}
	s.st = tool.NewState(nil)
	if c.statePath != "" {
		b, err := os.ReadFile(c.statePath)
		switch {
		case err == nil:
			if err := json.Unmarshal(b, s.st); err != nil {
				return nil, usageErr("--state %s: %v", c.statePath, err)
			}
		case !errors.Is(err, os.ErrNotExist):
			return nil, usageErr("--state: %v", err)
		}
	}
	s.persisted = s.st.Permissions()
	pc, err := s.cfg.context(s.persisted, c.mode, c.allow, c.deny, c.ask)
	if err != nil {
		return nil, err
	}
	s.st.SetPermissions(pc)
	return s, nil
}

// save writes the state back, with the persisted permission context plus any
// rule the user added with "always" (flags and config are not persisted).
func (s *setup) save(path string, added []permission.Rule) error {
	if path == "" {
		return nil
	}
	pc := s.persisted.Clone()
	for _, r := range added {
		pc.AddRule(r)
	}
	s.st.SetPermissions(pc)
	b, err := json.MarshalIndent(s.st, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("saving the state: %w", err)
	}
	return os.Rename(tmp, path)
}

func runTools(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newFlags("tools", stderr, false, true)
	format := c.fs.String("format", "openai", "schema format: openai, anthropic or mcp")
	if err := c.parse(args); err != nil {
		return err
	}
	if c.fs.NArg() > 0 {
		return usageErr("tools takes no arguments")
	}
	s, err := c.setup()
	if err != nil {
		return err
	}
	schemas, err := s.tk.Schemas(ctx, s.st.ActiveGroups(), tool.Format(*format))
	if err != nil {
		return usageErr("%v", err)
	}
	b, _ := json.MarshalIndent(schemas, "", "  ")
	fmt.Fprintln(stdout, string(b))
	return nil
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

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newFlags("check", stderr, true, true)
	toolName := c.fs.String("tool", "", "tool name (with --input)")
	input := c.fs.String("input", "", "tool input as JSON (with --tool)")
	if err := c.parse(args); err != nil {
		return err
	}
	rest := c.fs.Args()
	switch {
	case *toolName != "" && len(rest) > 0:
		return usageErr("check takes either --tool and --input, or -- 'SHELL COMMAND', not both")
	case *toolName == "" && len(rest) == 0:
		return usageErr("check needs --tool NAME --input JSON, or -- 'SHELL COMMAND'")
	case *toolName == "":
		b, _ := json.Marshal(map[string]string{"command": strings.Join(rest, " ")})
		*toolName, *input = "Bash", string(b)
	}
	s, err := c.setup()
	if err != nil {
		return err
	}
	v, err := s.tk.Check(ctx, &tool.Call{Name: *toolName, Input: json.RawMessage(*input), State: s.st})
	if err != nil {
		return usageErr("%v", err)
	}
	d := v.Decision
	out := checkOutput{Behavior: d.Behavior, ReadOnly: v.ReadOnly, BypassImmune: d.BypassImmune && d.Behavior == permission.Ask,
		Message: d.Message, Reason: d.Reason, Suggestions: []string{}}
	if b, ok := v.Tool.(*builtin.Bash); ok {
		// Name the simple command and the shell layer even when a rule, the
		// read-only fast path or the mode fallback decided.
		var in struct{ Command string }
		json.Unmarshal([]byte(*input), &in)
		if a := b.Analyze(in.Command, s.st, s.st.Permissions()); a.Reason != "" && !strings.Contains(out.Reason, a.Reason) {
			out.Reason += "; shell analysis (" + a.Layer + "): " + a.Reason
		}
	}
	for _, r := range d.Suggestions {
		out.Suggestions = append(out.Suggestions, r.String())
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func runCall(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c := newFlags("call", stderr, true, true)
	yes := c.fs.Bool("yes", false, "approve a call that needs approval (without asking)")
	asJSON := c.fs.Bool("json", false, "print the whole result as JSON")
	if err := c.parse(args); err != nil {
		return err
	}
	if c.fs.NArg() < 1 || c.fs.NArg() > 2 {
		return usageErr("call needs TOOL and its input as JSON, e.g. toolscope call Read '{\"file_path\":\"/etc/hostname\"}'")
	}
	name, input := c.fs.Arg(0), "{}"
	if c.fs.NArg() == 2 {
		input = c.fs.Arg(1)
	}
	s, err := c.setup()
	if err != nil {
		return err
	}
	call := &tool.Call{ID: "cli", Name: name, Input: json.RawMessage(input), State: s.st}
	var added []permission.Rule
	r, err := s.tk.Call(ctx, call)
	if err == nil && r.Status == tool.StatusAsking {
		approve, always := *yes, false
		if !approve {
			if !isTerminal(stdin) {
				printResult(stdout, r, *asJSON)
				s.save(c.statePath, nil)
				return &exitError{code: 3, msg: fmt.Sprintf("%s needs approval (%s); no terminal to ask: pass --yes or an --allow rule", name, r.Decision.Message)}
			}
			approve, always = prompt(stdin, stderr, name, input, r.Decision)
		}
		if approve {
			if always {
				added = r.Decision.Suggestions
				for _, rule := range added {
					s.st.AddRule(rule)
				}
			}
			call.Approved = true
			r, err = s.tk.Call(ctx, call)
		} else {
			r.Status = tool.StatusDenied
			r.Content = []tool.Block{tool.TextBlock("The user denied the call.")}
		}
	}
	if serr := s.save(c.statePath, added); serr != nil && err == nil {
		err = serr
	}
	printResult(stdout, r, *asJSON)
	if err != nil {
		return err
	}
	switch r.Status {
	case tool.StatusSuccess:
		return nil
	case tool.StatusDenied, tool.StatusAsking:
		return &exitError{code: 3}
	}
	return &exitError{code: 1}
}

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

// prompt asks the user at the terminal: y, N (the default) or always.
func prompt(stdin io.Reader, stderr io.Writer, name, input string, d *permission.Decision) (approve, always bool) {
	fmt.Fprintf(stderr, "%s wants to run: %s\n%s", name, input, d.Message)
	if d.Reason != "" {
		fmt.Fprintf(stderr, " (%s)", d.Reason)
	}
	var sugg []string
	for _, r := range d.Suggestions {
		sugg = append(sugg, r.String())
	}
	if len(sugg) > 0 {
		fmt.Fprintf(stderr, "\nAllow? [y/N/always: adds %s] ", strings.Join(sugg, ", "))
	} else {
		fmt.Fprint(stderr, "\nAllow? [y/N] ")
	}
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, false
	case "a", "always":
		return true, true
	}
	return false, false
}
