package search

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// The Go engine streams a line too long for its buffer (see
// worker.longLine): whatever the pattern and the output mode, the result is
// the one the whole line gives. Every line of 64 KiB or more is streamed
// here (maxLineBuffer 1) and compared with the same search that holds
// every line (maxLineBuffer 1 GiB); the needles sit at and around the
// boundaries of the 64 KiB reads, some behind multi-byte runes that the
// boundaries cut.
func TestGoEngineLongLines(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	long := func(n int, tail string) { // a line of n bytes before tail
		for b.Len()%7 != 0 { // vary where lines start within a read
			b.WriteString("-")
		}
		b.WriteString(strings.Repeat("a", n) + tail + "\n")
	}
	b.WriteString("needle at the start\nshort line\n")
	for _, off := range []int{0, 1, 3, 5, 6, 7, 8, 100} {
		long(chunkSize-off, "needle7 tail")
		long(2*chunkSize-off, "日本needle8")
		b.WriteString("needle short\n")
	}
	long(3*chunkSize, "")                                           // no needle
	long(chunkSize+1, "NEEDLE in capitals")                         // only -i finds it
	b.WriteString("needle" + strings.Repeat("é", chunkSize) + "\n") // at the start of a long line
	long(chunkSize*2, "")                                           // the last line: no terminator after it
	b.WriteString("needle without terminator" + strings.Repeat("b", chunkSize))
	text := b.String()
	write(t, root, map[string]string{"a/long.txt": text, "b/other.txt": "needle\n" + strings.Repeat("x", 3*chunkSize) + "needle\n"})
	// Lines that start their file, so that the reads cut them at multiples
	// of 64 KiB: a needle across the cut, a rune cut in two.
	edges := map[string]string{}
	for j := 1; j < len("needle7"); j++ {
		edges[fmt.Sprintf("edges/n%d.txt", j)] = strings.Repeat("a", 2*chunkSize-j) + "needle7 tail\n"
	}
	for j := 1; j <= len("日本"); j++ {
		edges[fmt.Sprintf("edges/r%d.txt", j)] = strings.Repeat("a", chunkSize-j) + "日本needle8\n" + "needle short\n"
	}
	write(t, root, edges)
	// A NUL after a streamed line: the offset rg reports is the file's.
	nul := strings.Repeat("c", 3*chunkSize) + "needle\n" + "more\x00needle\n"
	write(t, root, map[string]string{"nul.bin": nul})

	defer func(v int) { maxLineBuffer = v }(maxLineBuffer)
	run := func(o GrepOptions, cap int) string {
		maxLineBuffer = cap
		o.Engine, o.HeadLimit = GoEngine, ptr(0)
		r, err := Grep(context.Background(), &o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		return r.Text
	}
	dir := filepath.Join(root, "a")
	for _, o := range []GrepOptions{
		{Pattern: "needle", OutputMode: ModeContent, LineNumbers: true},
		{Pattern: "needle", OutputMode: ModeContent, LineNumbers: true, Context: 2},
		{Pattern: "needle", OutputMode: ModeContent, Before: 3, After: 1},
		{Pattern: "needle", OutputMode: ModeCount},
		{Pattern: "NEEDLE", IgnoreCase: true, OutputMode: ModeContent, LineNumbers: true},
		{Pattern: "needle[78]", OutputMode: ModeContent, LineNumbers: true},
		{Pattern: "本needle8$", OutputMode: ModeCount},
		{Pattern: `^a+needle7`, OutputMode: ModeContent, LineNumbers: true},
		{Pattern: `^needle`, OutputMode: ModeCount},
		{Pattern: `a{3}ne+dle\d tail$`, OutputMode: ModeContent, LineNumbers: true, After: 2},
		{Pattern: "é{100}$", OutputMode: ModeCount},
		{Pattern: "zzz|needle without", OutputMode: ModeContent, LineNumbers: true},
		{Pattern: "nothing here", OutputMode: ModeCount},
		{Pattern: "needle", OutputMode: ModeFilesWithMatches, Path: root},
		{Pattern: "needle", OutputMode: ModeContent, LineNumbers: true, Path: filepath.Join(root, "nul.bin")},
		{Pattern: "needle", OutputMode: ModeContent, Path: filepath.Join(root, "b", "other.txt")},
	} {
		paths := []string{o.Path}
		if o.Path == "" {
			paths = []string{dir, filepath.Join(root, "edges")}
		}
		for _, o.Path = range paths {
			streamed, whole := run(o, 1), run(o, 1<<30)
			if streamed != whole {
				t.Errorf("%+v:\nstreamed:\n%s\nwhole:\n%s", o, streamed, whole)
			}
			if whole == "" && o.Pattern != "nothing here" && !strings.Contains(o.Path, "edges") {
				t.Errorf("%+v: nothing found", o)
			}
		}
	}
	if got := run(GrepOptions{Pattern: `a日本needle8`, OutputMode: ModeFilesWithMatches, Path: filepath.Join(root, "edges")}, 1); strings.Count(got, "edges/r") != len("日本") {
		t.Errorf("a rune cut by a read: %q", got)
	}
	if got := run(GrepOptions{Pattern: `aneedle7 `, OutputMode: ModeFilesWithMatches, Path: filepath.Join(root, "edges")}, 1); strings.Count(got, "edges/n") != len("needle7")-1 {
		t.Errorf("a literal cut by a read: %q", got)
	}
	if got := run(GrepOptions{Pattern: `needle7`, OutputMode: ModeFilesWithMatches, Path: filepath.Join(root, "edges")}, 1); strings.Count(got, "edges/n") != len("needle7")-1 {
		t.Errorf("a literal cut by a read: %q", got)
	}
	// What the whole search says, spelled out once.
	if got := run(GrepOptions{Pattern: "needle", OutputMode: ModeCount, Path: dir}, 1); !strings.HasSuffix(got, ":27") {
		t.Errorf("count: %q", got)
	}
	if got := run(GrepOptions{Pattern: "needle", OutputMode: ModeContent, Path: filepath.Join(root, "nul.bin")}, 1); got != fmt.Sprintf("binary file matches (found \"\\0\" byte around offset %d)", strings.IndexByte(nul, 0)) {
		t.Errorf("binary: %q", got)
	}
}
