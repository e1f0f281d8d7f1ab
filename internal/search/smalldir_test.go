package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// BenchmarkGlobSmallDir is the Glob of an MCP call that lists one
// directory of 200 files with the secret policy's exclusions, the peer of
// server-filesystem's list_directory (bench/mcp-peers.sh): what is fixed
// per call (the root's checks, the walk's set-up) weighs as much as the
// files here.
func BenchmarkGlobSmallDir(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, "list")
	os.Mkdir(dir, 0o755)
	for i := 1; i <= 200; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.txt", i)), nil, 0o644)
	}
	ex, fold := secretExcludes(root)
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		res, err := Glob(context.Background(), dir, "*", &GlobOptions{Limit: 100, Exclude: ex, ExcludeFold: fold})
		if err != nil || res.Total != 200 {
			b.Fatal(res, err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time, user and system, the process has used: unlike
// the time an operation takes, it does not count waiting for a CPU on a
// busy machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// newest keeps what sorting every file and keeping the first limit keeps,
// whatever the order the files come in and however many tie on their
// time: files in bulk, most of them older than what is kept, and runs
// that trim many times.
func TestNewestKeepsTheBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		limit := 1 + rng.IntN(40)
		n := rng.IntN(400)
		var all []globFile
		h := &newest{limit: limit}
		for i := range n {
			f := globFile{rel: fmt.Sprintf("f%04d", rng.IntN(n+1)), sec: int64(rng.IntN(20)) - 10, nsec: int32(rng.IntN(3))}
			if round%3 == 0 {
				f.sec = int64(i) // newer and newer: every file is kept for a while
			}
			all = append(all, f)
			h.offer(f)
		}
		h.trim()
		slices.SortFunc(all, compareFiles)
		want := all[:min(limit, len(all))]
		if !slices.Equal(h.files, want) {
			t.Fatalf("round %d, limit %d, %d files: kept %v, want %v", round, limit, n, h.files, want)
		}
	}
}
