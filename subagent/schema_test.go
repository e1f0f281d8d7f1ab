package subagent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolscope/toolscope/subagent"
	"github.com/toolscope/toolscope/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// The Agent tool's schema and description, as a model is given them with
// the built-in kinds and one defined kind, are kept in testdata: a change
// shows in review. go test -run TestSchemaGolden -update ./subagent
// rewrites them.
func TestSchemaGolden(t *testing.T) {
	tk := emptyToolkit(t)
	at, err := subagent.New(&subagent.Options{Model: nopModel{}, Toolkit: tk,
		Definitions: []subagent.Definition{{Name: "code-reviewer", Description: "Reviews code for bugs.", Prompt: "p", Tools: []string{"Read", "Grep"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tk.Add(tool.BasicGroup, at); err != nil {
		t.Fatal(err)
	}
	schemas := tk.Schemas(context.Background(), nil)
	if len(schemas) != 1 {
		t.Fatalf("%d schemas", len(schemas))
	}
	var b bytes.Buffer
	json.Indent(&b, schemas[0].InputSchema, "", "  ")
	b.WriteByte('\n')
	for file, got := range map[string][]byte{"Agent.json": b.Bytes(), "Agent.description.md": []byte(schemas[0].Description)} {
		file = filepath.Join("testdata", file)
		if *update {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(want, got) {
			t.Errorf("%s changed (run with -update if that is meant):\n got %s\nwant %s", file, got, want)
		}
	}
}
