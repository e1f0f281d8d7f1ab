package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/sandbox"
	"github.com/toolscope/toolscope/tool"
)

// Options say which workspace to open and how. The nil *Options is the
// working directory with its settings, as the toolscope command opens it
// without flags. Each field mirrors one of the command's flags, and
// messages name them by the flag.
type Options struct {
	// Dir is the project root (--cwd); "" is the working directory.
	Dir string
	// Settings is one more settings file (--config), read over Claude
	// Code's hierarchy; it must exist.
	Settings string
	// NoClaudeSettings leaves out Claude Code's settings files and the
	// project's .mcp.json (--no-claude-settings).
	NoClaudeSettings bool
	// TrustProject trusts the project's own settings, as accepting Claude
	// Code's trust dialog does (--trust-project): until then a cloned
	// repository's .claude/settings.json cannot allow anything, start a
	// server, run a hook or relax the sandbox.
	TrustProject bool
	// Sandbox runs Bash in the OS sandbox whatever the settings say
	// (--sandbox).
	Sandbox bool
	// Protect are more files of the caller's own that no tool may write
	// unasked and the sandbox keeps read-only: a state file, a run file.
	// The settings files read are protected always. A relative path is
	// relative to the working directory, as the file is opened.
	Protect []string
	// Asker answers the calls that need approval (see
	// tool.ToolkitOptions.Asker); nil: such calls come back asking.
	Asker tool.Asker
	// Elicitor answers the questions the MCP servers ask the user in the
	// middle of a call (elicitation). Nil: the Asker, when it is an
	// mcp.Elicitor too; else the servers are told that the user cannot be
	// asked (the clients declare no elicitation).
	Elicitor mcp.Elicitor
	// NoHooks loads the settings' hooks but runs none of them: for
	// toolscope hook, which the agent that runs those hooks runs as one of
	// them (it would otherwise run itself).
	NoHooks bool
	// HookModel makes the model that the settings' prompt hooks ("type":
	// "prompt") ask: name is the hook's "model", "" when it names none
	// (the caller's default). Nil: there is no model, and prompt hooks
	// cannot run: a PreToolUse one denies the calls it matches (a guard
	// that cannot judge never lets a call pass), the others are skipped
	// with a warning. toolscope run and chat give theirs.
	HookModel func(name string) (agent.Model, error)
	// Background offers background shells (Bash's run_in_background,
	// BashOutput, KillShell): for a caller that keeps its agent's State
	// for the whole conversation in this process and calls State.Close
	// when the agent ends, which kills the shells (serve's sessions, run,
	// chat). A state saved to a file between processes cannot hold one.
	Background bool
	// NoServers starts no MCP server: the workspace has no MCP tools (a
	// judgment of an MCP call goes by the rules that name it).
	NoServers bool
	// Middleware wraps every call of the Toolkit, outside the hooks' own
	// (tracing.Tracer.Middleware records each call as a span).
	Middleware []tool.Middleware
	// Warnings receives the warnings, one line each ("toolscope: warning:
	// ..."): a rule skipped, a project not trusted, a server that did not
	// start, a hook that failed. nil discards them; Settings.Warnings keeps
	// those of loading either way.
	Warnings io.Writer
}

// Error is a workspace that cannot be opened as its options and files
// say: a settings file that is missing or malformed, a state or run file
// that is not one or was changed outside toolscope, a server described
// wrongly. Nothing ran and no file was written; the message names the file
// and what to do. (The toolscope command exits 2 on it.)
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// Settings are a workspace's settings merged from every file, lowest
// precedence first: the user's ~/.claude/settings.json, the project's
// .claude/settings.json and .claude/settings.local.json, the servers of
// its .mcp.json that the user enabled, then Options.Settings. Each rule,
// server and hook keeps where it came from.
type Settings struct {
	// Root is the project root, absolute.
	Root string
	cfg  *config
	opts Options
	warn *warnings
}

// Warnings are the warnings so far (the first 100): loading the files,
// the rules of Permissions, servers that did not start, hooks that
// failed; without the "toolscope: warning: " of the lines written to
// Options.Warnings.
func (s *Settings) Warnings() []string {
	s.warn.mu.Lock()
	defer s.warn.mu.Unlock()
	return slices.Clone(s.warn.list)
}

// LoadSettings reads the settings of the workspace opts describe. A
// malformed rule or an unknown mode is a warning (the rest loads); a file
// that cannot be read or parsed, or is of the wrong shape, is an [*Error].
func LoadSettings(opts *Options) (*Settings, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	root, err := projectRoot(o.Dir)
	if err != nil {
		return nil, err
	}
	s := &Settings{Root: root, opts: o}
	s.warn = &warnings{out: o.Warnings}
	// A toolscope killed while a sandboxed command or server ran left the
	// sandbox's placeholders (an empty, unreadable .claude among them) in
	// the project: remove them before reading the settings they hide.
	if sb, err := sandbox.New(nil); err == nil {
		sb.Sweep()
	}
	if s.cfg, err = loadSettings(root, o.Settings, !o.NoClaudeSettings, o.TrustProject, s.warn); err != nil {
		return nil, err
	}
	// toolscope's own files (the state or run file, the settings files)
	// grant permissions or start processes: no tool writes them unasked,
	// wherever they are, and the sandbox keeps them read-only.
	s.cfg.protect = s.ownFiles()
	return s, nil
}

// projectRoot is dir, else the working directory, absolute; it must be a
// directory.
func projectRoot(dir string) (string, error) {
	root := dir
	if root == "" {
		root, _ = os.Getwd()
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", errorf("--cwd %s: %v", root, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", errorf("--cwd %s: not a directory", root)
	}
	return abs, nil
}

// ownFiles returns the absolute paths of toolscope's own files: the ones
// of Options.Protect and the settings files read.
func (s *Settings) ownFiles() []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		if a, err := filepath.Abs(p); err == nil && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	for _, p := range s.opts.Protect {
		add(p)
	}
	add(s.cfg.path)
	for _, f := range s.cfg.files {
		add(f.path)
	}
	return out
}

// Permissions returns base with the settings' modes, working directories
// and rules added: the last file that sets a mode wins (an untrusted
// project's only where it is stricter), the rules of every file apply,
// each with its origin as Source ("--config cfg.json:
// permissions.allow[0]"). known are the tool names whose rules need no
// warning besides Claude Code's and MCP's. A malformed rule is skipped
// with a warning, said the first time only.
func (s *Settings) Permissions(base *permission.Context, known []string) *permission.Context {
	return s.cfg.permissions(base, known, s.warn.once())
}

// Files names the settings files read, lowest precedence first.
func (s *Settings) Files() []string {
	var out []string
	for _, f := range s.cfg.files {
		out = append(out, f.label())
	}
	return out
}

// IgnoredKeys are the settings' top-level keys toolscope does not use,
// each after its file ("FILE: KEY"), sorted.
func (s *Settings) IgnoredKeys() []string {
	var out []string
	for _, f := range s.cfg.files {
		for _, k := range f.keys {
			if !slices.Contains(knownKeys, k) {
				out = append(out, f.label()+": "+k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// knownKeys are the top-level keys toolscope uses.
var knownKeys = []string{"permissions", "hooks", "mcpServers", "allowedTools", "enableAllProjectMcpServers",
	"enabledMcpjsonServers", "disabledMcpjsonServers", "groups", "skills", "sandbox"}

// KeyOrigins names the settings files that set the top-level key, lowest
// precedence first (the sandbox's, for toolscope config).
func (s *Settings) KeyOrigins(key string) []string {
	var out []string
	for _, f := range s.cfg.files {
		if slices.Contains(f.keys, key) {
			out = append(out, f.label())
		}
	}
	return out
}

// Hook is one hook of the settings: a command, or a prompt for a model.
type Hook struct {
	Event   string // PreToolUse, PostToolUse, UserPromptSubmit, Stop, ...
	Matcher string // the tools it matches (a regular expression); "" every tool
	Type    string // "command" or "prompt"
	Command string // type "command": what runs
	Prompt  string // type "prompt": what the model is asked
	Model   string // type "prompt": the model it names; "" none
	Origin  string // the file and place that configures it
}

// Hooks are the settings' command and prompt hooks, in the order they run.
func (s *Settings) Hooks() []Hook {
	var out []Hook
	for _, h := range s.cfg.hooks {
		m := ""
		if h.matcher != nil {
			m = strings.TrimSuffix(strings.TrimPrefix(h.matcher.String(), "^(?:"), ")$")
		}
		typ := "command"
		if h.isPrompt() {
			typ = "prompt"
		}
		out = append(out, Hook{Event: h.event, Matcher: m, Type: typ, Command: h.command, Prompt: h.prompt, Model: h.model, Origin: h.origin})
	}
	return out
}

// Server is one MCP server of the settings.
type Server struct {
	Name   string
	Origin string // the file and key that configures it
}

// Servers are the settings' MCP servers that are not disabled, by name.
func (s *Settings) Servers() []Server {
	var out []Server
	for _, name := range slices.Sorted(maps.Keys(s.cfg.MCPServers)) {
		if s.cfg.MCPServers[name].Disabled {
			continue
		}
		out = append(out, Server{Name: name, Origin: s.cfg.mcpFrom[name]})
	}
	return out
}

// Sandbox returns the OS sandbox the settings describe (made once) and
// whether it is enabled for Bash (by the settings or Options.Sandbox).
func (s *Settings) Sandbox() (sb *sandbox.Sandbox, enabled bool, err error) {
	on, _, err := s.cfg.sandboxSettings(s.Root, s.opts.Sandbox)
	if err != nil {
		return nil, false, err
	}
	sb, _, err = s.cfg.sandbox(s.Root)
	return sb, on != nil, err
}

// Workspace is an opened project: its settings and the Toolkit they
// describe, with the built-in tools, the MCP servers (started the first
// time their tools are listed), skills, groups, hooks and sandbox.
type Workspace struct {
	// Root is the project root, absolute.
	Root string
	// Toolkit runs the workspace's tools.
	Toolkit *tool.Toolkit
	// Settings are the workspace's settings.
	Settings *Settings

	builtins []tool.Tool
	servers  []*lazyServer
	hooks    *hooks
}

// Open opens the workspace opts describe and builds its Toolkit. No
// server starts and no hook runs until a call needs it. Close it to stop
// the servers it started. The error is an [*Error] when the options or
// the settings are wrong.
func Open(ctx context.Context, opts *Options) (*Workspace, error) {
	s, err := LoadSettings(opts)
	if err != nil {
		return nil, err
	}
	w := &Workspace{Root: s.Root, Settings: s}
	elicitor := s.opts.Elicitor
	if e, ok := s.opts.Asker.(mcp.Elicitor); ok && elicitor == nil {
		elicitor = e
	}
	clients, err := s.cfg.mcpClients(s.Root, elicitor)
	if err != nil {
		return nil, err
	}
	if s.opts.NoServers {
		clients = nil
	}
	var (
		basic     []tool.Source
		resources []mcp.ResourceServer
	)
	grouped := map[string]tool.Source{}
	for _, cl := range clients {
		l := &lazyServer{c: cl, warn: s.warn}
		w.servers = append(w.servers, l)
		if s.cfg.MCPServers[cl.Name()].Group != "" {
			grouped[cl.Name()] = l
		} else {
			basic = append(basic, l)
			resources = append(resources, l)
		}
	}
	if len(resources) > 0 {
		// After the servers: listing their tools connects them, and then
		// they tell whether they have resources.
		basic = append(basic, mcp.ResourceTools(resources))
	}
	groups, err := s.cfg.groups(grouped, s.warn)
	if err != nil {
		return nil, err
	}
	bopts := &builtin.Options{Root: s.Root, ProtectedPaths: s.cfg.protect, Background: s.opts.Background}
	if err := s.cfg.builtinSandbox(s.Root, s.opts.Sandbox, bopts); err != nil {
		return nil, err
	}
	w.builtins = builtin.All(bopts)
	w.builtins = append(w.builtins, webTools()...)
	topts := &tool.ToolkitOptions{Tools: w.builtins, Sources: basic, Skills: s.cfg.skillSources(s.cfg.Skills, s.warn), Groups: groups, Asker: s.opts.Asker}
	if len(s.cfg.hooks) > 0 && !s.opts.NoHooks {
		w.hooks = &hooks{list: s.cfg.hooks, root: s.Root, session: fmt.Sprintf("toolscope-%d", os.Getpid()), warn: s.warn,
			warnOnce: s.warn.once(), model: s.opts.HookModel}
		topts.PermissionHook = w.hooks.permissionHook
		if len(w.hooks.matching("PermissionRequest", "")) > 0 {
			// Before the user is asked, the PermissionRequest hooks may answer.
			topts.Asker = hookAsker{w.hooks, s.opts.Asker}
		}
		topts.Middleware = []tool.Middleware{w.hooks.postToolUse}
	}
	topts.Middleware = append(slices.Clone(s.opts.Middleware), topts.Middleware...)
	if w.Toolkit, err = tool.NewToolkit(topts); err != nil {
		return nil, errorf("settings: %v", err)
	}
	return w, nil
}

// ToolNames are the names that rules for the workspace's built-in tools
// use (reset_tools too); rules for MCP tools name mcp__SERVER__TOOL.
func (w *Workspace) ToolNames() []string {
	known := []string{"reset_tools"}
	if len(w.servers) > 0 {
		known = append(known, mcp.ListResourcesTool, mcp.ReadResourceTool)
	}
	for _, t := range w.builtins {
		known = append(known, t.Info().Name)
		known = append(known, t.Info().RuleNames...)
	}
	return known
}

// Permissions returns base with the settings' modes, working directories
// and rules added (see [Settings.Permissions]).
func (w *Workspace) Permissions(base *permission.Context) *permission.Context {
	return w.Settings.Permissions(base, w.ToolNames())
}

// PromptHook returns the workspace's UserPromptSubmit hooks as an agent's
// PromptHook (agent.Agent.PromptHook), or nil when it has none.
func (w *Workspace) PromptHook() func(ctx context.Context, input string) (string, error) {
	if w.hooks == nil || len(w.hooks.matching("UserPromptSubmit", "")) == 0 {
		return nil
	}
	return w.hooks.promptHook
}

// SessionStart runs the workspace's SessionStart hooks as a conversation
// starts (source "startup") or goes on from its file ("resume"), and
// returns what they add to the model's context ("" for nothing).
func (w *Workspace) SessionStart(ctx context.Context, source string) string {
	if w.hooks == nil {
		return ""
	}
	return w.hooks.sessionStart(ctx, source)
}

// SessionEnd runs the workspace's SessionEnd hooks as a conversation ends
// (reason: Claude Code's "prompt_input_exit", "other", ...).
func (w *Workspace) SessionEnd(ctx context.Context, reason string) {
	if w.hooks != nil {
		w.hooks.event(ctx, "SessionEnd", reason, map[string]any{"reason": reason})
	}
}

// PreCompact returns the workspace's PreCompact hooks as a function to
// run before a conversation is compacted (trigger "auto": a durable run
// whose transcript outgrew its budget; toolscope compacts nothing else),
// or nil when it has none. They are told, not asked: as in Claude Code,
// they cannot stop the compaction.
func (w *Workspace) PreCompact() func(ctx context.Context, trigger string) {
	if w.hooks == nil || len(w.hooks.matching("PreCompact", "")) == 0 {
		return nil
	}
	return func(ctx context.Context, trigger string) {
		w.hooks.event(ctx, "PreCompact", trigger, map[string]any{"trigger": trigger, "custom_instructions": ""})
	}
}

// Notify runs the workspace's Notification hooks: toolscope is waiting
// for its user (kind "permission_prompt": a call needs approval).
func (w *Workspace) Notify(ctx context.Context, kind, message string) {
	if w.hooks != nil {
		w.hooks.event(ctx, "Notification", kind, map[string]any{"message": message, "notification_type": kind})
	}
}

// StopHook returns the workspace's Stop hooks as an agent's StopHook
// (agent.Agent.StopHook), or nil when it has none.
func (w *Workspace) StopHook() func(ctx context.Context, r *agent.Run, answer string) string {
	if w.hooks == nil || len(w.hooks.matching("Stop", "")) == 0 {
		return nil
	}
	return w.hooks.stopHook()
}

// Unavailable returns, for a tool name that was not found, why: the MCP
// server that would have it could not start. It returns nil for any other
// name, or when the server runs.
func (w *Workspace) Unavailable(name string, err error) error {
	for _, l := range w.servers {
		if l.err != nil && errors.Is(err, tool.ErrToolNotFound) && strings.HasPrefix(name, "mcp__"+l.c.Name()+"__") {
			return fmt.Errorf("%s: MCP server %q is unavailable: %v", name, l.c.Name(), l.err)
		}
	}
	return nil
}

// Prompts lists the prompts of the workspace's MCP servers that offer
// any, connecting the servers not yet connected. A server that cannot be
// reached, or fails to list, is left out; its error is in errs.
func (w *Workspace) Prompts(ctx context.Context) (prompts []mcp.Prompt, errs []error) {
	for _, l := range w.servers {
		if !l.connect(ctx) {
			continue // said on the warnings
		}
		if !l.c.OffersPrompts() {
			continue
		}
		ps, err := l.c.Prompts(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		prompts = append(prompts, ps...)
	}
	return prompts, errs
}

// GetPrompt fills in the prompt name of the MCP server server with args.
func (w *Workspace) GetPrompt(ctx context.Context, server, name string, args map[string]string) ([]mcp.PromptMessage, error) {
	for _, l := range w.servers {
		if l.c.Name() != server {
			continue
		}
		if !l.connect(ctx) {
			return nil, l.unavailable()
		}
		return l.c.GetPrompt(ctx, name, args)
	}
	return nil, fmt.Errorf("there is no MCP server named %q", server)
}

// Close stops the MCP servers the workspace started.
func (w *Workspace) Close() {
	for _, l := range w.servers {
		l.close()
	}
}

// warnings writes each warning line to out (when set) and keeps the first
// maxWarnings, without their prefix, in list. Servers and hooks warn from
// concurrent calls.
type warnings struct {
	mu   sync.Mutex
	out  io.Writer
	list []string
	// seen are the lines written through once.
	seen map[string]bool
}

// maxWarnings bounds the warnings a long-running workspace keeps.
const maxWarnings = 100

func (w *warnings) Write(p []byte) (int, error) {
	w.write(p, false)
	return len(p), nil
}

// once is a writer of warnings that are said the first time only: the
// settings' rules are read again for every call of a server, and say what
// is wrong with them once.
func (w *warnings) once() io.Writer { return onceWriter{w} }

type onceWriter struct{ w *warnings }

func (o onceWriter) Write(p []byte) (int, error) {
	o.w.write(p, true)
	return len(p), nil
}

func (w *warnings) write(p []byte, once bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		if l == "" || once && w.seen[l] {
			continue
		}
		if once {
			if w.seen == nil {
				w.seen = map[string]bool{}
			}
			w.seen[l] = true
		}
		if len(w.list) < maxWarnings {
			w.list = append(w.list, strings.TrimPrefix(l, "toolscope: warning: "))
		}
		if w.out != nil {
			fmt.Fprintln(w.out, l)
		}
	}
}
