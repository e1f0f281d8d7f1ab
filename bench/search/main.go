// Command search compares toolscope's Grep and Glob with raw ripgrep on one
// directory tree and prints a markdown table of median wall times.
//
//	go run ./bench/search [-root DIR] [-n N]
//
// For each query it times Grep through the ripgrep engine, Grep through the
// Go engine and rg run directly with the same arguments (output discarded);
// for each pattern, Glob and `rg --files --hidden -g PATTERN`. Ratios are to
// the raw rg run.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolscope/toolscope/internal/search"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "search bench:", err)
		os.Exit(1)
	}
}

type query struct {
	name string
	opts search.GrepOptions
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	root := fs.String("root", "", "directory to search (default: $(go env GOROOT)/src)")
	n := fs.Int("n", 7, "iterations per measurement")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *root == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %w", err)
		}
		*root = filepath.Join(strings.TrimSpace(string(out)), "src")
	}
	abs, err := filepath.Abs(*root)
	if err != nil {
		return err
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		return fmt.Errorf("rg is needed as the baseline: %w", err)
	}

	queries := []query{
		{"literal `func main`, files", search.GrepOptions{Pattern: "func main"}},
		{"literal `func main`, content -n", search.GrepOptions{Pattern: "func main", OutputMode: search.ModeContent, LineNumbers: true}},
		{"regex `err != nil \\{`, content -n", search.GrepOptions{Pattern: `err != nil \{`, OutputMode: search.ModeContent, LineNumbers: true}},
		{"regex `func \\w+\\(t \\*testing\\.T\\)`, count", search.GrepOptions{Pattern: `func \w+\(t \*testing\.T\)`, OutputMode: search.ModeCount}},
		{"-i `FUNC MAIN`, files", search.GrepOptions{Pattern: "FUNC MAIN", IgnoreCase: true}},
		{"-i `unsafe.pointer`, content -n -C1", search.GrepOptions{Pattern: `unsafe\.pointer`, IgnoreCase: true, OutputMode: search.ModeContent, LineNumbers: true, Context: 1}},
		{"regex `[A-Z]\\w*Error\\b`, count", search.GrepOptions{Pattern: `[A-Z]\w*Error\b`, OutputMode: search.ModeCount}},
		{"regex with no literal `[A-Z][a-z]+[0-9]{2}\\b`, files", search.GrepOptions{Pattern: `[A-Z][a-z]+[0-9]{2}\b`}},
	}
	fmt.Fprintf(stdout, "root: %s, %d interleaved rounds, median wall time\n\n", abs, *n)
	fmt.Fprintln(stdout, "| case | toolscope rg engine | toolscope Go engine | raw rg | rg engine / raw | Go engine / raw |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|")
	for _, q := range queries {
		o := q.opts
		o.Path = abs
		rgOpts, goOpts := o, o
		rgOpts.Engine, goOpts.Engine = search.Ripgrep, search.GoEngine
		t, err := medians(*n,
			func() error { _, err := search.Grep(ctx, &rgOpts); return err },
			func() error { _, err := search.Grep(ctx, &goOpts); return err },
			func() error { return rawRg(ctx, rg, abs, search.RipgrepArgs(&o)) },
		)
		if err != nil {
			return fmt.Errorf("%s: %w", q.name, err)
		}
		tRg, tGo, tRaw := t[0], t[1], t[2]
		fmt.Fprintf(stdout, "| %s | %s | %s | %s | %.2f× | %.2f× |\n", q.name, ms(tRg), ms(tGo), ms(tRaw), ratio(tRg, tRaw), ratio(tGo, tRaw))
	}

	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, "| glob | toolscope Glob | raw `rg --files --hidden -g` | Glob / raw | files |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|")
	for _, pattern := range []string{"**/*_test.go", "**/*.{s,go}", "net/http/**/*.go", "**/testdata/**"} {
		var total int
		t, err := medians(*n,
			func() error {
				res, err := search.Glob(ctx, abs, pattern, nil)
				if err == nil {
					total = res.Total
				}
				return err
			},
			func() error { return rawRg(ctx, rg, abs, []string{"--files", "--hidden", "-g", pattern}) },
		)
		if err != nil {
			return fmt.Errorf("glob %s: %w", pattern, err)
		}
		tGlob, tRaw := t[0], t[1]
		fmt.Fprintf(stdout, "| `%s` | %s | %s | %.2f× | %d |\n", pattern, ms(tGlob), ms(tRaw), ratio(tGlob, tRaw), total)
	}
	return nil
}

// rawRg runs rg in dir with args and discards its output; exit code 1 (no match) is fine.
func rawRg(ctx context.Context, rg, dir string, args []string) error {
	cmd := exec.CommandContext(ctx, rg, args...)
	cmd.Dir = dir
	cmd.Stdout = io.Discard
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		return nil
	}
	return err
}

// medians runs each f once to warm caches, then n rounds in which every f
// runs once (in rotating order, so that changes in machine load hit all of
// them alike), and returns the median duration of each.
func medians(n int, fs ...func() error) ([]time.Duration, error) {
	for _, f := range fs {
		if err := f(); err != nil {
			return nil, err
		}
	}
	times := make([][]time.Duration, len(fs))
	for round := range n {
		for k := range fs {
			i := (round + k) % len(fs)
			start := time.Now()
			if err := fs[i](); err != nil {
				return nil, err
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	out := make([]time.Duration, len(fs))
	for i, t := range times {
		slices.Sort(t)
		out[i] = t[len(t)/2]
	}
	return out, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }
