package builtin_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/internal/counters"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// approveAll is an Asker that approves every call.
type approveAll struct{ asked int }

func (a *approveAll) Ask(context.Context, *tool.Call, permission.Decision) (bool, []permission.Rule, error) {
	a.asked++
	return true, nil, nil
}

// A Bash call is analysed once and its command parsed once, whatever asks
// about it: the deny and ask rules, the read-only fast path, the tool's
// check, the allow rules, the suggestions, the user's approval, and the
// run (which takes its environment from that analysis).
func TestBashJudgedOnce(t *testing.T) {
	rules := func(b permission.Behavior, contents ...string) []permission.Rule {
		var out []permission.Rule
		for _, c := range contents {
			out = append(out, permission.Rule{Tool: "Bash", Content: c, Behavior: b})
		}
		return out
	}
	deny := rules(permission.Deny, "rm -rf:*", "git push:*", "curl:*", "shred:*")
	ask := rules(permission.Ask, "git commit:*", "npm publish:*")
	allow := rules(permission.Allow, "touch:*", "make:*")
	for _, tc := range []struct {
		name     string
		mode     permission.Mode
		cmd      string
		approved bool
		asker    bool
		want     tool.Status
	}{
		{"read-only", permission.Default, "ls -la && cat a.txt | wc -l", false, false, tool.StatusSuccess},
		{"allow rule", permission.Default, "touch b.txt && ls", false, false, tool.StatusSuccess},
		{"asks", permission.Default, "mkdir d", false, false, tool.StatusAsking},
		{"approved", permission.Default, "mkdir e", true, false, tool.StatusSuccess},
		{"asker approves", permission.Default, "mkdir f", false, true, tool.StatusSuccess},
		{"denied by a rule", permission.Default, "echo x; git push origin", false, false, tool.StatusDenied},
		{"ask rule", permission.Default, "git commit -m x", false, false, tool.StatusAsking},
		{"accept edits", permission.AcceptEdits, "mkdir g && touch g/x", false, false, tool.StatusSuccess},
		{"bypass", permission.Bypass, "mkdir h", false, false, tool.StatusSuccess},
		{"dont ask", permission.DontAsk, "python3 -c 'print(1)'", false, false, tool.StatusDenied},
		{"explore", permission.Explore, "mkdir i", false, false, tool.StatusDenied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			os.WriteFile(root+"/a.txt", []byte("x\n"), 0o644)
			opts := &tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: root})}
			if tc.asker {
				opts.Asker = &approveAll{}
			}
			tk, err := tool.NewToolkit(opts)
			if err != nil {
				t.Fatal(err)
			}
			st := tool.NewState(&permission.Context{Mode: tc.mode, Deny: deny, Ask: ask, Allow: allow})
			in, _ := json.Marshal(map[string]string{"command": tc.cmd})
			analyses, parses := counters.ShellAnalyses.Load(), counters.ShellParses.Load()
			r, err := tk.Call(context.Background(), &tool.Call{ID: "1", Name: "Bash", Input: in, State: st, Approved: tc.approved})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != tc.want {
				t.Fatalf("status %s, want %s: %s (%+v)", r.Status, tc.want, r.Text(), r.Decision)
			}
			if n := counters.ShellAnalyses.Load() - analyses; n != 1 {
				t.Errorf("%d analyses for one call, want 1", n)
			}
			if n := counters.ShellParses.Load() - parses; n != 1 {
				t.Errorf("%d parses of the command for one call, want 1", n)
			}
			analyses = counters.ShellAnalyses.Load()
			if _, err := tk.Check(context.Background(), &tool.Call{Name: "Bash", Input: in, State: st}); err != nil {
				t.Fatal(err)
			}
			if n := counters.ShellAnalyses.Load() - analyses; n != 1 {
				t.Errorf("%d analyses for one Check, want 1", n)
			}
		})
	}
}

// The run takes where the command runs from the judgment: a directory
// removed between the decision and the run runs nothing (not the command
// in another directory than the one it was judged for).
func TestBashRunsWhereJudged(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	e.mustOK(e.call("Bash", bash("mkdir -p sub && cd sub")))
	b := builtin.NewBash(&builtin.Options{Root: e.root})
	in := json.RawMessage(`{"command":"touch made-here"}`)
	ctx := tool.WithState(context.Background(), e.st)
	j, err := b.Judge(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if d := j.(*builtin.BashJudgment).Dir(); d != e.path("sub") {
		t.Fatalf("judged to run in %s", d)
	}
	os.RemoveAll(e.path("sub"))
	var text string
	for c, err := range b.Call(ctx, &tool.Call{Name: "Bash", Input: in, State: e.st, Judgment: j}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, bl := range c.Content {
			text += bl.Text
		}
	}
	if !strings.Contains(text, "Command not run") {
		t.Fatalf("ran in another directory than judged: %q", text)
	}
	if _, err := os.Stat(e.path("made-here")); err == nil {
		t.Fatal("the command ran in the root")
	}
	// The next call is judged, and runs, in the root (and says so).
	got := e.mustOK(e.call("Bash", bash("pwd")))
	if got != e.root+"\n" {
		t.Fatalf("next call ran in %q", got)
	}
}

// A judgment of another command, or of another Bash, is not used: the
// command is judged where it runs.
func TestBashIgnoresForeignJudgment(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	b := builtin.NewBash(&builtin.Options{Root: e.root})
	ctx := tool.WithState(context.Background(), e.st)
	j, _ := b.Judge(ctx, json.RawMessage(`{"command":"true"}`))
	analyses := counters.ShellAnalyses.Load()
	for _, err := range b.Call(ctx, &tool.Call{Name: "Bash", Input: json.RawMessage(`{"command":"echo hi"}`), State: e.st, Judgment: j}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := counters.ShellAnalyses.Load() - analyses; n != 1 {
		t.Fatalf("a call with another command's judgment was analysed %d times, want 1 (its own)", n)
	}
}
