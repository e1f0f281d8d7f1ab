package host_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/host"
)

// TestSandboxNetworkSettings: sandbox.network takes "off", "on" and
// Claude Code's object with allowedDomains; an untrusted project's
// setting may only narrow the user's.
func TestSandboxNetworkSettings(t *testing.T) {
	for _, c := range []struct {
		name          string
		user, project string // the "network" values; "" for none
		trust         bool
		mode          string
		allowed       []string
		denied        []string
		err           string
	}{
		{name: "default", mode: ""},
		{name: "list", user: `{"allowedDomains": ["registry.npmjs.org", "*.Example.com"]}`, mode: "", allowed: []string{"registry.npmjs.org", "*.Example.com"}},
		{name: "empty object is off", user: `{"allowedDomains": [], "allowUnixSockets": ["/x"]}`, mode: ""},
		{name: "lists add up", user: `{"allowedDomains": ["a.com"]}`, project: `{"allowedDomains": ["b.com"]}`, trust: true, allowed: []string{"a.com", "b.com"}},
		{name: "trusted off over list", user: `{"allowedDomains": ["a.com"]}`, project: `"off"`, trust: true, mode: "off"},
		{name: "on", user: `"on"`, mode: "on"},
		{name: "bad pattern", user: `{"allowedDomains": ["*"]}`, err: `settings.json: sandbox.network: allowedDomains: domain pattern "*"`},
		{name: "bad denied", user: `{"allowedDomains": ["a.com"], "deniedDomains": ["https://b.com"]}`, err: `deniedDomains: domain pattern "https://b.com"`},
		{name: "bare list", user: `["a.com"]`, err: `use "off", "on", or {"allowedDomains"`},
		{name: "bad type", user: `{"allowedDomains": "a.com"}`, err: "lists of strings"},
		{name: "bad word", user: `"some"`, err: `"some": use "off", "on", or`},
		// An untrusted project cannot widen.
		{name: "untrusted list over off", project: `{"allowedDomains": ["evil.com"]}`, mode: ""},
		{name: "untrusted list over on", user: `"on"`, project: `{"allowedDomains": ["a.com"]}`, allowed: []string{"a.com"}},
		{name: "untrusted list over list", user: `{"allowedDomains": ["*.npmjs.org", "b.com"]}`, project: `{"allowedDomains": ["registry.npmjs.org", "evil.com"]}`, allowed: []string{"registry.npmjs.org"}},
		{name: "untrusted disjoint list", user: `{"allowedDomains": ["b.com"]}`, project: `{"allowedDomains": ["evil.com"]}`, mode: "off"},
		{name: "untrusted on", user: `{"allowedDomains": ["b.com"]}`, project: `"on"`, allowed: []string{"b.com"}},
		{name: "untrusted off", user: `{"allowedDomains": ["b.com"]}`, project: `"off"`, mode: "off"},
		{name: "untrusted denied", user: `{"allowedDomains": ["*.b.com"], "deniedDomains": ["x.b.com"]}`, project: `{"deniedDomains": ["y.b.com"]}`, allowed: []string{"*.b.com"}, denied: []string{"x.b.com", "y.b.com"}},
		// A trusted project decides.
		{name: "trusted list over off", user: `"off"`, project: `{"allowedDomains": ["a.com"]}`, trust: true, mode: "", allowed: []string{"a.com"}},
		{name: "trusted on over list", user: `{"allowedDomains": ["b.com"]}`, project: `"on"`, trust: true, mode: "on"},
	} {
		t.Run(c.name, func(t *testing.T) {
			home, dir := t.TempDir(), t.TempDir()
			t.Setenv("HOME", home)
			if c.user != "" {
				writeFile(t, home, ".claude/settings.json", `{"sandbox": {"enabled": true, "network": `+c.user+`}}`)
			}
			if c.project != "" {
				writeFile(t, dir, ".claude/settings.json", `{"sandbox": {"network": `+c.project+`}}`)
			}
			s, err := host.LoadSettings(&host.Options{Dir: dir, TrustProject: c.trust})
			if err == nil {
				_, _, err = s.Sandbox()
			}
			if c.err != "" || err != nil {
				if c.err == "" || err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			sb, _, _ := s.Sandbox()
			cfg := sb.Config()
			if cfg.Network != c.mode && !(c.mode == "" && cfg.Network == "off") || !slices.Equal(cfg.AllowedDomains, c.allowed) || !slices.Equal(cfg.DeniedDomains, c.denied) {
				t.Errorf("network %q, allowed %q, denied %q; want %q %q %q", cfg.Network, cfg.AllowedDomains, cfg.DeniedDomains, c.mode, c.allowed, c.denied)
			}
		})
	}
}
