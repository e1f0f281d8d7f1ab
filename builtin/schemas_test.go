package builtin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/schemas")

// The schema of every built-in tool, as a model is given it, is kept in
// testdata/schemas: a change to one shows in review. go test -run
// TestSchemasGolden -update ./builtin rewrites them.
func TestSchemasGolden(t *testing.T) {
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: t.TempDir(), Background: true})})
	if err != nil {
		t.Fatal(err)
	}
	schemas := tk.Schemas(context.Background(), nil)
	if len(schemas) != 13 {
		t.Fatalf("%d built-in tools, want 13", len(schemas))
	}
	for _, s := range schemas {
		var b bytes.Buffer
		json.Indent(&b, s.InputSchema, "", "  ")
		b.WriteByte('\n')
		file := filepath.Join("testdata", "schemas", s.Name+".json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(want, b.Bytes()) {
			t.Errorf("the schema of %s changed (run with -update if that is meant):\n got %s\nwant %s", s.Name, b.Bytes(), want)
		}
	}
}

// Without Options.Background there are no background shells: no
// BashOutput or KillShell, and Bash does not offer run_in_background.
func TestSchemasWithoutBackground(t *testing.T) {
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: t.TempDir()})})
	if err != nil {
		t.Fatal(err)
	}
	schemas := tk.Schemas(context.Background(), nil)
	if len(schemas) != 11 {
		t.Fatalf("%d built-in tools, want 11", len(schemas))
	}
	for _, s := range schemas {
		if s.Name == "Bash" && bytes.Contains(s.InputSchema, []byte("run_in_background")) {
			t.Errorf("Bash offers run_in_background without Options.Background: %s", s.InputSchema)
		}
	}
}
