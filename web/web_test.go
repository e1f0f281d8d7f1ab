package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/web"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s changed (run with -update if that is meant):\n got %s\nwant %s", name, got, want)
	}
}

// The schemas and descriptions the model is given are kept in testdata:
// a change to one shows in review. go test -run TestGolden -update ./web
// rewrites them.
func TestGolden(t *testing.T) {
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{web.NewFetch(nil), web.NewSearch(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	schemas := tk.Schemas(context.Background(), nil)
	if len(schemas) != 2 {
		t.Fatalf("%d schemas", len(schemas))
	}
	for _, s := range schemas {
		var b bytes.Buffer
		json.Indent(&b, s.InputSchema, "", "  ")
		b.WriteByte('\n')
		golden(t, "schemas/"+s.Name+".json", b.Bytes())
		golden(t, "descriptions/"+s.Name+".md", []byte(s.Description))
	}
}

// The descriptions say what the model must know to use the tools well.
func TestDescriptions(t *testing.T) {
	for _, tt := range []struct {
		d    string
		want []string
	}{
		{web.NewFetch(nil).Info().Description, []string{"prompt", "Markdown", "upgraded to HTTPS", "different host", "new WebFetch request", "100,000 characters", "10 MB", "mcp__"}},
		{web.NewSearch(nil).Info().Description, []string{"allowed_domains", "blocked_domains", "not both", "WebFetch", "markdown links", "date"}},
	} {
		for _, w := range tt.want {
			if !strings.Contains(tt.d, w) {
				t.Errorf("description lacks %q:\n%s", w, tt.d)
			}
		}
	}
}
