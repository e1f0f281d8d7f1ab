package permission

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRule(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Rule
		err  string
	}{
		{in: "Bash", want: Rule{Tool: "Bash"}},
		{in: "Bash(npm run:*)", want: Rule{Tool: "Bash", Content: "npm run:*"}},
		{in: "Read(src/**)", want: Rule{Tool: "Read", Content: "src/**"}},
		{in: "mcp__fs__read_file", want: Rule{Tool: "mcp__fs__read_file"}},
		{in: "Bash()", want: Rule{Tool: "Bash"}},
		{in: `Bash(python -c "print\(1\)")`, want: Rule{Tool: "Bash", Content: `python -c "print(1)"`}},
		{in: `Bash(echo (hi))`, want: Rule{Tool: "Bash", Content: `echo (hi)`}},
		{in: `Bash(echo \*)`, want: Rule{Tool: "Bash", Content: `echo \*`}},
		{in: `Bash(a\\b)`, want: Rule{Tool: "Bash", Content: `a\b`}},
		{in: "", err: "empty tool name"},
		{in: "(x)", err: "empty tool name"},
		{in: "Bash(x", err: "missing the closing ')'"},
		{in: `Bash(x\)`, err: "missing the closing ')'"},
		{in: "Ba sh", err: "invalid character"},
	} {
		got, err := ParseRule(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseRule(%q) err = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRule(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseRule(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestRuleString(t *testing.T) {
	for r, want := range map[Rule]string{
		{Tool: "Bash"}:                               "Bash",
		{Tool: "Bash", Content: "git log:*"}:         "Bash(git log:*)",
		{Tool: "Bash", Content: `f(x) \ y`}:          `Bash(f\(x\) \\ y)`,
		{Tool: "Read", Content: "src/**"}:            "Read(src/**)",
		{Tool: "Bash", Content: "x", Behavior: Deny}: "Bash(x)",
	} {
		if got := r.String(); got != want {
			t.Errorf("%+v.String() = %q, want %q", r, got, want)
		}
	}
}

func FuzzRuleRoundTrip(f *testing.F) {
	for _, s := range []string{"Bash", "git log:*", `a\(b)\\`, "src/**", ")(", `\`} {
		f.Add("Bash", s)
	}
	f.Fuzz(func(t *testing.T, tool, content string) {
		r := Rule{Tool: tool, Content: content}
		if checkToolName(tool) != nil {
			if _, err := ParseRule(r.String()); err == nil && content == "" {
				t.Fatalf("invalid tool name %q accepted", tool)
			}
			return
		}
		got, err := ParseRule(r.String())
		if err != nil {
			t.Fatalf("ParseRule(%q): %v", r.String(), err)
		}
		if got != r {
			t.Fatalf("round trip %+v -> %q -> %+v", r, r.String(), got)
		}
	})
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"Bash(npm run:*)", "Read(src/**)", `Bash(x\)`, "(", "a(b)c)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			return
		}
		// Whatever parses formats to a string that parses to the same rule.
		again, err := ParseRule(r.String())
		if err != nil || again != r {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", s, r, r.String(), again, err)
		}
	})
}

func TestModeAndBehaviorText(t *testing.T) {
	for _, m := range Modes {
		var got Mode
		if err := got.UnmarshalText([]byte(m)); err != nil || got != m {
			t.Errorf("mode %q: %v %v", m, got, err)
		}
	}
	var m Mode
	if err := json.Unmarshal([]byte(`"acceptEdits"`), &m); err == nil {
		t.Error("bad mode accepted")
	}
	var b Behavior
	if err := json.Unmarshal([]byte(`"passthrough"`), &b); err != nil || b != Passthrough {
		t.Error(b, err)
	}
	if err := json.Unmarshal([]byte(`"yes"`), &b); err == nil {
		t.Error("bad behavior accepted")
	}
}

func TestContextJSON(t *testing.T) {
	in := `{"mode":"accept_edits","working_dirs":["/p"],"allow":["Bash(git log:*)",{"tool":"Read","content":"src/**","source":"userSettings"}],"deny":["Bash(rm:*)"]}`
	var c Context
	if err := json.Unmarshal([]byte(in), &c); err != nil {
		t.Fatal(err)
	}
	want := Context{Mode: AcceptEdits, WorkingDirs: []string{"/p"},
		Allow: []Rule{{Tool: "Bash", Content: "git log:*", Behavior: Allow}, {Tool: "Read", Content: "src/**", Behavior: Allow, Source: "userSettings"}},
		Deny:  []Rule{{Tool: "Bash", Content: "rm:*", Behavior: Deny}}}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Fatalf("(-want +got)\n%s", diff)
	}
	out, _ := json.Marshal(&c)
	var back Context
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Fatalf("round trip (-want +got)\n%s", diff)
	}
	if err := json.Unmarshal([]byte(`{"allow":["Bash(x"]}`), &c); err == nil {
		t.Fatal("bad rule accepted")
	}
	// AddRule copies; passthrough ignored.
	c2 := c.Clone()
	c2.AddRule(Rule{Tool: "X", Behavior: Passthrough})
	c2.AddRule(Rule{Tool: "Y", Behavior: Ask})
	if len(c2.Ask) != 1 || len(c.Ask) != 0 || len(c2.Allow) != 2 {
		t.Fatalf("AddRule: %+v", c2)
	}
}
