package shell

import (
	"strings"
	"testing"
)

// TestGrants: what allows each simple command of a compound, part by part:
// read-only, the mode (accept_edits' filesystem commands inside the
// working directories), or an allow rule; and what keeps a part from
// being allowed by what allowed it alone.
func TestGrants(t *testing.T) {
	p := newProject(t)
	for _, tc := range []struct {
		mode  string
		cmd   string
		rules []string
		want  string // per part: r (read-only), m (mode), R (rule), + (after rules); "" when not allowed
		cwd   string
	}{
		{"accept_edits", "npm run build && touch build/.stamp", []string{"npm run:*"}, "R m+", ""},
		{"accept_edits", "touch build/.stamp && npm run build", []string{"npm run:*"}, "m R", ""},
		{"accept_edits", "ls && touch build/x", nil, "r m", ""},
		{"accept_edits", "npm run build && ls && touch build/x", []string{"npm run:*"}, "R r+ m+", ""},
		{"default", "npm run build && touch build/.stamp", []string{"npm run:*"}, "", ""},
		{"default", "npm run build && touch build/.stamp", []string{"npm run:*", "touch:*"}, "R R", ""},
		{"accept_edits", "npm run build && curl x", []string{"npm run:*"}, "", ""},
		{"accept_edits", "npm run build && cd " + "/etc && touch passwd", []string{"npm run:*"}, "", ""},
		// A checkout is trusted to check out, not to choose what a later
		// command's paths lead to: a read or an edit after it needs a rule.
		{"accept_edits", "git checkout x && touch build/y", []string{"git checkout:*"}, "", ""},
		{"accept_edits", "git checkout x && touch build/y", []string{"git checkout:*", "touch:*"}, "R R", ""},
		{"default", "git checkout x && cat a", []string{"git checkout:*"}, "", ""},
		{"default", "make && cat a", []string{"make:*"}, "R r+", ""},
		{"accept_edits", "mv build b2 && touch b2/x", nil, "", ""},
		{"accept_edits", "./build.sh && touch build/x", []string{"./build.sh"}, "R m+", ""},
		{"accept_edits", "npm install --ignore-scripts && touch build/x", []string{"npm install:*"}, "", ""},
		// Globs that may become options.
		{"accept_edits", "touch ./--target-directory=.. && cp *.txt build", nil, "", ""},
		{"accept_edits", "mkdir -p out && cp *.txt out", nil, "m m", ""},
		{"accept_edits", "touch ./--pre=sh && rg x *", []string{"rg:*"}, "", "empty"},
		{"accept_edits", "touch ./--pre=sh && rg x *", []string{`rg x \*`}, "m R", "empty"},
		{"accept_edits", "touch ./a && rg x *", []string{"rg:*"}, "m R", "empty"},
	} {
		a := Analyze(tc.cmd, p.options(tableRow{Mode: tc.mode, Cwd: tc.cwd}))
		grants, ok := a.Grants(tc.rules)
		var got []string
		for _, g := range grants {
			s := map[string]string{LayerReadOnly: "r", LayerAcceptEdits: "m", LayerRule: "R"}[g.Layer]
			if g.AfterRules {
				s += "+"
			}
			got = append(got, s)
		}
		if !ok {
			got = nil
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s %q with %q: %q, want %q (%s)", tc.mode, tc.cmd, tc.rules, strings.Join(got, " "), tc.want, a.Reason)
		}
		if used, ok2 := a.AllowedBy(tc.rules); ok2 != ok || ok && len(used) > len(tc.rules) {
			t.Errorf("%q: AllowedBy %v %v disagrees with Grants", tc.cmd, used, ok2)
		}
	}
}
