package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolscope/toolscope/mcp"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/skill"
	"github.com/toolscope/toolscope/tool"
)

// config is the --config file: the "mcpServers" object that Claude Desktop,
// Claude Code and Cursor write, the "permissions" of a Claude Code
// settings file, and toolscope's "groups". Other keys (env, hooks, ...)
// are ignored.
type config struct {
	path       string
	MCPServers map[string]serverConfig `json:"mcpServers"`
	// Groups are tool groups the model switches on with reset_tools; a
	// server joins one with its "group" key.
	Groups map[string]groupConfig `json:"groups"`
	// Skills are directories of Agent Skills, always available.
	Skills      []string `json:"skills"`
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
	// Timeout bounds each call, in seconds (0: none).
	Timeout      float64  `json:"timeout"`
	Stateless    bool     `json:"stateless"`
	EnableTools  []string `json:"enableTools"`
	DisableTools []string `json:"disableTools"`
	// Disabled leaves the server out, as Cursor and Cline write it.
	Disabled bool `json:"disabled"`
	// Group puts the server's tools in a group of "groups" (default: always
	// available).
	Group string `json:"group"`
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
		if !filepath.IsAbs(d) && !strings.HasPrefix(d, "~") && c.path != "" {
			d = filepath.Join(filepath.Dir(c.path), d)
		}
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
			return nil, usageErr("--config %s: groups.%s: a group needs a \"description\" (the model reads it to decide whether to switch the group on)", c.path, name)
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
			return nil, usageErr("--config %s: mcpServers.%s: group %q is not among \"groups\"", c.path, name, sc.Group)
		}
		g.Sources = append(g.Sources, sources[name])
	}
	return out, nil
}

// mcpClients makes a client for every server of the config (not yet
// connected), in name order. A server described wrongly is a usage error
// naming the file, the server and the problem.
func (c *config) mcpClients() ([]*mcp.Client, error) {
	names := slices.Sorted(maps.Keys(c.MCPServers))
	var out []*mcp.Client
	for _, name := range names {
		sc := c.MCPServers[name]
		if sc.Disabled {
			continue
		}
		where := fmt.Sprintf("--config %s: mcpServers.%s", c.path, name)
		srv := mcp.ServerConfig{Command: sc.Command, Args: sc.Args, Env: sc.Env, Dir: sc.Cwd, URL: sc.URL, Headers: sc.Headers}
		switch sc.Type {
		case "", "stdio":
			if sc.Type == "stdio" && sc.Command == "" {
				return nil, usageErr("%s: a stdio server needs \"command\"", where)
			}
		case "http", "streamable-http", "streamableHttp":
			srv.Transport = "http"
		case "sse":
			srv.Transport = "sse"
		default:
			return nil, usageErr("%s: unknown \"type\" %q (want stdio, http or sse)", where, sc.Type)
		}
		if srv.Transport != "" && sc.URL == "" {
			return nil, usageErr("%s: a server of type %s needs \"url\"", where, sc.Type)
		}
		if sc.Timeout < 0 {
			return nil, usageErr("%s: \"timeout\" must be a number of seconds, not %v", where, sc.Timeout)
		}
		cl, err := mcp.NewClient(name, srv, &mcp.ClientOptions{
			Stateless: sc.Stateless, EnableTools: sc.EnableTools, DisableTools: sc.DisableTools,
			CallTimeout: time.Duration(sc.Timeout * float64(time.Second)),
		})
		if err != nil {
			return nil, usageErr("%s: %s", where, strings.TrimPrefix(err.Error(), "mcp: "))
		}
		out = append(out, cl)
	}
	return out, nil
}

// loadConfig reads the --config file. Every failure is a usage error naming
// the file and, for a value of the wrong type, the field.
func loadConfig(path string) (*config, error) {
	c := &config{path: path}
	if path == "" {
		return c, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErr("--config %s: cannot read it: %v", path, pathErr(err))
	}
	if err := tool.DecodeInput(b, c); err != nil {
		var ie *tool.InputError
		if errors.As(err, &ie) && slices.Contains([]string{"permissions.allow", "permissions.deny", "permissions.ask"}, ie.Field) {
			ie.Want = `an array of rules such as ["Bash(git log:*)", "Read(src/**)"]`
		}
		return nil, usageErr("--config %s: %s", path, describe(err))
	}
	return c, nil
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

// claudeModes maps Claude Code's mode names to ours.
var claudeModes = map[string]permission.Mode{
	"acceptEdits":       permission.AcceptEdits,
	"bypassPermissions": permission.Bypass,
	"plan":              permission.Explore,
	"dontAsk":           permission.DontAsk,
}

func parseMode(s string) (permission.Mode, error) {
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

// ruleSet turns rule strings into rules of one behavior.
type ruleSet struct {
	where  string // "config cfg.json: permissions.allow" or "--allow"
	raw    []json.RawMessage
	b      permission.Behavior
	source string
	strict bool // a malformed rule is an error (flags), not a warning (files)
}

// context builds the permission context of one invocation: the persisted one
// (from --state), then the config's mode and rules, then the flags'. A
// malformed rule in the config is reported on warn and skipped; one in a
// flag is a usage error. A rule for a tool that is neither among known nor
// one of Claude Code's gets a warning with the nearest name.
func (c *config) context(base *permission.Context, f *common, known []string, warn io.Writer) (*permission.Context, error) {
	pc := base.Clone()
	for _, m := range []struct{ key, val string }{{"defaultMode", c.Permissions.DefaultMode}, {"mode", c.Permissions.Mode}} {
		if m.val == "" {
			continue
		}
		mode, err := parseMode(m.val)
		if err != nil {
			return nil, usageErr("--config %s: permissions.%s: %v", c.path, m.key, err)
		}
		pc.Mode = mode
	}
	if f.mode != "" {
		m, err := parseMode(f.mode)
		if err != nil {
			return nil, usageErr("--mode: %v", err)
		}
		pc.Mode = m
	}
	pc.WorkingDirs = append(pc.WorkingDirs, c.Permissions.AdditionalDirectories...)
	pc.WorkingDirs = append(pc.WorkingDirs, c.Permissions.WorkingDirectories...)
	strs := func(l []string) []json.RawMessage {
		var out []json.RawMessage
		for _, s := range l {
			b, _ := json.Marshal(s)
			out = append(out, b)
		}
		return out
	}
	cfg := "--config " + c.path + ": permissions."
	for _, set := range []ruleSet{
		{cfg + "allow", c.Permissions.Allow, permission.Allow, "config", false},
		{cfg + "deny", c.Permissions.Deny, permission.Deny, "config", false},
		{cfg + "ask", c.Permissions.Ask, permission.Ask, "config", false},
		{"--allow", strs(f.allow), permission.Allow, "cli", true},
		{"--deny", strs(f.deny), permission.Deny, "cli", true},
		{"--ask", strs(f.ask), permission.Ask, "cli", true},
	} {
		for i, raw := range set.raw {
			where := fmt.Sprintf("%s[%d]", set.where, i)
			if set.strict {
				where = set.where
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				fmt.Fprintf(warn, "toolscope: warning: %s: a rule must be a string such as \"Bash(git log:*)\", not %s; skipped\n", where, raw)
				continue
			}
			r, err := permission.ParseRule(s)
			if err != nil {
				if set.strict {
					return nil, usageErr("%s: %v", where, err)
				}
				fmt.Fprintf(warn, "toolscope: warning: %s: %v; skipped\n", where, err)
				continue
			}
			if msg := unknownTool(r.Tool, known); msg != "" {
				fmt.Fprintf(warn, "toolscope: warning: %s: rule %q: %s\n", where, s, msg)
			}
			r.Behavior, r.Source = set.b, set.source
			pc.AddRule(r)
		}
	}
	return pc, nil
}

// unknownTool says what is wrong with a rule's tool name, or "" when it names
// a registered tool, one of Claude Code's, or an MCP tool or server.
func unknownTool(name string, known []string) string {
	if slices.Contains(known, name) || slices.Contains(claudeTools, name) || strings.HasPrefix(name, "mcp__") {
		return ""
	}
	all := append(slices.Clone(known), claudeTools...)
	msg := fmt.Sprintf("no tool is named %q, so the rule applies to nothing", name)
	if near := nearest(name, all); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	return msg
}
