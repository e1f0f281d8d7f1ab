package console

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/agent"
	"github.com/toolscope/toolscope/host"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// BenchmarkRunPage1000Calls serves the page of a run of 1,000 calls (each
// with a result of a few lines, the last one waiting for an Edit shown as
// a diff): reading the sealed run file, building the transcript and
// rendering it.
func BenchmarkRunPage1000Calls(b *testing.B) {
	b.Setenv("HOME", b.TempDir())
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	dir, project := b.TempDir(), b.TempDir()
	r := pausedRun(b, project, b.TempDir())
	for i := range 1000 {
		c := call(fmt.Sprintf("k%d", i), "Bash", map[string]any{"command": fmt.Sprintf("grep -n 'x' file%d.go", i)})
		r.Messages = append(r.Messages[:len(r.Messages):len(r.Messages)],
			agent.Message{Role: agent.Assistant, Text: "Looking.", ToolCalls: []agent.ToolCall{c}},
			agent.Message{Role: agent.ToolRole, Result: &tool.Result{ID: c.ID, Name: "Bash", Status: tool.StatusSuccess,
				Content:  []tool.Block{tool.TextBlock(strings.Repeat("file.go:1: x := 1\n", 5))},
				Decision: &permission.Decision{Behavior: permission.Allow, Message: "read-only", Reason: "read-only command"}}})
	}
	// The waiting calls' own message goes last.
	last := r.Messages[3]
	r.Messages = append(append(r.Messages[:3:3], r.Messages[4:]...), last)
	if err := host.SaveRun(filepath.Join(dir, "big.json"), r); err != nil {
		b.Fatal(err)
	}
	local, err := NewLocal(dir, &LocalOptions{Command: []string{"/nonexistent"}})
	if err != nil {
		b.Fatal(err)
	}
	defer local.Close()
	s, err := New(&Options{Sources: []Source{local}, Tokens: map[string]string{"b": testToken}})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", "http://127.0.0.1:1/runs/local/big.json", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	b.ReportAllocs()
	var size int
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body.String())
		}
		size = w.Body.Len()
	}
	b.ReportMetric(float64(size), "page-bytes")
}
