//go:build unix

package search

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/internal/testproc"
)

const grepChildEnv = "TOOLSCOPE_GREP_RSS_CHILD"

// The Go engine keeps what the page can show (head_limit lines), not every
// match: a child process searches a tree of 300 MB of matching lines for a
// page of 250 and its peak resident memory stays small; the item count is
// still the total.
func TestGrepMemoryBounded(t *testing.T) {
	if root := os.Getenv(grepChildEnv); root != "" {
		r, err := Grep(context.Background(), &GrepOptions{Pattern: "match", Path: root, Engine: GoEngine, OutputMode: ModeContent})
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		json.NewEncoder(os.Stdout).Encode(map[string]any{"items": r.Items, "lines": strings.Count(r.Text, "\n")})
		testproc.PrintPeakRSS()
		return
	}
	if testing.Short() {
		t.Skip("writes 300 MB")
	}
	if raceEnabled {
		t.Skip("the race detector multiplies memory use; `make test` runs this test again without it")
	}
	root := t.TempDir()
	const files, lines = 100, 30000
	line := strings.Repeat("match ", 16) + "\n" // ~100 bytes
	for i := 0; i < files; i++ {
		f, err := os.Create(filepath.Join(root, fmt.Sprintf("f%03d.txt", i)))
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		for j := 0; j < lines; j++ {
			w.WriteString(line)
		}
		w.Flush()
		f.Close()
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGrepMemoryBounded$")
	cmd.Env = append(os.Environ(), grepChildEnv+"="+root)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var res struct{ Items, Lines int }
	if err := json.Unmarshal(out[:strings.IndexByte(string(out), '\n')+1], &res); err != nil {
		t.Fatalf("child output %q: %v", out, err)
	}
	if res.Items != files*lines {
		t.Errorf("items %d, want %d", res.Items, files*lines)
	}
	maxRSS := testproc.PeakRSS(cmd.ProcessState, out) // KiB
	t.Logf("child peak RSS searching %d MB of matches for a page of %d lines: %d KiB", files*lines*len(line)>>20, DefaultHeadLimit, maxRSS)
	if maxRSS >= 96<<10 {
		t.Errorf("peak RSS %d KiB, want < 96 MiB", maxRSS)
	}
}
