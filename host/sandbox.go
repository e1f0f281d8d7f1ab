package host

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/sandbox"
)

// sandboxConfig is the "sandbox" key of a settings file, in the spirit of
// Claude Code's: whether Bash runs in the OS sandbox, and what it may do
// there.
type sandboxConfig struct {
	Enabled  *bool `json:"enabled"`
	Required bool  `json:"required"`
	// AllowWrite, DenyRead and AllowRead are paths: absolute, ~/..., or
	// relative to the project root. AllowRead widens what a command may
	// read in the home directory (sandbox.DefaultHomeReads).
	AllowWrite []string `json:"allowWrite"`
	DenyRead   []string `json:"denyRead"`
	AllowRead  []string `json:"allowRead"`
	// Network is "off" (the default) or "on"; a list of hosts is refused
	// (an allow-list through a proxy is not built yet); Claude Code's
	// object form means off.
	Network                  json.RawMessage `json:"network"`
	ExcludedCommands         []string        `json:"excludedCommands"`
	AutoAllowBashIfSandboxed *bool           `json:"autoAllowBashIfSandboxed"`
	AllowUnixSockets         bool            `json:"allowUnixSockets"`
}

// network returns "off", "on" or an error for the "network" value.
func (sc *sandboxConfig) network() (string, error) {
	raw := strings.TrimSpace(string(sc.Network))
	if raw == "" || raw == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(sc.Network, &s) == nil {
		if s != "off" && s != "on" {
			return "", fmt.Errorf("sandbox.network: %q: use \"off\" or \"on\"", s)
		}
		return s, nil
	}
	if strings.HasPrefix(raw, "[") {
		return "", fmt.Errorf("sandbox.network: allow-lists of hosts are not supported yet; use \"off\" (no network) or \"on\"")
	}
	if strings.HasPrefix(raw, "{") {
		return "off", nil // Claude Code's object: its hosts come from WebFetch rules, which toolscope does not proxy
	}
	return "", fmt.Errorf("sandbox.network: use \"off\" or \"on\"")
}

// untrustedSandbox keeps what only restricts of an untrusted project's
// sandbox settings: turning the sandbox on, requiring it, more secret
// paths, the network off.
func untrustedSandbox(sc *sandboxConfig) (dropped bool) {
	if sc == nil {
		return false
	}
	if sc.Enabled != nil && !*sc.Enabled {
		sc.Enabled, dropped = nil, true
	}
	if len(sc.AllowWrite)+len(sc.AllowRead)+len(sc.ExcludedCommands) > 0 || sc.AllowUnixSockets || sc.AutoAllowBashIfSandboxed != nil {
		dropped = true
	}
	sc.AllowWrite, sc.AllowRead, sc.ExcludedCommands, sc.AllowUnixSockets = nil, nil, nil, false
	// A project that turns the sandbox on does not make commands run
	// without asking: that is the user's call.
	f := false
	sc.AutoAllowBashIfSandboxed = &f
	if n, err := sc.network(); err != nil || n == "on" {
		sc.Network, dropped = nil, true
	}
	return dropped
}

// sandboxSettings merges the files' "sandbox" keys (later files win for
// single values; lists add up; any file can require it) and applies
// --sandbox. It returns nil when the sandbox is off.
func (m *config) sandboxSettings(root string, flagOn bool) (*sandboxConfig, string, error) {
	out := &sandboxConfig{}
	network := ""
	for _, f := range m.files {
		sc := f.Sandbox
		if sc == nil {
			continue
		}
		if sc.Enabled != nil {
			out.Enabled = sc.Enabled
		}
		out.Required = out.Required || sc.Required
		out.AllowWrite = append(out.AllowWrite, resolvePaths(root, sc.AllowWrite)...)
		out.DenyRead = append(out.DenyRead, resolvePaths(root, sc.DenyRead)...)
		out.AllowRead = append(out.AllowRead, resolvePaths(root, sc.AllowRead)...)
		out.ExcludedCommands = append(out.ExcludedCommands, sc.ExcludedCommands...)
		if sc.AutoAllowBashIfSandboxed != nil {
			out.AutoAllowBashIfSandboxed = sc.AutoAllowBashIfSandboxed
		}
		out.AllowUnixSockets = out.AllowUnixSockets || sc.AllowUnixSockets
		n, err := sc.network()
		if err != nil {
			return nil, "", errorf("%s: %v", f.label(), err)
		}
		if n != "" {
			network = n
		}
	}
	if flagOn {
		t := true
		out.Enabled = &t
	}
	if out.Enabled == nil || !*out.Enabled {
		if out.Required {
			return nil, "", errorf("settings: sandbox.required is set but the sandbox is not enabled; set \"enabled\": true or pass --sandbox")
		}
		return nil, "", nil
	}
	return out, network, nil
}

func resolvePaths(root string, ps []string) []string {
	out := make([]string, 0, len(ps))
	home, _ := os.UserHomeDir()
	for _, p := range ps {
		switch {
		case p == "~":
			p = home
		case strings.HasPrefix(p, "~/"):
			p = filepath.Join(home, p[2:])
		case !filepath.IsAbs(p):
			p = filepath.Join(root, p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// sandbox is the sandbox the settings describe, enabled or not: the one
// Bash runs in when it is enabled, and MCP servers marked "sandbox" always.
// It is made once, so a command probes the machine once.
func (m *config) sandbox(root string) (*sandbox.Sandbox, *sandboxConfig, error) {
	if m.sb == nil {
		sc, network, err := m.sandboxSettings(root, true)
		if err != nil {
			return nil, nil, err
		}
		sb, err := sandbox.New(&sandbox.Config{Required: sc.Required, AllowWrite: sc.AllowWrite, DenyRead: sc.DenyRead,
			AllowRead: sc.AllowRead, ProtectedPaths: m.protect,
			Network: network, AllowUnixSockets: sc.AllowUnixSockets})
		if err != nil {
			return nil, nil, errorf("settings: %v", err)
		}
		m.sb, m.sbConfig = sb, sc
	}
	return m.sb, m.sbConfig, nil
}

// builtinSandbox fills the sandbox fields of the built-in tools' options
// when the sandbox is enabled (by the settings or flagOn).
func (m *config) builtinSandbox(root string, flagOn bool, opts *builtin.Options) error {
	on, _, err := m.sandboxSettings(root, flagOn)
	if err != nil || on == nil {
		return err
	}
	sb, sc, err := m.sandbox(root)
	if err != nil {
		return err
	}
	opts.Sandbox = sb
	opts.ExcludedCommands = sc.ExcludedCommands
	opts.NoSandboxAutoAllow = sc.AutoAllowBashIfSandboxed != nil && !*sc.AutoAllowBashIfSandboxed
	return nil
}
