package search

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// RipgrepArgs returns the rg argument vector the reference builds for o
// (everything after the program name), ending with o.Path.
func RipgrepArgs(o *GrepOptions) []string {
	args := []string{"--hidden"}
	for _, d := range vcsDirs {
		args = append(args, "--glob", "!"+d)
	}
	args = append(args, "--max-columns", "500")
	if o.Multiline {
		args = append(args, "-U", "--multiline-dotall")
	}
	if o.IgnoreCase {
		args = append(args, "-i")
	}
	switch o.OutputMode {
	case ModeFilesWithMatches, "":
		args = append(args, "-l")
	case ModeCount:
		args = append(args, "-c")
	}
	if o.OutputMode == ModeContent {
		if o.LineNumbers {
			args = append(args, "-n")
		}
		switch {
		case o.Context > 0:
			args = append(args, "-C", strconv.Itoa(o.Context))
		default:
			if o.Before > 0 {
				args = append(args, "-B", strconv.Itoa(o.Before))
			}
			if o.After > 0 {
				args = append(args, "-A", strconv.Itoa(o.After))
			}
		}
	}
	if strings.HasPrefix(o.Pattern, "-") {
		args = append(args, "-e", o.Pattern)
	} else {
		args = append(args, o.Pattern)
	}
	if o.Type != "" {
		args = append(args, "--type", o.Type)
	}
	for _, g := range splitGlobs(o.Glob) {
		args = append(args, "--glob", g)
	}
	return append(args, o.Path)
}

// runRipgrep runs rg in the search directory (so relative globs mean the same
// as in the Go engine), streaming its stdout to out.
func runRipgrep(ctx context.Context, o *GrepOptions, isDir bool, out io.Writer) error {
	rg, err := lookRg(o.RgPath)
	if err != nil {
		return toolErrorf("ripgrep error (code 127): %v", err)
	}
	cmd := exec.CommandContext(ctx, rg, RipgrepArgs(o)...)
	cmd.Dir = searchDir(o.Path, isDir)
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() == 1: // no match
	case errors.As(err, &ee):
		return toolErrorf("ripgrep error (code %d): %s", ee.ExitCode(), strings.TrimSpace(stderr.String()))
	default:
		return toolErrorf("ripgrep error (code 127): %v", err)
	}
	return nil
}
