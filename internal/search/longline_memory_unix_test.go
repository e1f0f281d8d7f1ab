//go:build unix

package search

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/internal/testproc"
)

const longLineChildEnv = "TOOLSCOPE_GREP_LONG_LINE_RSS_CHILD"

// The Go engine does not hold a line too long for its buffer: a child
// process searches a file whose first line is 1 GB long, for a needle near
// its end, and reports it (as rg reports a line over 500 bytes) and the
// short line after it, with a peak resident memory far below the line.
func TestGrepLongLineMemoryBounded(t *testing.T) {
	if path := os.Getenv(longLineChildEnv); path != "" {
		r, err := Grep(context.Background(), &GrepOptions{Pattern: "needle", Path: path, Engine: GoEngine, OutputMode: ModeContent, LineNumbers: true})
		if err != nil {
			fmt.Println("ERROR", err)
			return
		}
		fmt.Printf("RESULT %q\n", r.Text)
		testproc.PrintPeakRSS()
		return
	}
	if testing.Short() {
		t.Skip("writes a file of 1 GB")
	}
	if raceEnabled {
		t.Skip("the race detector multiplies memory use; `make test` runs this test again without it")
	}
	path := filepath.Join(t.TempDir(), "one-line.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	block := strings.Repeat("x", 1<<20)
	for range 1<<10 - 1 {
		w.WriteString(block)
	}
	w.WriteString(block[:len(block)-100] + "needle" + block[:94] + "\nneedle again\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestGrepLongLineMemoryBounded$")
	cmd.Env = append(os.Environ(), longLineChildEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if want := `RESULT "1:[Omitted long matching line]\n2:needle again"`; !strings.Contains(string(out), want) {
		t.Errorf("child said %s\nwant %s", out, want)
	}
	maxRSS := testproc.PeakRSS(cmd.ProcessState, out) // KiB
	t.Logf("child peak RSS searching a line of 1 GB: %.1f MB", float64(maxRSS)/1024)
	if maxRSS >= 48<<10 {
		t.Errorf("peak RSS %d KiB, want < 48 MiB", maxRSS)
	}
}
