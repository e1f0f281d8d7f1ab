package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/toolscope/toolscope/permission"
)

// config is the --config file: the JSON shape Claude Desktop and Claude Code
// write ("mcpServers", "permissions"), plus "skills".
type config struct {
	MCPServers  map[string]json.RawMessage `json:"mcpServers,omitempty"`
	Permissions struct {
		Allow       []string `json:"allow,omitempty"`
		Deny        []string `json:"deny,omitempty"`
		Ask         []string `json:"ask,omitempty"`
		DefaultMode string   `json:"defaultMode,omitempty"`
		// AdditionalDirectories are further working directories.
		AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	} `json:"permissions"`
	Skills []string `json:"skills,omitempty"`
}

func loadConfig(path string) (*config, error) {
	c := &config{}
	if path == "" {
		return c, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErr("reading the config: %v", err)
	}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, usageErr("config %s: %v", path, err)
	}
	return c, nil
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
	m, err := permission.ParseMode(s)
	if err != nil {
		return "", usageErr("%v", err)
	}
	return m, nil
}

// rules parses rule strings and gives them a behavior and source.
func rules(list []string, b permission.Behavior, source string) ([]permission.Rule, error) {
	var out []permission.Rule
	for _, s := range list {
		r, err := permission.ParseRule(s)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		r.Behavior, r.Source = b, source
		out = append(out, r)
	}
	return out, nil
}

// context builds the permission context of one invocation: the persisted one
// (from --state), the config's rules and mode, then the flags'.
func (c *config) context(base *permission.Context, mode string, allow, deny, ask []string) (*permission.Context, error) {
	pc := base.Clone()
	if c.Permissions.DefaultMode != "" {
		m, err := parseMode(c.Permissions.DefaultMode)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		pc.Mode = m
	}
	if mode != "" {
		m, err := parseMode(mode)
		if err != nil {
			return nil, err
		}
		pc.Mode = m
	}
	pc.WorkingDirs = append(pc.WorkingDirs, c.Permissions.AdditionalDirectories...)
	for _, set := range []struct {
		list   []string
		b      permission.Behavior
		source string
	}{
		{c.Permissions.Allow, permission.Allow, "config"}, {c.Permissions.Deny, permission.Deny, "config"}, {c.Permissions.Ask, permission.Ask, "config"},
		{allow, permission.Allow, "cli"}, {deny, permission.Deny, "cli"}, {ask, permission.Ask, "cli"},
	} {
		rs, err := rules(set.list, set.b, set.source)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			pc.AddRule(r)
		}
	}
	return pc, nil
}
