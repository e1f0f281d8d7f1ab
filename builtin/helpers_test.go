package builtin_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// env is a project directory with the built-in tools in a toolkit, and an
// agent state.
type env struct {
	t    *testing.T
	root string
	tk   *tool.Toolkit
	st   *tool.State
}

func newEnv(t *testing.T, mode permission.Mode, opts *builtin.Options) *env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &builtin.Options{}
	}
	opts.Root = root
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(opts), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, root: root, tk: tk, st: tool.NewState(&permission.Context{Mode: mode})}
}

func (e *env) path(name string) string { return filepath.Join(e.root, name) }

func (e *env) write(name, content string) string {
	e.t.Helper()
	p := e.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) read(name string) string {
	e.t.Helper()
	b, err := os.ReadFile(e.path(name))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// call runs a tool through the toolkit. Input is a map or a JSON string.
func (e *env) call(name string, input any) *tool.Result {
	return e.callCtx(context.Background(), name, input)
}

func (e *env) callCtx(ctx context.Context, name string, input any) *tool.Result {
	e.t.Helper()
	var raw []byte
	if s, ok := input.(string); ok {
		raw = []byte(s)
	} else {
		var err error
		if raw, err = json.Marshal(input); err != nil {
			e.t.Fatal(err)
		}
	}
	r, err := e.tk.Call(ctx, &tool.Call{ID: "t", Name: name, Input: raw, State: e.st})
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *env) mustOK(r *tool.Result) string {
	e.t.Helper()
	if r.Status != tool.StatusSuccess {
		e.t.Fatalf("%s: status %s: %s (decision %+v)", r.Name, r.Status, r.Text(), r.Decision)
	}
	return r.Text()
}

func (e *env) mustErr(r *tool.Result, want string) {
	e.t.Helper()
	if r.Status != tool.StatusError || r.Text() != want {
		e.t.Fatalf("%s: got %s %q\nwant error %q", r.Name, r.Status, r.Text(), want)
	}
}

func contains(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
}
