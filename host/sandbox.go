package host

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	// Network is "off" (the default), "on", or Claude Code's object,
	// {"allowedDomains": ["registry.npmjs.org", "*.example.com"],
	// "deniedDomains": [...]}: only those hosts, through the sandbox's
	// proxy (sandbox.Config.AllowedDomains); see mergeNetwork for several
	// files. An object without allowedDomains leaves the network off; its
	// other keys (allowUnixSockets,
	// httpProxyPort, ...) are ignored, which only restricts.
	Network                  json.RawMessage `json:"network"`
	ExcludedCommands         []string        `json:"excludedCommands"`
	AutoAllowBashIfSandboxed *bool           `json:"autoAllowBashIfSandboxed"`
	AllowUnixSockets         bool            `json:"allowUnixSockets"`
}

// networkSetting is one file's "network" value: mode "" (not set),
// "off", "on" or "list" (allowed), with the denied domains of its object.
type networkSetting struct {
	mode            string
	allowed, denied []string
}

const networkHelp = `use "off", "on", or {"allowedDomains": ["registry.npmjs.org", "*.example.com"]}`

// network parses the "network" value; a bad domain pattern is an error
// that names it.
func (sc *sandboxConfig) network() (networkSetting, error) {
	raw := strings.TrimSpace(string(sc.Network))
	if raw == "" || raw == "null" {
		return networkSetting{}, nil
	}
	var s string
	if json.Unmarshal(sc.Network, &s) == nil {
		if s != "off" && s != "on" {
			return networkSetting{}, fmt.Errorf("sandbox.network: %q: %s", s, networkHelp)
		}
		return networkSetting{mode: s}, nil
	}
	if !strings.HasPrefix(raw, "{") {
		return networkSetting{}, fmt.Errorf("sandbox.network: %s", networkHelp)
	}
	var obj struct {
		AllowedDomains []string `json:"allowedDomains"`
		DeniedDomains  []string `json:"deniedDomains"`
	}
	if err := json.Unmarshal(sc.Network, &obj); err != nil {
		return networkSetting{}, fmt.Errorf("sandbox.network: %v (allowedDomains and deniedDomains are lists of strings)", err)
	}
	// Checked here, so the error names the file.
	if _, err := sandbox.New(&sandbox.Config{AllowedDomains: obj.AllowedDomains, DeniedDomains: obj.DeniedDomains}); err != nil {
		return networkSetting{}, fmt.Errorf("sandbox.network: %v", strings.TrimPrefix(err.Error(), "sandbox: "))
	}
	// Without allowed domains the object leaves the mode as it was (off
	// by default).
	n := networkSetting{denied: obj.DeniedDomains}
	if len(obj.AllowedDomains) > 0 {
		n.mode, n.allowed = "list", obj.AllowedDomains
	}
	return n, nil
}

// mergeNetwork combines the network so far (cur) with a file's (n). In
// a trusted file, "off" and "on" replace what was before, and a list of
// allowed domains replaces "off" or "on" or adds to the list before (as
// Claude Code merges lists across its settings files). An untrusted
// project's may only narrow: "off" always applies, "on" never, and a list
// applies where the network was "on" (then the list) or a list (the hosts
// both allow, sandbox.IntersectDomains; none left is "off"); over "off"
// it is ignored. Denied domains add up from every file.
func mergeNetwork(cur, n networkSetting, untrusted bool) (networkSetting, error) {
	denied := slices.Concat(cur.denied, n.denied)
	switch {
	case n.mode == "":
	case n.mode == "off":
		cur.mode, cur.allowed = "off", nil
	case n.mode == "on":
		if !untrusted {
			cur.mode, cur.allowed = "on", nil
		}
	case !untrusted && cur.mode == "list":
		cur.allowed = slices.Concat(cur.allowed, n.allowed)
	case !untrusted, cur.mode == "on":
		cur.mode, cur.allowed = "list", n.allowed
	case cur.mode == "list":
		both, err := sandbox.IntersectDomains(cur.allowed, n.allowed)
		if err != nil {
			return cur, err
		}
		cur.allowed = both
		if len(both) == 0 {
			cur.mode, cur.allowed = "off", nil
		}
	}
	cur.denied = denied
	return cur, nil
}

// untrustedSandbox keeps what only restricts of an untrusted project's
// sandbox settings: turning the sandbox on, requiring it, more secret
// paths, the network off, denied domains, and allowed domains as a
// narrowing of the user's (see mergeNetwork).
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
	if n, err := sc.network(); err != nil || n.mode == "on" {
		sc.Network, dropped = nil, true
	}
	return dropped
}

// sandboxSettings merges the files' "sandbox" keys (later files win for
// single values; lists add up; any file can require it) and applies
// --sandbox. It returns nil when the sandbox is off.
func (m *config) sandboxSettings(root string, flagOn bool) (*sandboxConfig, networkSetting, error) {
	out := &sandboxConfig{}
	var network networkSetting
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
		if err == nil {
			network, err = mergeNetwork(network, n, f.untrustedProject)
		}
		if err != nil {
			return nil, networkSetting{}, errorf("%s: %v", f.label(), err)
		}
	}
	if flagOn {
		t := true
		out.Enabled = &t
	}
	if out.Enabled == nil || !*out.Enabled {
		if out.Required {
			return nil, networkSetting{}, errorf("settings: sandbox.required is set but the sandbox is not enabled; set \"enabled\": true or pass --sandbox")
		}
		return nil, networkSetting{}, nil
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
		mode := network.mode
		if mode == "list" {
			mode = "off" // and the list: only those hosts, through the proxy
		}
		sb, err := sandbox.New(&sandbox.Config{Required: sc.Required, AllowWrite: sc.AllowWrite, DenyRead: sc.DenyRead,
			AllowRead: sc.AllowRead, ProtectedPaths: m.protect,
			Network: mode, AllowedDomains: network.allowed, DeniedDomains: network.denied, AllowUnixSockets: sc.AllowUnixSockets})
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
