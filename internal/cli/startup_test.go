package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// initCost is what GODEBUG=inittrace=1 reports for one package.
type initCost struct{ bytes, allocs int }

// TestStartupInit bounds what package initialisation allocates in a
// toolscope process (the lean build, judging `git status`): a hook pays it
// on every call, before any work. Allocations are deterministic, unlike
// times. The bounds hold what issue 26 removed: regexps compiled at start
// (shell's git configuration keys, 100 KB), ripgrep's type table (173
// allocations), the option tables (parsed at their first lookup, in
// package specs, not here) and the model providers' SDKs (lean: not
// linked). A package of this module that starts building tables at init
// again shows here; make it build them at first use (sync.OnceValue) if
// the commands that never use them pay for them.
func TestStartupInit(t *testing.T) {
	_, bin := buildLean(t)
	cmd := exec.Command(bin, "check", "--cwd", t.TempDir(), "--no-claude-settings", "--", "git status")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), `"behavior":"allow"`) {
		t.Fatalf("check: %v: %s\n%s", err, stdout.String(), stderr.String())
	}
	inits := map[string]initCost{}
	var total, ours initCost
	trace := stderr.String()
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		var c initCost
		if _, err := fmt.Sscan(f[7]+" "+f[9], &c.bytes, &c.allocs); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		inits[f[1]] = c
		total.bytes += c.bytes
		total.allocs += c.allocs
		if strings.HasPrefix(f[1], "github.com/toolscope/toolscope/") {
			ours.bytes += c.bytes
			ours.allocs += c.allocs
		}
	}
	if len(inits) < 50 {
		t.Fatalf("inittrace reported %d packages:\n%s", len(inits), trace)
	}
	t.Logf("package initialisation: %d packages, %d bytes in %d allocations; this module's %d bytes in %d",
		len(inits), total.bytes, total.allocs, ours.bytes, ours.allocs)

	// This module's packages (90 KB in 588 allocations at the time of
	// writing; 252 KB in 1 455 before issue 26's work): the path
	// policy's protected names and the shell analyser's command sets,
	// which every check uses.
	if ours.bytes > 120_000 || ours.allocs > 750 {
		t.Errorf("this module's packages allocate %d bytes in %d allocations at init, want at most 120 000 in 750", ours.bytes, ours.allocs)
	}
	for pkg, max := range map[string]initCost{
		"github.com/toolscope/toolscope/shell":                  {48_000, 250}, // 135 KB, 528 with its regexps
		"github.com/toolscope/toolscope/shell/internal/specs":   {4_000, 20},   // the tables are parsed at lookup
		"github.com/toolscope/toolscope/shell/internal/gitrepo": {1_000, 10},
		"github.com/toolscope/toolscope/internal/search":        {1_000, 10}, // ripgrep's types: at the first search by type
		"github.com/toolscope/toolscope/builtin":                {10_000, 40},
		"github.com/toolscope/toolscope/tool":                   {2_000, 15},
		"github.com/toolscope/toolscope/skill":                  {1_000, 10},
		"github.com/toolscope/toolscope/mcp":                    {1_000, 10},
		"github.com/toolscope/toolscope/tracing":                {2_000, 15}, // the redaction patterns: at the first redaction
		"github.com/toolscope/toolscope/subagent":               {2_000, 15},
	} {
		if c, ok := inits[pkg]; ok && (c.bytes > max.bytes || c.allocs > max.allocs) {
			t.Errorf("%s allocates %d bytes in %d allocations at init, want at most %d in %d", pkg, c.bytes, c.allocs, max.bytes, max.allocs)
		}
	}
	// The whole process, dependencies included (317 KB in 2 243
	// allocations at the time of writing; 478 KB in 3 109 before): a
	// dependency that starts doing much more at init shows here too.
	if total.bytes > 450_000 || total.allocs > 3_000 {
		t.Errorf("package initialisation allocates %d bytes in %d allocations, want at most 450 000 in 3 000", total.bytes, total.allocs)
	}
	for pkg := range inits {
		for _, sdk := range []string{"github.com/openai/openai-go", "github.com/anthropics/anthropic-sdk-go"} {
			if strings.HasPrefix(pkg, sdk) {
				t.Errorf("the lean build initialises %s", pkg)
			}
		}
	}
}
