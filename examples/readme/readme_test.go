package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// goBlocks returns the lines of the README's Go code blocks, each block
// apart, with the whitespace at either end of a line trimmed.
func goBlocks(md string) [][]string {
	var blocks [][]string
	var cur []string
	in := false
	for _, l := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(l, "```go"):
			in, cur = true, nil
		case in && strings.HasPrefix(l, "```"):
			in = false
			blocks = append(blocks, cur)
		case in && strings.TrimSpace(l) != "":
			cur = append(cur, strings.TrimSpace(l))
		}
	}
	return blocks
}

// Every line of the README's Go blocks is in main.go, in the block's order,
// so the README's code compiles and runs as this program does.
func TestREADMEBlocksAreHere(t *testing.T) {
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(src), "\n") {
		lines = append(lines, strings.TrimSpace(l))
	}
	blocks := goBlocks(string(md))
	if len(blocks) < 3 {
		t.Fatalf("found %d Go blocks in the README, want at least 3", len(blocks))
	}
	for i, b := range blocks {
		at := 0
		for _, want := range b {
			for at < len(lines) && lines[at] != want {
				at++
			}
			if at == len(lines) {
				t.Errorf("README Go block %d: the line %q is not in examples/readme/main.go (in order): change the two together", i+1, want)
				break
			}
			at++
		}
	}
}

func TestMainOutput(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	read := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		read <- string(b)
	}()
	stdout := os.Stdout
	os.Stdout = w
	main()
	os.Stdout = stdout
	w.Close()
	out := <-read
	for _, want := range []string{"3\n", "1 tool(s) shown: {\"type\":\"function\"", "a success 42\n", "b error Input validation failed", "Glob: success ", "notes.txt"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
