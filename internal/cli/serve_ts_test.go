package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
				t.Fatal("no toolscope binary to start: go build failed (logged above)")
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

// The tools of issue 29 through serve, with the official TypeScript SDK
// clients on both revisions: a background shell started, read and
// killed, and WebFetch of a local page a rule allows
// (testdata/tsclient/newtools.mjs).
func TestServeTypeScriptNewTools(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><h1>Local page</h1><p>It says <b>hello</b>.</p></body></html>")
	}))
	defer page.Close()
	for _, c := range []struct{ flavour, modules string }{
		{"v1", "node_modules/@modelcontextprotocol/sdk/package.json"},
		{"v2", "ts2/node_modules/@modelcontextprotocol/client/package.json"},
	} {
		t.Run(c.flavour, func(t *testing.T) {
			pkg, node := peers.Need(t, c.modules, false)
			modules := filepath.Dir(filepath.Dir(filepath.Dir(pkg)))
			bin := buildCLI(t)
			if bin == "" {
				t.Fatal("no toolscope binary to start: go build failed (logged above)")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := proc.Command(ctx, node, "testdata/tsclient/newtools.mjs", c.flavour, modules, bin, t.TempDir(), page.URL+"/page")
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\n%s\n%s", err, out, stderr.Bytes())
			}
			got := map[string]struct {
				IsError bool
				Text    string
				Tools   []string
			}{}
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				var s struct {
					Name, Text string
					IsError    bool
					Tools      []string
				}
				if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
					t.Fatalf("%v: %s", err, sc.Bytes())
				}
				got[s.Name] = struct {
					IsError bool
					Text    string
					Tools   []string
				}{s.IsError, s.Text, s.Tools}
			}
			for _, want := range []string{"BashOutput", "KillShell", "WebFetch"} {
				if !slices.Contains(got["list"].Tools, want) {
					t.Errorf("tools %v lack %s", got["list"].Tools, want)
				}
			}
			if r := got["Bash"]; r.IsError || !strings.Contains(r.Text, "bash_") {
				t.Errorf("Bash in the background: %+v", r)
			}
			if r := got["BashOutput"]; r.IsError || !strings.Contains(r.Text, "background says hi") {
				t.Errorf("BashOutput: %+v", r)
			}
			if r := got["KillShell"]; r.IsError {
				t.Errorf("KillShell: %+v", r)
			}
			if r := got["WebFetch"]; r.IsError || !strings.Contains(r.Text, "# Local page") || !strings.Contains(r.Text, "**hello**") {
				t.Errorf("WebFetch: %+v", r)
			}
		})
	}
}
