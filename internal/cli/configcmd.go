package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/toolscope/toolscope/permission"
)

// configOutput is what `toolscope config --json` prints.
type configOutput struct {
	Files       []string       `json:"files"`
	Mode        string         `json:"mode"`
	WorkingDirs []string       `json:"working_dirs"`
	Rules       []configRule   `json:"rules"`
	MCPServers  []configServer `json:"mcp_servers"`
	Hooks       []configHook   `json:"hooks"`
	Sandbox     *configSandbox `json:"sandbox,omitempty"`
	Ignored     []string       `json:"ignored_keys"`
	Warnings    []string       `json:"warnings"`
}

type configRule struct {
	Behavior permission.Behavior `json:"behavior"`
	Rule     string              `json:"rule"`
	Origin   string              `json:"origin"`
}

type configHook struct {
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command,omitempty"`
	Prompt  string `json:"prompt,omitempty"`
	Origin  string `json:"origin"`
}

// configSandbox is the OS sandbox the settings (or --sandbox) set up.
type configSandbox struct {
	Enabled bool     `json:"enabled"`
	Origins []string `json:"origins"`
}

type configServer struct {
	Name   string `json:"name"`
	Origin string `json:"origin"`
}

// runConfig is `toolscope config`: the effective settings, with where
// every rule and server comes from, like git config --show-origin.
func runConfig(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newFlags("config", stdout, true)
	asJSON := c.fs.Bool("json", false, "print JSON")
	if err := c.parse(args); err != nil {
		return err
	}
	if len(c.args) > 0 {
		return usageErr("config takes no arguments, got %q", c.args[0])
	}
	var warn bytes.Buffer
	s, err := c.setup(ctx, &warn, false)
	if err != nil {
		return err
	}
	defer s.close()
	out := configOutput{Mode: string(s.effective.Mode), WorkingDirs: append([]string{s.Root}, s.effective.WorkingDirs...),
		Files: []string{}, Rules: []configRule{}, MCPServers: []configServer{}, Hooks: []configHook{}, Ignored: []string{}, Warnings: []string{}}
	for _, h := range s.Settings.Hooks() {
		out.Hooks = append(out.Hooks, configHook{Event: h.Event, Matcher: h.Matcher, Type: h.Type, Command: h.Command, Prompt: h.Prompt, Origin: h.Origin})
	}
	out.Files = append(out.Files, s.Settings.Files()...)
	out.Ignored = append(out.Ignored, s.Settings.IgnoredKeys()...)
	if origins := s.Settings.KeyOrigins("sandbox"); len(origins) > 0 || c.sandbox {
		if c.sandbox {
			origins = append(origins, "--sandbox")
		}
		_, on, err := s.Settings.Sandbox()
		if err != nil {
			out.Warnings = append(out.Warnings, "sandbox: "+err.Error())
		}
		out.Sandbox = &configSandbox{Enabled: on, Origins: origins}
	}
	for _, l := range []struct {
		b     permission.Behavior
		rules []permission.Rule
	}{{permission.Deny, s.effective.Deny}, {permission.Ask, s.effective.Ask}, {permission.Allow, s.effective.Allow}} {
		for _, r := range l.rules {
			origin := r.Source
			switch origin {
			case "cli":
				origin = "--" + string(l.b)
			case "":
				origin = "--state " + c.statePath
			}
			out.Rules = append(out.Rules, configRule{Behavior: l.b, Rule: r.String(), Origin: origin})
		}
	}
	for _, sv := range s.Settings.Servers() {
		out.MCPServers = append(out.MCPServers, configServer{Name: sv.Name, Origin: sv.Origin})
	}
	for _, l := range strings.Split(strings.TrimSpace(warn.String()), "\n") {
		if l != "" {
			out.Warnings = append(out.Warnings, strings.TrimPrefix(l, "toolscope: warning: "))
		}
	}
	if *asJSON {
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return nil
	}
	fmt.Fprintf(stdout, "mode\t%s\n", out.Mode)
	for _, f := range out.Files {
		fmt.Fprintf(stdout, "file\t%s\n", f)
	}
	for _, d := range out.WorkingDirs {
		fmt.Fprintf(stdout, "dir\t%s\n", d)
	}
	for _, r := range out.Rules {
		fmt.Fprintf(stdout, "%s\t%s\t%s\n", r.Behavior, r.Rule, r.Origin)
	}
	for _, sv := range out.MCPServers {
		fmt.Fprintf(stdout, "mcp\t%s\t%s\n", sv.Name, sv.Origin)
	}
	for _, h := range out.Hooks {
		what := h.Command
		if h.Type == "prompt" {
			what = "prompt " + strconv.Quote(h.Prompt) // one line, whatever it holds
		}
		fmt.Fprintf(stdout, "hook\t%s\t%s\t%s\t%s\n", h.Event, cmp.Or(h.Matcher, "*"), what, h.Origin)
	}
	if sb := out.Sandbox; sb != nil {
		state := "on for Bash"
		if !sb.Enabled {
			state = "configured, off for Bash (MCP servers marked \"sandbox\" use it)"
		}
		fmt.Fprintf(stdout, "sandbox\t%s\t%s\n", state, strings.Join(sb.Origins, ", "))
	}
	for _, k := range out.Ignored {
		fmt.Fprintf(stdout, "ignored\t%s\n", k)
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(stdout, "warning\t%s\n", w)
	}
	return nil
}
