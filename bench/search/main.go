// Command search compares toolscope's Grep, Glob and Read tools with the
// programs a shell user would run instead, on the same input in one run, and
// prints markdown tables of median wall times.
//
//	go run ./bench/search [-root DIR] [-n N]
//
// Every toolscope measurement is a real tool call through a Toolkit (input
// validation, permission engine, the tool, result accumulation). For each
// query it times the Grep tool with the ripgrep engine, with the Go engine,
// and rg run directly with the same arguments (output discarded); for each
// pattern, the Glob tool and `rg --files --hidden -g PATTERN`; for slices of
// generated files, the Read tool and `sed -n`. Ratios are to the raw peer.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/internal/search"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// kit is a toolkit of the built-in tools over root, in bypass mode so that
// every call runs.
type kit struct {
	tk *tool.Toolkit
	st *tool.State
}

func newKit(root, engine string) (*kit, error) {
	tk, err := tool.NewToolkit(&tool.ToolkitOptions{Tools: builtin.All(&builtin.Options{Root: root, GrepEngine: engine})})
	if err != nil {
		return nil, err
	}
	return &kit{tk: tk, st: tool.NewState(&permission.Context{Mode: permission.Bypass})}, nil
}

// call runs one tool call and fails unless it succeeded.
func (k *kit) call(ctx context.Context, name string, input any) error {
	b, err := json.Marshal(input)
	if err != nil {
		return err
	}
	r, err := k.tk.Call(ctx, &tool.Call{Name: name, Input: b, State: k.st})
	if err != nil {
		return err
	}
	if r.Status != tool.StatusSuccess {
		return fmt.Errorf("%s: %s: %s", name, r.Status, r.Text())
	}
	return nil
}

// grepInput is the Grep tool's input for the same search as o.
func grepInput(o search.GrepOptions) map[string]any {
	in := map[string]any{"pattern": o.Pattern, "path": o.Path, "-n": o.LineNumbers, "-i": o.IgnoreCase}
	if o.OutputMode != "" {
		in["output_mode"] = o.OutputMode
	}
	if o.Context > 0 {
		in["-C"] = o.Context
	}
	return in
}

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
	rgKit, err := newKit(abs, "rg")
	if err != nil {
		return err
	}
	goKit, err := newKit(abs, "go")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "root: %s, %d interleaved rounds, median wall time\n\n", abs, *n)
	fmt.Fprintln(stdout, "| case | Grep tool, rg engine | Grep tool, Go engine | raw rg | rg engine / raw | Go engine / raw |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|")
	for _, q := range queries {
		o := q.opts
		o.Path = abs
		in := grepInput(o)
		t, err := medians(*n,
			func() error { return rgKit.call(ctx, "Grep", in) },
			func() error { return goKit.call(ctx, "Grep", in) },
			func() error { return rawRg(ctx, rg, abs, search.RipgrepArgs(&o)) },
		)
		if err != nil {
			return fmt.Errorf("%s: %w", q.name, err)
		}
		tRg, tGo, tRaw := t[0], t[1], t[2]
		fmt.Fprintf(stdout, "| %s | %s | %s | %s | %.2f× | %.2f× |\n", q.name, ms(tRg), ms(tGo), ms(tRaw), ratio(tRg, tRaw), ratio(tGo, tRaw))
	}

	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, "| glob | Glob tool | raw `rg --files --hidden -g` | Glob / raw | files |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|")
	for _, pattern := range []string{"**/*_test.go", "**/*.{s,go}", "net/http/**/*.go", "**/testdata/**"} {
		res, err := search.Glob(ctx, abs, pattern, nil) // the number of matches, for the table
		if err != nil {
			return fmt.Errorf("glob %s: %w", pattern, err)
		}
		t, err := medians(*n,
			func() error { return rgKit.call(ctx, "Glob", map[string]any{"pattern": pattern}) },
			func() error { return rawRg(ctx, rg, abs, []string{"--files", "--hidden", "-g", pattern}) },
		)
		if err != nil {
			return fmt.Errorf("glob %s: %w", pattern, err)
		}
		tGlob, tRaw := t[0], t[1]
		fmt.Fprintf(stdout, "| `%s` | %s | %s | %.2f× | %d |\n", pattern, ms(tGlob), ms(tRaw), ratio(tGlob, tRaw), res.Total)
	}
	return readBench(ctx, rgKit, *n, stdout)
}

// readBench compares the Read tool with sed -n on generated files: a 1 MB
// file (which Read also hashes whole, for Edit's staleness check) and a
// 100 MB one (too large to hash: Read stops after the slice).
func readBench(ctx context.Context, k *kit, n int, stdout io.Writer) error {
	sed, err := exec.LookPath("sed")
	if err != nil {
		return fmt.Errorf("sed is needed as the baseline: %w", err)
	}
	dir, err := os.MkdirTemp("", "readbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	mk := func(name string, lines int) (string, error) {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			return "", err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		for i := 1; i <= lines; i++ {
			fmt.Fprintf(w, "line %d: the quick brown fox jumps over the lazy dog, again and again and again\n", i)
		}
		if err := w.Flush(); err != nil {
			return "", err
		}
		return p, f.Close()
	}
	small, err := mk("small.txt", 12_000)
	if err != nil {
		return err
	}
	const bigLines = 1_200_000
	big, err := mk("big.txt", bigLines)
	if err != nil {
		return err
	}
	cases := []struct {
		name          string
		path          string
		offset, limit int
		sedScript     string
	}{
		{"1 MB file, lines 1-2000", small, 1, 2000, "1,2000p"},
		{"1 MB file, lines 10001-12000", small, 10001, 2000, "10001,12000p"},
		{"100 MB file, lines 1-2000", big, 1, 2000, "1,2000p;2000q"},
		{"100 MB file, last 20 lines", big, bigLines - 19, 20, fmt.Sprintf("%d,%dp", bigLines-19, bigLines)},
	}
	fmt.Fprintln(stdout)
	fmt.Fprintln(stdout, "| read | Read tool | raw `sed -n` | Read / sed |")
	fmt.Fprintln(stdout, "|---|---|---|---|")
	for _, c := range cases {
		t, err := medians(n,
			func() error {
				return k.call(ctx, "Read", map[string]any{"file_path": c.path, "offset": c.offset, "limit": c.limit})
			},
			func() error {
				cmd := exec.CommandContext(ctx, sed, "-n", c.sedScript, c.path)
				cmd.Stdout = io.Discard
				return cmd.Run()
			},
		)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		fmt.Fprintf(stdout, "| %s (`sed -n '%s'`) | %s | %s | %.2f× |\n", c.name, c.sedScript, ms(t[0]), ms(t[1]), ratio(t[0], t[1]))
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
