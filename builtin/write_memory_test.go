package builtin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/toolscope/toolscope/internal/testproc"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// writeRSSChild is set in the child process of TestWriteMemoryBounded to
// the size of the file it replaces.
const writeRSSChild = "TOOLSCOPE_WRITE_RSS_CHILD"

// Write's memory is bounded by what it writes, not by the file it
// replaces: a 1 GB file (sparse, after 20 KB of text, so that Read takes
// it) is replaced by a short text without being read whole, and a 60 MB
// file by 60 MB of other text within a few times that size; neither
// result carries a diff (only a summary of the sizes). Each runs in a
// child process whose peak RSS is measured.
func TestWriteMemoryBounded(t *testing.T) {
	if spec := os.Getenv(writeRSSChild); spec != "" {
		writeRSSChildMain(t, spec)
		return
	}
	if testing.Short() {
		t.Skip("writes 120 MB and makes a sparse file of 1 GB")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory distorts RSS")
	}
	for _, c := range []struct {
		size   int64
		maxMiB int64
	}{
		// The input (60 MB of JSON) is decoded twice (to validate it, and
		// by Write), each time into a copy and a string: about 250 MB with
		// the GC's headroom, all of it the price of the input.
		{60 << 20, 5 * 60},
		{1 << 30, 48},
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestWriteMemoryBounded$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", writeRSSChild, c.size))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "RESULT success") || strings.Contains(string(out), "WRONG") {
			t.Errorf("%d MB: %s", c.size>>20, out)
		}
		rss := testproc.PeakRSS(cmd.ProcessState, out) // KiB
		t.Logf("peak RSS of Write over a %d MB file: %.1f MB", c.size>>20, float64(rss)/1024)
		if rss > c.maxMiB<<10 {
			t.Errorf("%d MB file: peak RSS %d KiB > %d MiB", c.size>>20, rss, c.maxMiB)
		}
	}
}

func writeRSSChildMain(t *testing.T, spec string) {
	e := newEnv(t, permission.Bypass, nil)
	var size int64
	fmt.Sscan(spec, &size)
	p := e.path("big.txt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	chunk := strings.Repeat(strings.Repeat("x", 99)+"\n", 100) // 10,000 bytes
	// The new content, 60 MB of other lines, exists only as the call's
	// input, JSON written here as a model's call arrives (encoding/json's
	// buffer growth would dwarf what is measured): the toolkit decodes it.
	var raw []byte
	head, _ := json.Marshal(p)
	raw = append(raw, `{"file_path":`...)
	raw = append(raw, head...)
	raw = append(raw, `,"content":"`...)
	n := 0
	if size < 100<<20 {
		escaped := strings.ReplaceAll(strings.ReplaceAll(chunk, "x", "y"), "\n", `\n`)
		raw = slices.Grow(raw, int(size)+int(size)/50)
		for ; int64(n) < size; n += len(chunk) {
			f.WriteString(chunk)
			raw = append(raw, escaped...)
		}
	} else {
		f.WriteString(chunk)
		f.WriteString(chunk)
		f.Truncate(size) // sparse
		raw = append(raw, `replaced\n`...)
		n = len("replaced\n")
	}
	raw = append(raw, `"}`...)
	f.Close()
	if fi, err := os.Stat(p); err == nil {
		size = fi.Size()
	}
	if r := e.call("Read", map[string]any{"file_path": p, "limit": 1}); r.Status != "success" {
		t.Fatalf("Read: %s", r.Text())
	}
	r, err := e.tk.Call(context.Background(), &tool.Call{ID: "t", Name: "Write", Input: raw, State: e.st})
	if err != nil {
		t.Fatal(err)
	}
	// What is wrong is printed, not failed, so that the parent still
	// measures the memory.
	_, hasDiff := r.Metadata["diff"]
	summary, _ := r.Metadata["diff_omitted"].(string)
	if hasDiff || !strings.Contains(summary, fmt.Sprintf("replaced %d bytes with %d bytes", size, n)) {
		fmt.Printf("WRONG metadata: diff %v, summary %q\n", hasDiff, summary)
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() != int64(n) {
		fmt.Printf("WRONG size after the write: %v %v\n", fi.Size(), err)
	}
	fmt.Printf("RESULT %s %s\n", r.Status, strings.SplitN(r.Text(), "\n", 2)[0])
	testproc.PrintPeakRSS()
}
