package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolscope/toolscope/internal/peers"
	"github.com/toolscope/toolscope/internal/proc"
)

// The official TypeScript SDK clients against `toolscope serve` on stdio:
// @modelcontextprotocol/sdk 1.32 (protocol 2025-11-25: asked by an
// elicitation request) and @modelcontextprotocol/client 2.4 pinned to
// 2026-07-28 (asked by an input_required result, answered by a retry).
// Each lists the tools, then Writes three files with the user answering
// allow, decline and always, then writes again what "always" covers, which
// runs without asking (testdata/tsclient/approve.mjs).
func TestServeTypeScriptClients(t *testing.T) {
	for _, c := range []struct{ flavour, modules, era string }{
		{"v1", "node_modules/@modelcontextprotocol/sdk/package.json", "legacy"},
		{"v2", "ts2/node_modules/@modelcontextprotocol/client/package.json", "modern"},
	} {
		t.Run(c.flavour, func(t *testing.T) {
			pkg, node := peers.Need(t, c.modules, false)
			modules := filepath.Dir(filepath.Dir(filepath.Dir(pkg))) // the node_modules holding the package
			bin := buildCLI(t)
			if bin == "" {
				t.Skip("no toolscope binary to start (go build failed)")
			}
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := proc.Command(ctx, node, "testdata/tsclient/approve.mjs", c.flavour, modules, bin, dir)
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\n%s\n%s", err, out, stderr.Bytes())
			}
			type step struct {
				Step, Era, Name, Text string
				Tools                 []string
				IsError               bool
				Asked                 int
			}
			var steps []step
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				var s step
				if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
					t.Fatalf("%v: %s", err, sc.Bytes())
				}
				steps = append(steps, s)
			}
			if len(steps) != 6 || steps[0].Era != c.era || len(steps[1].Tools) < 6 {
				t.Fatalf("steps: %+v\n%s", steps, stderr.Bytes())
			}
			for i, want := range []struct {
				isError bool
				asked   int
			}{{false, 1}, {true, 1}, {false, 1}, {false, 0}} {
				if s := steps[2+i]; s.IsError != want.isError || s.Asked != want.asked {
					t.Errorf("call %d (%s): error %v, asked %d; want %v, %d: %q", i+1, s.Name, s.IsError, s.Asked, want.isError, want.asked, s.Text)
				}
			}
			for name, want := range map[string]bool{"one.txt": true, "two.txt": false, "three.txt": true} {
				if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
					t.Errorf("%s exists %v, want %v", name, err == nil, want)
				}
			}
		})
	}
}
