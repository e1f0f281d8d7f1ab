package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/internal/peers"
	"github.com/toolscope/toolscope/internal/proc"
)

// The README's configurations of toolscope serve for MCP hosts (the
// blocks after a "<!-- client-config: KIND -->" line) are started as
// written, with "toolscope" the binary and the placeholder path a project,
// by the official TypeScript SDK's StdioClientTransport, and list the
// built-in tools.
func TestReadmeClientConfigs(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)<!-- client-config: ([A-Za-z-]+) -->\n```[a-z]*\n(.*?)```").FindAllSubmatch(readme, -1)
	kinds := map[string]bool{}
	for _, b := range blocks {
		kinds[string(b[1])] = true
	}
	for _, k := range []string{"mcpServers", "vscode", "claude-mcp-add"} {
		if !kinds[k] {
			t.Fatalf("the README has no %s configuration (found %v)", k, kinds)
		}
	}
	pkg, node := peers.Need(t, "node_modules/@modelcontextprotocol/sdk/package.json", false)
	modules := filepath.Dir(filepath.Dir(filepath.Dir(pkg)))
	bin := buildCLI(t)
	if bin == "" {
		t.Fatal("no toolscope binary to start: go build failed (logged above)")
	}
	for _, b := range blocks {
		kind, text := string(b[1]), string(b[2])
		t.Run(kind, func(t *testing.T) {
			var command string
			var args []string
			switch kind {
			case "mcpServers", "vscode":
				var cfg struct {
					MCPServers, Servers map[string]struct {
						Type, Command string
						Args          []string
					}
				}
				if err := json.Unmarshal([]byte(text), &cfg); err != nil {
					t.Fatalf("%v:\n%s", err, text)
				}
				entries := cfg.MCPServers
				if kind == "vscode" {
					entries = cfg.Servers
				}
				e, ok := entries["toolscope"]
				if !ok || kind == "vscode" && e.Type != "stdio" {
					t.Fatalf("no stdio server named toolscope:\n%s", text)
				}
				command, args = e.Command, e.Args
			case "claude-mcp-add":
				fields := strings.Fields(text)
				i := strings.Index(text, " -- ")
				if len(fields) < 5 || fields[0] != "claude" || fields[1] != "mcp" || fields[2] != "add" || i < 0 {
					t.Fatalf("not a claude mcp add command: %q", text)
				}
				rest := strings.Fields(text[i+4:])
				command, args = rest[0], rest[1:]
			default:
				t.Fatalf("unknown kind %q", kind)
			}
			if command != "toolscope" {
				t.Fatalf("command %q, want toolscope", command)
			}
			// The server the client started may still be ending when the
			// client has exited (and writing its state in dir): remove dir
			// once it is done.
			dir, err := os.MkdirTemp("", "readmeclient")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				for i := 0; os.RemoveAll(dir) != nil && i < 50; i++ {
					time.Sleep(100 * time.Millisecond)
				}
			})
			for i, a := range args {
				args[i] = strings.NewReplacer("/path/to/project", dir, "${workspaceFolder}", dir).Replace(a)
			}
			argsJSON, _ := json.Marshal(args)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			// Started in / as Claude Desktop starts its servers.
			cmd := proc.Command(ctx, node, mustAbs(t, "testdata/tsclient/list.mjs"), modules, bin, string(argsJSON))
			cmd.Dir = "/"
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\n%s%s", err, out, stderr.Bytes())
			}
			for _, want := range []string{"Bash", "Read", "Write", "Edit", "Glob", "Grep"} {
				if !regexp.MustCompile(`(?m)^` + want + `$`).Match(out) {
					t.Errorf("tools %q lack %s", out, want)
				}
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
