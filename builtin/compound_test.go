package builtin_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// compoundEnv is a project for compound commands: sources, a dist
// directory, a package.json; mode and rules as given ("Bash(x)" strings).
func compoundEnv(t testing.TB, mode permission.Mode, allow, deny, ask []string) *env {
	t.Helper()
	tt, ok := t.(*testing.T)
	if !ok {
		t.Fatal("compoundEnv needs a *testing.T")
	}
	e := newEnv(tt, mode, nil)
	e.write("src/a.txt", "a\n")
	e.write("package.json", "{}\n")
	if err := os.MkdirAll(e.path("dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	for b, list := range map[permission.Behavior][]string{permission.Allow: allow, permission.Deny: deny, permission.Ask: ask} {
		for _, s := range list {
			r, err := permission.ParseRule(s)
			if err != nil {
				t.Fatal(err)
			}
			r.Behavior = b
			e.st.AddRule(r)
		}
	}
	return e
}

func bashCheck(t *testing.T, e *env, cmd string) *tool.Verdict {
	t.Helper()
	return check(t, e, "Bash", map[string]any{"command": cmd})
}

// TestBashCompoundPerPart: a compound command is allowed when each part is
// allowed on its own, by whatever allows it: an allow rule, the read-only
// fast path, or the mode (accept_edits' filesystem commands inside the
// project). A part nothing allows asks; a deny rule on any part denies, an
// ask rule on any part asks; the reason names what allowed each part.
// What changes where a later part runs or what its paths lead to (cd, a
// link, a checkout, a file named like an option) keeps it asking.
func TestBashCompoundPerPart(t *testing.T) {
	const (
		A = permission.Allow
		D = permission.Deny
		K = permission.Ask
	)
	def, ae, da, ex, by := permission.Default, permission.AcceptEdits, permission.DontAsk, permission.Explore, permission.Bypass
	npm := []string{"Bash(npm run:*)"}
	for _, c := range []struct {
		mode            permission.Mode
		allow, deny, ak []string
		cmd             string
		want            permission.Behavior
		reason          []string // substrings of the decision's reason
	}{
		// rule + mode
		{mode: ae, allow: npm, cmd: "npm run build && touch dist/.stamp", want: A, reason: []string{
			`"npm run build" (rule Bash(npm run:*))`,
			`"touch dist/.stamp" (mode accept_edits: filesystem command with all targets in a working directory, after commands allowed by rules)`}},
		{mode: ae, allow: npm, cmd: "touch dist/.stamp && npm run build", want: A, reason: []string{
			`"touch dist/.stamp" (mode accept_edits: filesystem command with all targets in a working directory)`}},
		{mode: da, allow: npm, cmd: "npm run build && touch dist/.stamp", want: A, reason: []string{"(mode dont_ask: "}},
		{mode: def, allow: npm, cmd: "npm run build && touch dist/.stamp", want: K},
		{mode: ex, allow: npm, cmd: "npm run build && touch dist/.stamp", want: D},
		{mode: by, cmd: "npm run build && touch dist/.stamp", want: A},
		// rule + read-only
		{mode: def, allow: npm, cmd: "npm run build && ls", want: A, reason: []string{`"ls" (read-only, after commands allowed by rules)`}},
		{mode: def, allow: npm, cmd: "ls src && npm run build", want: A, reason: []string{`"ls src" (read-only)`, `"npm run build" (rule Bash(npm run:*))`}},
		{mode: ex, allow: npm, cmd: "ls src && npm run build", want: D},
		{mode: da, allow: npm, cmd: "npm run build | grep -v warn", want: A},
		// mode + read-only
		{mode: ae, cmd: "ls src && touch dist/x", want: A, reason: []string{`"ls src" (read-only)`, `"touch dist/x" (mode accept_edits`}},
		{mode: def, cmd: "ls src && touch dist/x", want: K},
		{mode: da, cmd: "ls src && touch dist/x", want: A},
		{mode: ex, cmd: "ls src && touch dist/x", want: D},
		// rule + rule
		{mode: def, allow: []string{"Bash(git add:*)", "Bash(git commit:*)"}, cmd: "git add . && git commit -m x", want: A,
			reason: []string{`"git add ." (rule Bash(git add:*))`, `"git commit -m x" (rule Bash(git commit:*))`}},
		{mode: ae, allow: []string{"Bash(npm run:*)", "Bash(make:*)"}, cmd: "make; npm run build; touch dist/x", want: A},
		// one part uncovered
		{mode: ae, allow: npm, cmd: "npm run build && curl https://example.com", want: K},
		{mode: da, allow: npm, cmd: "npm run build && curl https://example.com", want: D},
		{mode: ae, allow: npm, cmd: "npm run build && touch /etc/toolscope-x", want: K},
		{mode: ae, allow: npm, cmd: "npm run build; touch ../x", want: K},
		// deny / ask rules on one part
		{mode: ae, allow: npm, deny: []string{"Bash(touch:*)"}, cmd: "npm run build && touch dist/x", want: D},
		{mode: by, deny: []string{"Bash(touch:*)"}, cmd: "npm run build && touch dist/x", want: D},
		{mode: da, allow: npm, deny: []string{"Bash(npm run:*)"}, cmd: "npm run build && touch dist/x", want: D},
		{mode: ae, allow: npm, ak: []string{"Bash(touch:*)"}, cmd: "npm run build && touch dist/x", want: K},
		{mode: by, ak: []string{"Bash(touch:*)"}, cmd: "npm run build && touch dist/x", want: K},
		{mode: da, allow: npm, ak: []string{"Bash(touch:*)"}, cmd: "npm run build && touch dist/x", want: D},
		{mode: ae, allow: []string{"Bash(npm run:*)", "Bash(touch:*)"}, ak: []string{"Bash(npm run:*)"}, cmd: "npm run build && touch dist/x", want: K},
		// subshells, pipes, lists
		{mode: ae, allow: npm, cmd: "(npm run build; touch dist/x)", want: A},
		{mode: ae, allow: npm, cmd: "{ npm run build; touch dist/x; }", want: A},
		{mode: ae, allow: npm, cmd: "npm run build || touch dist/failed", want: A},
		{mode: ae, allow: npm, cmd: "npm run build 2>&1 | tail -3 && echo ok > dist/log", want: A},
		{mode: ae, allow: npm, cmd: "if npm run build; then touch dist/ok; fi", want: A},
		{mode: ae, allow: npm, cmd: "npm run build | tee dist/log", want: K},
		// redirections outside the project
		{mode: ae, allow: npm, cmd: "npm run build && echo done > ../log", want: K},
		{mode: ae, allow: npm, cmd: "npm run build > ../log && touch dist/x", want: K},
		{mode: ae, allow: npm, cmd: "npm run build && touch dist/x > /tmp/toolscope-x", want: K},
		// command substitution
		{mode: ae, allow: npm, cmd: "npm run build && touch dist/$(date +%s)", want: K},
		{mode: ae, allow: npm, cmd: "npm run build && touch $(echo /etc/x)", want: K},
		// where a part runs: cd, pushd
		{mode: ae, allow: npm, cmd: "npm run build && cd /etc && touch passwd", want: K},
		{mode: ae, allow: []string{"Bash(cd:*)"}, cmd: "cd /etc && touch passwd", want: K},
		{mode: ae, allow: npm, cmd: "npm run build && pushd /tmp && touch x", want: K},
		{mode: ae, allow: npm, cmd: "npm run build; cd -; touch x", want: K},
		{mode: ae, allow: npm, cmd: "npm run build && cd dist && touch x", want: A},
		// what a part's paths lead to: links, checkouts, moves
		{mode: ae, allow: []string{"Bash(ln:*)"}, cmd: "ln -s /etc dist/e && touch dist/e/x", want: K},
		{mode: ae, allow: []string{"Bash(cp:*)"}, cmd: "cp -s /etc dist/e && touch dist/e/x", want: K},
		{mode: ae, allow: []string{"Bash(git checkout:*)"}, cmd: "git checkout main && cp src/a.txt dist/b", want: K},
		{mode: def, allow: []string{"Bash(git checkout:*)"}, cmd: "git checkout main && cat dist/x", want: K},
		{mode: def, allow: []string{"Bash(hash:*)"}, cmd: "hash -p /tmp/evil ls; ls", want: K},
		{mode: ae, allow: npm, cmd: "npm run build && mv dist out && touch out/y", want: K},
		{mode: ae, allow: []string{"Bash(npm install:*)"}, cmd: "npm install --ignore-scripts && touch dist/x", want: K},
		// file names that become options
		{mode: ae, cmd: "cp *.json dist", want: A},
		{mode: ae, cmd: "touch ./--target-directory=.. && cp *.json dist", want: K},
		{mode: ae, cmd: "touch -- --target-directory=.. ; mv *.json dist", want: K},
		{mode: ae, allow: []string{"Bash(rg:*)"}, cmd: "touch ./--pre=sh && rg x *", want: K},
		// environment, exec, background, functions, aliases, eval
		{mode: ae, allow: npm, cmd: "npm run build && LD_PRELOAD=/tmp/x.so touch dist/x", want: K},
		{mode: ae, allow: npm, cmd: "PATH=/tmp/evil npm run build && touch dist/x", want: K},
		{mode: ae, allow: npm, cmd: "export PATH=./dist; npm run build && touch dist/x", want: K},
		{mode: ae, allow: npm, cmd: "npm run build && HOME=/etc touch ~/passwd", want: K},
		{mode: ae, allow: npm, cmd: "npm run build && exec touch dist/x", want: K},
		{mode: ae, allow: npm, cmd: "touch dist/x & npm run build", want: K},
		{mode: ae, allow: npm, cmd: "f() { touch /etc/x; }; npm run build && f", want: K},
		{mode: ae, allow: npm, cmd: "alias touch=rm; npm run build && touch dist/x", want: K},
		{mode: ae, allow: npm, cmd: "npm run build && eval 'touch /etc/x'", want: K},
		{mode: ae, allow: npm, cmd: "trap 'touch /etc/x' EXIT; npm run build && touch dist/x", want: K},
		{mode: ae, allow: npm, cmd: "npm run build --script-shell=/tmp/evil && touch dist/x", want: K},
		// bypass-immune parts stay immune
		{mode: ae, allow: []string{"Bash"}, cmd: "npm run build && rm -rf /", want: K},
		{mode: ae, allow: npm, cmd: "npm run build && touch .git/hooks/pre-commit", want: K},
		{mode: ae, allow: npm, cmd: "npm run build && echo x > .bashrc", want: K},
		{mode: da, allow: npm, cmd: "npm run build && rm -rf ~", want: D},
	} {
		t.Run(string(c.mode)+"/"+c.cmd, func(t *testing.T) {
			e := compoundEnv(t, c.mode, c.allow, c.deny, c.ak)
			v := bashCheck(t, e, c.cmd)
			if v.Decision.Behavior != c.want {
				t.Fatalf("%s (%s), want %s", v.Decision.Behavior, v.Decision.Reason, c.want)
			}
			for _, s := range c.reason {
				if !strings.Contains(v.Decision.Reason, s) {
					t.Errorf("reason %q lacks %q", v.Decision.Reason, s)
				}
			}
		})
	}
}

// TestBashCompoundSuggestions: "always" proposes rules only for the parts
// that still need one (not for what the mode or an existing rule allows),
// and the proposals let the command through.
func TestBashCompoundSuggestions(t *testing.T) {
	for _, c := range []struct {
		mode  permission.Mode
		allow []string
		cmd   string
		want  []string
	}{
		{permission.AcceptEdits, nil, "npm run build && touch dist/.stamp", []string{"Bash(npm run build:*)"}},
		{permission.Default, nil, "npm run build && touch dist/.stamp", []string{"Bash(npm run build:*)", "Bash(touch dist/.stamp)"}},
		{permission.Default, []string{"Bash(npm run:*)"}, "npm run build && touch dist/.stamp", []string{"Bash(touch dist/.stamp)"}},
		{permission.AcceptEdits, []string{"Bash(make:*)"}, "make && npm test && touch dist/x", []string{"Bash(npm test:*)"}},
		// The checkout is not trusted with what comes after it: the
		// read needs its own rule.
		{permission.Default, nil, "git checkout main && cat dist/x", []string{"Bash(git checkout:*)", "Bash(cat dist/x)"}},
		{permission.AcceptEdits, nil, "npm run build && rm -rf /", nil},
	} {
		t.Run(string(c.mode)+"/"+c.cmd, func(t *testing.T) {
			e := compoundEnv(t, c.mode, c.allow, nil, nil)
			v := bashCheck(t, e, c.cmd)
			var got []string
			for _, s := range v.Decision.Suggestions {
				got = append(got, s.String())
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("suggestions %q, want %q (%s)", got, c.want, v.Decision.Reason)
			}
			if len(got) == 0 {
				return
			}
			for _, s := range v.Decision.Suggestions {
				e.st.AddRule(s)
			}
			if v := bashCheck(t, e, c.cmd); v.Decision.Behavior != permission.Allow {
				t.Errorf("with the suggestions: %s (%s)", v.Decision.Behavior, v.Decision.Reason)
			}
		})
	}
}

// compoundParts are the parts TestBashCompoundProperty joins: read-only
// commands, edits inside and outside the project, programs rules may
// cover, dangerous and protected commands, cd, substitutions, links.
var compoundParts = []string{
	"ls", "cat src/a.txt", "echo hi", "wc -l src/a.txt", "grep -r a src",
	"touch dist/.stamp", "mkdir -p build", "cp src/a.txt dist/b.txt", "rm dist/old.txt", "echo x > dist/log",
	"mv dist/b.txt dist/c.txt", "sed -i s/a/b/ src/a.txt", "cp *.json dist",
	"touch /etc/toolscope-x", "echo x > ../out", "cat /etc/passwd", "touch .git/hooks/pre-commit", "rm -rf /", "chmod 777 src/a.txt",
	"npm run build", "npm test", "make", "go test ./...", "git checkout main", "curl https://example.com", "python3 x.py",
	"cd src", "cd /etc", "cd ..", "echo $(date)", "touch dist/$(date +%s)", "ln -s /etc dist/e", "touch ./--target-directory=..",
	"FOO=1 touch dist/x", "exec touch dist/x", "eval 'touch /etc/x'",
}

var compoundRules = struct{ allow, deny, ask []string }{
	allow: []string{"Bash(npm run:*)", "Bash(npm test)", "Bash(make:*)", "Bash(go test:*)", "Bash(git checkout:*)",
		"Bash(touch:*)", "Bash(curl:*)", "Bash(python3:*)", "Bash(ln:*)", "Bash(cat /etc/passwd)", "Bash(cd:*)", "Bash(cp:*)"},
	deny: []string{"Bash(curl:*)", "Bash(rm:*)", "Bash(python3:*)", "Bash(chmod:*)"},
	ask:  []string{"Bash(make:*)", "Bash(git checkout:*)", "Bash(touch:*)", "Bash(sed:*)"},
}

var compoundJoins = []string{" && ", " || ", "; ", " | ", " & "}

// compound is a drawn compound command with its mode and rules.
type compound struct {
	mode                    permission.Mode
	allow, deny, ask, parts []string
	cmd                     string
}

// compoundCase draws a mode, a rule set and 2 to 4 parts from r, and the
// compound joining them (sometimes grouped in a subshell or braces).
func compoundCase(r *rand.Rand) (c compound) {
	c.mode = permission.Modes[r.IntN(len(permission.Modes))]
	pick := func(from []string) []string {
		var out []string
		for _, s := range from {
			if r.IntN(3) == 0 {
				out = append(out, s)
			}
		}
		return out
	}
	c.allow, c.deny, c.ask = pick(compoundRules.allow), pick(compoundRules.deny), pick(compoundRules.ask)
	n := 2 + r.IntN(3)
	var b strings.Builder
	for i := range n {
		p := compoundParts[r.IntN(len(compoundParts))]
		c.parts = append(c.parts, p)
		if i > 0 {
			b.WriteString(compoundJoins[r.IntN(len(compoundJoins))])
		}
		b.WriteString(p)
	}
	c.cmd = b.String()
	switch r.IntN(4) {
	case 0:
		c.cmd = "(" + c.cmd + ")"
	case 1:
		c.cmd = "{ " + c.cmd + "; }"
	}
	return c
}

// TestBashCompoundProperty: for random compounds of parts and random rule
// sets, in every mode, the compound is allowed only if each part alone
// (same rules, same mode) is allowed; a part a deny rule denies alone
// denies the compound; a part denied alone (by the mode) never lets the
// compound be allowed.
func TestBashCompoundProperty(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 40
	}
	r := rand.New(rand.NewPCG(28, 3))
	allowed, perPart := 0, 0
	for range n {
		d := checkCompoundProperty(t, compoundCase(r))
		if d.Behavior == permission.Allow {
			allowed++
			if strings.HasPrefix(d.Reason, "Each part allowed: ") {
				perPart++
			}
		}
	}
	// The draws must reach the composition, not only asks and denies.
	if allowed < n/10 || perPart < n/20 {
		t.Errorf("of %d compounds %d were allowed, %d part by part", n, allowed, perPart)
	}
}

// FuzzBashCompoundProperty is TestBashCompoundProperty with the random
// draws seeded by the fuzzer.
func FuzzBashCompoundProperty(f *testing.F) {
	for _, s := range []uint64{1, 2, 28, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkCompoundProperty(t, compoundCase(rand.New(rand.NewPCG(seed, seed>>7))))
	})
}

func checkCompoundProperty(t *testing.T, c compound) permission.Decision {
	t.Helper()
	mode, allow, deny, ask, parts, cmd := c.mode, c.allow, c.deny, c.ask, c.parts, c.cmd
	e := compoundEnv(t, mode, allow, deny, ask)
	whole := bashCheck(t, e, cmd).Decision
	ctx := func() string {
		return "mode " + string(mode) + ", allow " + strings.Join(allow, " ") + ", deny " + strings.Join(deny, " ") + ", ask " + strings.Join(ask, " ")
	}
	var dirs []string // where a cd of the compound may take the parts after it
	for _, p := range parts {
		alone := bashCheck(t, e, p).Decision
		for _, d := range dirs {
			if alone.Behavior == permission.Allow {
				break
			}
			// Alone in the directory an earlier cd took it to.
			builtin.DataOf(e.st).SetCwd(d)
			alone = bashCheck(t, e, p).Decision
			builtin.DataOf(e.st).SetCwd("")
		}
		if dir, ok := strings.CutPrefix(p, "cd "); ok {
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(e.root, dir)
			}
			dirs = append(dirs, dir)
		}
		if whole.Behavior == permission.Allow && alone.Behavior != permission.Allow {
			t.Errorf("%q allowed (%s) though its part %q alone is %s (%s); %s", cmd, whole.Reason, p, alone.Behavior, alone.Reason, ctx())
		}
		if alone.Behavior == permission.Deny && strings.HasPrefix(alone.Reason, "Rule: ") && whole.Behavior != permission.Deny {
			t.Errorf("%q is %s (%s) though a deny rule denies its part %q (%s); %s", cmd, whole.Behavior, whole.Reason, p, alone.Reason, ctx())
		}
	}
	return whole
}
