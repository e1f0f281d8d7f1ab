package builtin_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/internal/testproc"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// Edit's memory is bounded: a file over its 64 MiB limit (here a 1 GB and
// a 5 GB sparse file) is refused at once, with a message naming a
// streaming alternative, and a 60 MB file is edited within a few times its
// size. Each runs in a child process whose peak RSS is measured.
func TestEditMemoryBounded(t *testing.T) {
	if spec := os.Getenv("TOOLSCOPE_EDIT_RSS_CHILD"); spec != "" {
		e := newEnv(t, permission.Bypass, nil)
		size := 0
		fmt.Sscan(spec, &size)
		p := e.path("big.txt")
		f, _ := os.Create(p)
		if size < 100<<20 {
			line := strings.Repeat("x", 99) + "\n"
			var b strings.Builder
			for b.Len() < 1<<20 {
				b.WriteString(line)
			}
			chunk := b.String()
			for w := 0; w < size; w += len(chunk) {
				f.WriteString(chunk)
			}
			f.WriteString("needle\n")
		} else {
			f.Truncate(int64(size)) // sparse
		}
		f.Close()
		if size < 100<<20 {
			e.mustOK(e.call("Read", map[string]any{"file_path": p, "limit": 1}))
		}
		r := e.call("Edit", map[string]any{"file_path": p, "old_string": "needle", "new_string": "thread"})
		fmt.Printf("RESULT %s %s\n", r.Status, strings.SplitN(r.Text(), "\n", 2)[0])
		testproc.PrintPeakRSS()
		return
	}
	if testing.Short() {
		t.Skip("writes 60 MB and makes sparse files of 1 and 5 GB")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory distorts RSS")
	}
	for _, c := range []struct {
		size    int
		status  tool.Status
		maxMiB  int64
		message string
	}{
		{60 << 20, tool.StatusSuccess, 4 * 60, "Successfully replaced 1 occurrence"},
		{1 << 30, tool.StatusError, 64, "more than the 67108864 bytes Edit changes in memory"},
		{5 << 30, tool.StatusError, 64, "more than the 67108864 bytes Edit changes in memory"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestEditMemoryBounded$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("TOOLSCOPE_EDIT_RSS_CHILD=%d", c.size))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "RESULT "+string(c.status)) || !strings.Contains(string(out), c.message) {
			t.Errorf("%d MB: %s", c.size>>20, out)
		}
		rss := testproc.PeakRSS(cmd.ProcessState, out) // KiB
		t.Logf("peak RSS of Edit on a %d MB file: %.1f MB", c.size>>20, float64(rss)/1024)
		if rss > c.maxMiB<<10 {
			t.Errorf("%d MB file: peak RSS %d KiB > %d MiB", c.size>>20, rss, c.maxMiB)
		}
	}
}
