package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/toolscope/toolscope/internal/spell"
	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/sandbox"
	"github.com/toolscope/toolscope/skill"
	"github.com/toolscope/toolscope/tool"
)

// config is the --config file: the "mcpServers" object that Claude Desktop,
// Claude Code and Cursor write, the "permissions" of a Claude Code
// settings file, and toolscope's "groups". Other keys (env, hooks, ...)
// are ignored.
type config struct {
	path string
	// files are the settings files merged into this one, lowest
	// precedence first (the Claude Code hierarchy, then --config); empty
	// for a single file.
	files []*config
	// mcpFrom says where each merged server came from.
	mcpFrom map[string]string
	// claudeFile marks a file of Claude Code's hierarchy.
	claudeFile bool
	// untrustedProject marks a project's file while the folder is not
	// trusted: its mode applies only where it is stricter (see stricter).
	untrustedProject bool
	// hooks are the file's PreToolUse and PostToolUse hooks; hookEvents
	// the other events it configures, which are not run.
	hooks      []hook
	hookEvents []string
	// hooksSkipped are the file's hooks of types toolscope does not run
	// (warnings, one line each).
	hooksSkipped []string
	// keys are the file's top-level keys.
	keys []string
	// sb and sbConfig are the settings' sandbox, made once (see sandbox).
	sb       *sandbox.Sandbox
	sbConfig *sandboxConfig
	// protect are toolscope's own files, read-only in the sandbox.
	protect []string

	MCPServers map[string]serverConfig `json:"mcpServers"`
	// AllowedTools is Claude Code's legacy list of allow rules.
	AllowedTools []json.RawMessage `json:"allowedTools"`
	// Which servers of the project's .mcp.json run (Claude Code's keys).
	EnableAllProjectMcpServers *bool    `json:"enableAllProjectMcpServers"`
	EnabledMcpjsonServers      []string `json:"enabledMcpjsonServers"`
	DisabledMcpjsonServers     []string `json:"disabledMcpjsonServers"`
	// Groups are tool groups the model switches on with reset_tools; a
	// server joins one with its "group" key.
	Groups map[string]groupConfig `json:"groups"`
	// Skills are directories of Agent Skills, always available.
	Skills []string `json:"skills"`
	// Sandbox runs Bash in the OS sandbox (see sandboxConfig).
	Sandbox     *sandboxConfig `json:"sandbox"`
	Permissions struct {
		// Rules are kept raw so that one bad rule is skipped with a warning
		// instead of failing the whole file.
		Allow       []json.RawMessage `json:"allow"`
		Deny        []json.RawMessage `json:"deny"`
		Ask         []json.RawMessage `json:"ask"`
		DefaultMode string            `json:"defaultMode"`
		Mode        string            `json:"mode"` // toolscope's name for defaultMode
		// AdditionalDirectories are further working directories.
		AdditionalDirectories []string `json:"additionalDirectories"`
		WorkingDirectories    []string `json:"workingDirectories"` // toolscope's name for them
	} `json:"permissions"`
}

// serverConfig is one entry of "mcpServers": {"command","args","env"} for
// a stdio server, {"type":"http"|"sse","url","headers"} for a remote one,
// plus toolscope's own keys.
type serverConfig struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// Timeout bounds each call, in seconds: absent means
	// mcp.DefaultCallTimeout, 0 no bound.
	Timeout      *float64 `json:"timeout"`
	Stateless    bool     `json:"stateless"`
	EnableTools  []string `json:"enableTools"`
	DisableTools []string `json:"disableTools"`
	// Disabled leaves the server out, as Cursor and Cline write it.
	Disabled bool `json:"disabled"`
	// Group puts the server's tools in a group of "groups" (default: always
	// available).
	Group string `json:"group"`
	// Sandbox runs a stdio server in the OS sandbox (the "sandbox"
	// settings, whether or not Bash's is enabled), writable only beneath
	// the project root (and the sandbox's allowWrite).
	Sandbox bool `json:"sandbox"`
	// TrustHints lets the server's readOnlyHint make a tool read-only to
	// the permission engine (see mcp.ClientOptions.TrustHints).
	TrustHints bool `json:"trustHints"`
	// Protocol is the MCP revision to ask for: "auto" (the default:
	// 2026-07-28 when the server offers it, else 2025-11-25) or
	// "2025-11-25" (pinned; see mcp.ClientOptions.Protocol).
	Protocol string `json:"protocol"`
	// OAuth configures the login to a remote server (see oauthConfig).
	OAuth *oauthConfig `json:"oauth"`
}

// groupConfig is one entry of "groups".
type groupConfig struct {
	Description  string   `json:"description"`
	Instructions string   `json:"instructions"`
	Skills       []string `json:"skills"` // directories of the group's skills
}

// skillSources turns skill directories into loaders; a relative directory
// is relative to the config file's.
func (c *config) skillSources(dirs []string, warn io.Writer) []tool.SkillSource {
	var out []tool.SkillSource
	log := slog.New(slog.NewTextHandler(warn, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == slog.LevelKey {
			return slog.Attr{}
		}
		return a
	}}))
	for _, d := range dirs {
		out = append(out, skill.Local(d, &skill.Options{Logger: log}))
	}
	return out
}

// groups returns the config's tool groups, in name order, with the
// sources of the servers in each; sources maps a server's name to its
// source. A server naming a group that is not there is a usage error.
func (c *config) groups(sources map[string]tool.Source, warn io.Writer) ([]tool.Group, error) {
	byName := map[string]*tool.Group{}
	var out []tool.Group
	for _, name := range slices.Sorted(maps.Keys(c.Groups)) {
		g := c.Groups[name]
		if strings.TrimSpace(g.Description) == "" {
			return nil, errorf("--config %s: groups.%s: a group needs a \"description\" (the model reads it to decide whether to switch the group on)", c.path, name)
		}
		out = append(out, tool.Group{Name: name, Description: g.Description, Instructions: g.Instructions, Skills: c.skillSources(g.Skills, warn)})
	}
	for i := range out {
		byName[out[i].Name] = &out[i]
	}
	for _, name := range slices.Sorted(maps.Keys(c.MCPServers)) {
		sc := c.MCPServers[name]
		if sc.Group == "" || sources[name] == nil {
			continue
		}
		g := byName[sc.Group]
		if g == nil {
			return nil, errorf("--config %s: mcpServers.%s: group %q is not among \"groups\"", c.path, name, sc.Group)
		}
		g.Sources = append(g.Sources, sources[name])
	}
	return out, nil
}

// mcpClients makes a client for every server of the config (not yet
// connected), in name order. A server described wrongly is a usage error
// naming the file, the server and the problem.
func (c *config) mcpClients(root string, elicitor mcp.Elicitor) ([]*mcp.Client, error) {
	var elicit func(context.Context, mcp.ElicitRequest) (mcp.ElicitResponse, error)
	if elicitor != nil {
		elicit = elicitor.Elicit
	}
	names := slices.Sorted(maps.Keys(c.MCPServers))
	var out []*mcp.Client
	for _, name := range names {
		sc := c.MCPServers[name]
		if sc.Disabled {
			continue
		}
		where := c.mcpFrom[name]
		if where == "" {
			where = fmt.Sprintf("--config %s: mcpServers.%s", c.path, name)
		}
		srv := mcp.ServerConfig{Command: sc.Command, Args: sc.Args, Env: sc.Env, Dir: sc.Cwd, URL: sc.URL, Headers: sc.Headers}
		var err error
		if srv.OAuth, err = sc.oauth(name, where); err != nil {
			return nil, err
		}
		if sc.Sandbox {
			if sc.Command == "" {
				return nil, errorf("%s: \"sandbox\" applies to stdio servers (with \"command\") only", where)
			}
			sb, _, err := c.sandbox(root)
			if err != nil {
				return nil, err
			}
			srv.Sandbox, srv.SandboxDirs = sb, []string{root}
		}
		switch sc.Type {
		case "", "stdio":
			if sc.Type == "stdio" && sc.Command == "" {
				return nil, errorf("%s: a stdio server needs \"command\"", where)
			}
		case "http", "streamable-http", "streamableHttp":
			srv.Transport = "http"
		case "sse":
			srv.Transport = "sse"
		default:
			return nil, errorf("%s: unknown \"type\" %q (want stdio, http or sse)", where, sc.Type)
		}
		if srv.Transport != "" && sc.URL == "" {
			return nil, errorf("%s: a server of type %s needs \"url\"", where, sc.Type)
		}
		timeout := time.Duration(0) // the default
		if sc.Timeout != nil {
			if *sc.Timeout < 0 {
				return nil, errorf("%s: \"timeout\" must be a number of seconds, not %v", where, *sc.Timeout)
			}
			if timeout = time.Duration(*sc.Timeout * float64(time.Second)); timeout == 0 {
				timeout = mcp.NoTimeout
			}
		}
		cl, err := mcp.NewClient(name, srv, &mcp.ClientOptions{
			Stateless: sc.Stateless, EnableTools: sc.EnableTools, DisableTools: sc.DisableTools,
			CallTimeout: timeout, TrustHints: sc.TrustHints, Protocol: sc.Protocol, Elicit: elicit,
		})
		if err != nil {
			return nil, errorf("%s: %s", where, strings.TrimPrefix(err.Error(), "mcp: "))
		}
		out = append(out, cl)
	}
	return out, nil
}

// pathErr is the reason of a file system error, without the path the
// message names already.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// describe says what is wrong with a JSON file, from the error of
// tool.DecodeInput, without its words to the model.
func describe(err error) string {
	var ie *tool.InputError
	if !errors.As(err, &ie) {
		return err.Error()
	}
	switch {
	case ie.Want != "" && ie.Field != "":
		return fmt.Sprintf("field %q must be %s, not %s", ie.Field, ie.Want, ie.Got)
	case ie.Want != "":
		return fmt.Sprintf("the file must hold %s, not %s", ie.Want, ie.Got)
	case ie.Field != "":
		return fmt.Sprintf("field %q: %v", ie.Field, ie.Err)
	}
	return ie.Err.Error()
}

// stricter reports whether mode m allows nothing that mode than allows
// without asking, and asks about nothing that than denies: explore is
// stricter than every mode, default than accept_edits and bypass.
// dont_ask and default are not comparable (dont_ask allows edits in the
// project; default asks a human where dont_ask denies).
func stricter(m, than permission.Mode) bool {
	if than == "" {
		than = permission.Default
	}
	switch m {
	case than, permission.Explore:
		return true
	case permission.Default:
		return than == permission.AcceptEdits || than == permission.Bypass
	case permission.AcceptEdits:
		return than == permission.Bypass
	}
	return false
}

// claudeModes maps Claude Code's mode names to ours.
var claudeModes = map[string]permission.Mode{
	"acceptEdits":       permission.AcceptEdits,
	"bypassPermissions": permission.Bypass,
	"plan":              permission.Explore,
	"dontAsk":           permission.DontAsk,
}

// ParseMode parses a permission mode by toolscope's name (default,
// accept_edits, explore, bypass, dont_ask) or Claude Code's (acceptEdits,
// bypassPermissions, plan, dontAsk).
func ParseMode(s string) (permission.Mode, error) {
	if m, ok := claudeModes[s]; ok {
		return m, nil
	}
	if m, err := permission.ParseMode(s); err == nil {
		return m, nil
	}
	return "", fmt.Errorf("unknown permission mode %q (want default, accept_edits, explore, bypass or dont_ask, or Claude Code's acceptEdits, bypassPermissions, plan or dontAsk)", s)
}

// claudeTools are Claude Code's own tools. Rules for them load quietly even
// when toolscope has no such tool: a settings file shared with Claude Code
// names them, and they apply if a tool of that name is registered (an MCP or
// function tool).
var claudeTools = []string{"Agent", "Bash", "BashOutput", "Edit", "ExitPlanMode", "Glob", "Grep",
	"KillBash", "KillShell", "LS", "MultiEdit", "NotebookEdit", "NotebookRead", "Read", "SlashCommand",
	"Skill", "Task", "TodoRead", "TodoWrite", "WebFetch", "WebSearch", "Write"}

// permissions builds the permission context of the settings over base:
// the files' modes (the last file that sets one wins; an untrusted
// project's only where stricter), working directories and rules. A
// malformed rule is reported on warn and skipped. A rule for a tool that
// is neither among known nor one of Claude Code's gets a warning with the
// nearest name.
func (c *config) permissions(base *permission.Context, known []string, warn io.Writer) *permission.Context {
	pc := base.Clone()
	files := c.files
	if len(files) == 0 && c.path != "" {
		files = []*config{c}
	}
	for _, fc := range files {
		for _, m := range []struct{ key, val string }{{"defaultMode", fc.Permissions.DefaultMode}, {"mode", fc.Permissions.Mode}} {
			if m.val == "" {
				continue
			}
			mode, err := ParseMode(m.val)
			if err != nil {
				// Claude Code has modes toolscope does not ("auto"): the
				// file still loads, in the mode it would have without it.
				fmt.Fprintf(warn, "toolscope: warning: %s: permissions.%s: %v; ignored\n", fc.label(), m.key, err)
				continue
			}
			if fc.untrustedProject && !stricter(mode, pc.Mode) {
				fmt.Fprintf(warn, "toolscope: warning: %s: the project is not trusted, so its mode %s, less strict than the user's %s, is ignored; trust the folder in Claude Code, or pass --trust-project\n", fc.label(), m.val, pc.Mode)
				continue
			}
			pc.Mode = mode
		}
	}
	for _, fc := range files {
		pc.WorkingDirs = append(pc.WorkingDirs, fc.Permissions.AdditionalDirectories...)
		pc.WorkingDirs = append(pc.WorkingDirs, fc.Permissions.WorkingDirectories...)
	}
	for _, fc := range files {
		l := fc.label()
		for _, set := range []struct {
			where string
			raw   []json.RawMessage
			b     permission.Behavior
		}{
			{l + ": permissions.allow", fc.Permissions.Allow, permission.Allow},
			{l + ": allowedTools", fc.AllowedTools, permission.Allow},
			{l + ": permissions.deny", fc.Permissions.Deny, permission.Deny},
			{l + ": permissions.ask", fc.Permissions.Ask, permission.Ask},
		} {
			for i, raw := range set.raw {
				where := fmt.Sprintf("%s[%d]", set.where, i)
				var s string
				if err := json.Unmarshal(raw, &s); err != nil {
					fmt.Fprintf(warn, "toolscope: warning: %s: a rule must be a string such as \"Bash(git log:*)\", not %s; skipped\n", where, raw)
					continue
				}
				r, err := permission.ParseRule(s)
				if err != nil {
					fmt.Fprintf(warn, "toolscope: warning: %s: %v; skipped\n", where, err)
					continue
				}
				if msg := UnknownTool(r.Tool, known); msg != "" {
					fmt.Fprintf(warn, "toolscope: warning: %s: rule %q: %s\n", where, s, msg)
				}
				r.Behavior, r.Source = set.b, where
				pc.AddRule(r)
			}
		}
	}
	return pc
}

// UnknownTool says what is wrong with a rule's tool name, or "" when it
// names one of known, one of Claude Code's tools, or an MCP tool or server
// (mcp__...): "no tool is named "bash", so the rule applies to nothing (did
// you mean Bash?)".
func UnknownTool(name string, known []string) string {
	if slices.Contains(known, name) || slices.Contains(claudeTools, name) || strings.HasPrefix(name, "mcp__") {
		return ""
	}
	all := append(slices.Clone(known), claudeTools...)
	msg := fmt.Sprintf("no tool is named %q, so the rule applies to nothing", name)
	if near := spell.Nearest(name, all); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	return msg
}

// label names a settings file in messages: "--config PATH" for the one
// given on the command line, the path itself for the others.
func (c *config) label() string {
	if c.claudeFile {
		return c.path
	}
	return "--config " + c.path
}

// readSettings reads one settings file, in JSON with comments and trailing
// commas as Claude Code accepts them. A missing file is nil, nil unless it
// must exist.
func readSettings(path string, claudeFile, mustExist bool) (*config, error) {
	c := &config{path: path, claudeFile: claudeFile}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !mustExist {
		return nil, nil
	}
	if err != nil {
		return nil, errorf("%s: cannot read it: %v", c.label(), pathErr(err))
	}
	// A key spelled in another case than its field's ("Permissions"):
	// Claude Code reads keys as spelled, Go's decoder whatever their case,
	// so the two would apply different settings (a second "PERMISSIONS"
	// hiding the deny rules of "permissions" from one of them). Refused.
	if err := exactKeys(stripJSONC(b), reflect.TypeFor[config](), ""); err != nil {
		return nil, errorf("%s: %v", c.label(), err)
	}
	if err := tool.DecodeInput(stripJSONC(b), c); err != nil {
		var ie *tool.InputError
		if errors.As(err, &ie) && slices.Contains([]string{"permissions.allow", "permissions.deny", "permissions.ask", "allowedTools"}, ie.Field) {
			ie.Want = `an array of rules such as ["Bash(git log:*)", "Read(src/**)"]`
		}
		return nil, errorf("%s: %s", c.label(), describe(err))
	}
	// Hooks are not run yet: say so, loudly, rather than let a safety gate
	// (a PreToolUse hook that blocks something) silently do nothing.
	// The file's top-level keys (toolscope config lists those it does not
	// use) and its hooks, from the same text.
	var raw map[string]json.RawMessage
	json.Unmarshal(stripJSONC(b), &raw)
	c.keys = slices.Sorted(maps.Keys(raw))
	var hooksRaw map[string]json.RawMessage
	if json.Unmarshal(raw["hooks"], &hooksRaw) == nil && len(hooksRaw) > 0 {
		var other []string
		if c.hooks, other, c.hooksSkipped, err = parseHooks(hooksRaw, c.label()); err != nil {
			return nil, errorf("%v", err)
		}
		slices.Sort(other)
		c.hookEvents = other
	}
	// Skill directories are relative to the file that names them.
	dir := filepath.Dir(path)
	abs := func(ds []string) []string {
		out := slices.Clone(ds)
		for i, d := range out {
			if !filepath.IsAbs(d) && !strings.HasPrefix(d, "~") {
				out[i] = filepath.Join(dir, d)
			}
		}
		return out
	}
	c.Skills = abs(c.Skills)
	for name, g := range c.Groups {
		g.Skills = abs(g.Skills)
		c.Groups[name] = g
	}
	return c, nil
}

// loadSettings reads the settings of a command: Claude Code's hierarchy
// for the project at root (unless claude is false) — the user's
// ~/.claude/settings.json, the project's .claude/settings.json and
// .claude/settings.local.json, and the servers of its .mcp.json — then the
// --config file, each over the ones before. Rules of every file apply; the
// last file that sets a mode wins.
func loadSettings(root, configPath string, claude, trust bool, warn io.Writer) (*config, error) {
	var files []*config
	add := func(path string, claudeFile, mustExist bool) error {
		c, err := readSettings(path, claudeFile, mustExist)
		if c != nil {
			files = append(files, c)
		}
		return err
	}
	trusted := trust || claudeTrusted(root)
	if claude {
		if home, err := os.UserHomeDir(); err == nil {
			if err := add(filepath.Join(home, ".claude", "settings.json"), true, false); err != nil {
				return nil, err
			}
		}
		for _, f := range []string{"settings.json", "settings.local.json"} {
			if err := add(filepath.Join(root, ".claude", f), true, false); err != nil {
				return nil, err
			}
			if n := len(files); n > 0 && files[n-1].path == filepath.Join(root, ".claude", f) && !trusted {
				files[n-1].untrustedProject = true
				if dropped := files[n-1].untrusted(); len(dropped) > 0 {
					fmt.Fprintf(warn, "toolscope: warning: %s: the project is not trusted, so its %s are ignored (its deny and ask rules apply); trust the folder in Claude Code, or pass --trust-project\n", files[n-1].label(), strings.Join(dropped, ", "))
				}
			}
		}
	}
	if configPath != "" {
		if err := add(configPath, false, true); err != nil {
			return nil, err
		}
	}
	m := &config{path: configPath, files: files, MCPServers: map[string]serverConfig{}, Groups: map[string]groupConfig{}, mcpFrom: map[string]string{}}
	if len(files) > 0 {
		m.path = files[len(files)-1].path
	}
	for _, f := range files {
		if len(f.hookEvents) > 0 {
			fmt.Fprintf(warn, "toolscope: warning: %s: hooks of %s are not run by toolscope (PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart, SessionEnd and Notification are)\n", f.label(), strings.Join(f.hookEvents, ", "))
		}
		for _, s := range f.hooksSkipped {
			fmt.Fprintf(warn, "toolscope: warning: %s: %s\n", f.label(), s)
		}
		m.hooks = append(m.hooks, f.hooks...)
		for name, sc := range f.MCPServers {
			m.MCPServers[name] = sc
			m.mcpFrom[name] = f.label() + ": mcpServers." + name
		}
		for name, g := range f.Groups {
			m.Groups[name] = g
		}
		m.Skills = append(m.Skills, f.Skills...)
	}
	if claude {
		if err := m.addProjectServers(root, trusted, warn); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// addProjectServers adds the servers of the project's .mcp.json that the
// settings enable. Only the user's own files say which: ~/.claude/settings.json,
// .claude/settings.local.json (not committed) and --config. The committed
// .claude/settings.json cannot enable the servers of the repository it
// comes with: a cloned project would otherwise start programs of its
// choosing. Nor can any list enable them before the folder is trusted:
// enableAllProjectMcpServers in the user's settings is meant for the
// projects the user works on, not for every repository cloned to look at.
func (m *config) addProjectServers(root string, trusted bool, warn io.Writer) error {
	path := filepath.Join(root, ".mcp.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return errorf("%s: cannot read it: %v", path, pathErr(err))
	}
	var mj struct {
		MCPServers map[string]serverConfig `json:"mcpServers"`
	}
	if err := exactKeys(stripJSONC(b), reflect.TypeOf(mj), ""); err != nil {
		return errorf("%s: %v", path, err)
	}
	if err := tool.DecodeInput(stripJSONC(b), &mj); err != nil {
		return errorf("%s: %s", path, describe(err))
	}
	if !trusted {
		if len(mj.MCPServers) > 0 {
			fmt.Fprintf(warn, "toolscope: warning: %s: the project is not trusted, so its MCP servers %s do not start, whatever the settings enable; trust the folder in Claude Code, or pass --trust-project\n",
				path, strings.Join(slices.Sorted(maps.Keys(mj.MCPServers)), ", "))
		}
		return nil
	}
	all := false
	var enabled, disabled []string
	for _, f := range m.files {
		if f.claudeFile && f.path == filepath.Join(root, ".claude", "settings.json") {
			continue
		}
		// (An untrusted project's local file has had these keys removed.)
		if f.EnableAllProjectMcpServers != nil {
			all = *f.EnableAllProjectMcpServers
		}
		enabled = append(enabled, f.EnabledMcpjsonServers...)
		disabled = append(disabled, f.DisabledMcpjsonServers...)
	}
	var waiting []string
	for _, name := range slices.Sorted(maps.Keys(mj.MCPServers)) {
		switch {
		case slices.Contains(disabled, name):
		case all || slices.Contains(enabled, name):
			if _, set := m.MCPServers[name]; !set {
				m.MCPServers[name] = mj.MCPServers[name]
				m.mcpFrom[name] = path + ": mcpServers." + name
			}
		default:
			waiting = append(waiting, name)
		}
	}
	if len(waiting) > 0 {
		fmt.Fprintf(warn, "toolscope: warning: %s: the project's MCP servers %s are not enabled; enable them in ~/.claude/settings.json or .claude/settings.local.json with \"enabledMcpjsonServers\" (or \"enableAllProjectMcpServers\": true)\n", path, strings.Join(waiting, ", "))
	}
	return nil
}

// untrusted removes from a project's settings file what would widen what
// may happen or run code of the repository's choosing, keeping what only
// restricts (deny and ask rules, a stricter mode), and says what it
// removed. A repository can ship .claude/settings.json (and even a
// settings.local.json): until the user trusts the folder, its allow rules,
// hooks and servers must not apply.
func (c *config) untrusted() []string {
	var dropped []string
	drop := func(cond bool, what string) {
		if cond {
			dropped = append(dropped, what)
		}
	}
	drop(len(c.Permissions.Allow) > 0 || len(c.AllowedTools) > 0, "allow rules")
	c.Permissions.Allow, c.AllowedTools = nil, nil
	for _, m := range []*string{&c.Permissions.DefaultMode, &c.Permissions.Mode} {
		// Only modes that allow less than default stay: dont_ask, too,
		// allows edits inside the project without asking.
		if mode, err := ParseMode(*m); err == nil && mode != permission.Default && mode != permission.Explore {
			drop(true, "mode "+*m)
			*m = ""
		}
	}
	drop(len(c.Permissions.AdditionalDirectories)+len(c.Permissions.WorkingDirectories) > 0, "extra working directories")
	c.Permissions.AdditionalDirectories, c.Permissions.WorkingDirectories = nil, nil
	drop(len(c.hooks) > 0, "hooks")
	c.hooks = nil
	drop(len(c.MCPServers) > 0 || c.EnableAllProjectMcpServers != nil || len(c.EnabledMcpjsonServers) > 0, "MCP servers")
	c.MCPServers, c.EnableAllProjectMcpServers, c.EnabledMcpjsonServers = nil, nil, nil
	drop(len(c.Groups) > 0 || len(c.Skills) > 0, "groups and skills")
	c.Groups, c.Skills = nil, nil
	drop(untrustedSandbox(c.Sandbox), "sandbox relaxations")
	return dropped
}

// claudeTrusted reports whether the user accepted Claude Code's trust
// dialog for the project at root (~/.claude.json, projects.ROOT).
func claudeTrusted(root string) bool {
	home, err := os.UserHomeDir()
	if err != nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join(home, ".claude.json"))
	if err != nil {
		return false
	}
	var v struct {
		Projects map[string]struct {
			HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	if json.Unmarshal(b, &v) != nil {
		return false
	}
	for dir := root; ; dir = filepath.Dir(dir) {
		if p, ok := v.Projects[dir]; ok && p.HasTrustDialogAccepted {
			return true
		}
		if dir == filepath.Dir(dir) {
			return false
		}
	}
}

// exactKeys checks that every key of the JSON value b that names a field
// of the struct type t (at any depth) spells the field's name exactly: a
// key that matches one only in another case is an error naming both.
// Maps' keys are names (servers, variables) and are not checked; what
// does not parse is left for the decoder to report.
func exactKeys(b []byte, t reflect.Type, at string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return nil
		}
		fields := map[string]reflect.StructField{}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.IsExported() && name != "" && name != "-" {
				fields[name] = f
			}
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			f, ok := fields[k]
			if !ok {
				for name := range fields {
					if strings.EqualFold(name, k) {
						return fmt.Errorf("the key %q%s is %q in another case: Claude Code would not read it, toolscope's decoder would, so the two would apply different settings; write %q (the file is not used until then)", k, where(at), name, name)
					}
				}
				continue
			}
			if err := exactKeys(m[k], f.Type, at+"."+k); err != nil {
				return err
			}
		}
	case reflect.Map:
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return nil
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if err := exactKeys(m[k], t.Elem(), at+"."+k); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // json.RawMessage
			return nil
		}
		var a []json.RawMessage
		if json.Unmarshal(b, &a) != nil {
			return nil
		}
		for i, x := range a {
			if err := exactKeys(x, t.Elem(), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func where(at string) string {
	if at == "" {
		return ""
	}
	return " (in " + strings.TrimPrefix(at, ".") + ")"
}
