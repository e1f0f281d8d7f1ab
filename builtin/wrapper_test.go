package builtin_test

import (
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// plainWrapper decorates a tool by forwarding the three required methods
// only, as a logging or metrics wrapper would.
type plainWrapper struct{ t tool.Tool }

func (w plainWrapper) Info() tool.Info { return w.t.Info() }
func (w plainWrapper) CheckPermissions(ctx context.Context, in json.RawMessage, pc *permission.Context) (permission.Decision, error) {
	return w.t.CheckPermissions(ctx, in, pc)
}
func (w plainWrapper) Call(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return w.t.Call(ctx, c)
}

// unwrapping also says what it wraps.
type unwrapping struct{ plainWrapper }

func (u unwrapping) Unwrap() tool.Tool { return u.t }

// A wrapper must not turn off the rules written for the tool it wraps: in
// bypass mode with the deny rule Bash(rm:*), rm through a wrapped Bash is
// denied. Through Unwrap the rule is matched precisely; a wrapper that
// hides the tool makes a content rule unevaluable, and it fails closed (it
// applies to every call, never allows one).
func TestWrappedToolKeepsItsRules(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	victim := filepath.Join(root, "x")
	for _, c := range []struct {
		name  string
		wrap  func(tool.Tool) tool.Tool
		lsRun bool
	}{
		{"unwrap", func(b tool.Tool) tool.Tool { return unwrapping{plainWrapper{b}} }, true},
		{"opaque", func(b tool.Tool) tool.Tool { return plainWrapper{b} }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.WriteFile(victim, []byte("keep"), 0o644)
			b := builtin.NewBash(&builtin.Options{Root: root})
			tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{c.wrap(b)}, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			st := tool.NewState(&permission.Context{Mode: permission.Bypass,
				Deny: []permission.Rule{{Tool: "Bash", Content: "rm:*", Behavior: permission.Deny}}})
			call := func(cmd string) *tool.Result {
				in, _ := json.Marshal(map[string]string{"command": cmd})
				r, err := tk.Call(context.Background(), &tool.Call{ID: "1", Name: "Bash", Input: in, State: st})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			if r := call("rm -f " + victim); r.Status != tool.StatusDenied {
				t.Errorf("rm through the wrapper: %s %s", r.Status, r.Text())
			}
			if _, err := os.Stat(victim); err != nil {
				t.Fatalf("the file was deleted: %v", err)
			}
			if r := call("ls"); (r.Status == tool.StatusSuccess) != c.lsRun {
				t.Errorf("ls through the wrapper: %s %s", r.Status, r.Text())
			}
		})
	}
}

// The optional checks see where the call runs: after an approved "cd .ssh"
// the shell's working directory is the key directory, and "cat config"
// there is a secret read, whatever check judges it.
func TestChecksSeeTheTrackedDirectory(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte("Host x\n  IdentityFile k\n"), 0o600)
	t.Setenv("HOME", home)
	b := builtin.NewBash(&builtin.Options{Root: home})
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{b}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	st := tool.NewState(&permission.Context{Mode: permission.Default})
	in := func(cmd string) json.RawMessage { j, _ := json.Marshal(map[string]string{"command": cmd}); return j }
	r, err := tk.Call(context.Background(), &tool.Call{ID: "1", Name: "Bash", Input: in("cd .ssh"), State: st, Approved: true})
	if err != nil || r.Status != tool.StatusSuccess {
		t.Fatalf("cd: %v %s %s", err, r.Status, r.Text())
	}
	if builtin.DataOf(st).Cwd() != filepath.Join(home, ".ssh") {
		t.Fatalf("tracked cwd %q", builtin.DataOf(st).Cwd())
	}
	v, err := tk.Check(context.Background(), &tool.Call{ID: "2", Name: "Bash", Input: in("cat config"), State: st})
	if err != nil {
		t.Fatal(err)
	}
	if v.Decision.Behavior == permission.Allow || !v.Decision.BypassImmune || v.ReadOnly {
		t.Errorf("cat config in ~/.ssh: %+v read-only=%v", v.Decision, v.ReadOnly)
	}
	// The suggestion for a command there is judged there too: none for a
	// secret read, and for a plain file of the directory an exact rule.
	if s := b.Suggestions(tool.WithState(context.Background(), st), in("cat config")); len(s) != 0 {
		t.Errorf("suggestions for a secret read: %v", s)
	}
}
