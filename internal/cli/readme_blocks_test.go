package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// readmeSkips are the README's shell lines that this test does not run,
// with why and where they are run instead. Every other line runs.
var readmeSkips = map[string]string{
	"make test":                  "the test command itself (it runs this test)",
	"toolscope mcp login github": "needs a browser and GitHub's authorization server; TestMCPLogin logs in against a local one",
	"claude mcp add toolscope -- toolscope serve --cwd /path/to/project":    "needs Claude Code; TestReadmeClientConfigs starts the server the line configures, as written",
	"toolscope run --cwd ~/proj --state ~/runs/notes.json 'Tidy the notes'": "needs a model; TestConsoleBrowser pauses runs with the scripted model server",
	"toolscope console --runs ~/runs":                                       "serves until stopped; TestConsoleBrowser starts it and drives it in Chromium",
	"toolscope console --runs ~/runs --export decisions.jsonl":              "needs the runs directory; TestConsoleApprovesPausedRun exports a decision log",
}

// readmeSays are what the README says some lines answer: their output
// must say so too.
var readmeSays = map[string]string{
	"toolscope check -- 'rm -rf /'": `"behavior":"ask"`,
	"toolscope check --mode accept_edits --allow 'Bash(npm run:*)' -- 'npm run build && touch dist/.stamp'": `"behavior":"allow"`,
}

// commandPart is a README line without its comment.
func commandPart(line string) string {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}

// placeholderP is the README's example project, /p.
var placeholderP = regexp.MustCompile(`(^|[\s'"])/p(/|[\s'"]|$)`)

// readmeTemporal are the lines of the Temporal section: they need a
// Temporal server, and the temporal module's integration tests run the
// same commands (worker, run, runs, approve, deny) against a dev server.
const readmeTemporal = "cd temporal"

// Every shell line of README.md runs as pasted, in a project of its own
// (the placeholders /p and /path/to/project are that project; the model
// server is a local scripted one; HOME is the test's), and succeeds: exit
// 0, or 3 where the README says a call waits for approval. A README line
// that fails fails this test.
func TestReadmeShellBlocks(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	bin := buildCLI(t)
	if bin == "" {
		t.Fatal("no toolscope binary: go build failed (logged above)")
	}
	blocks := regexp.MustCompile("(?s)\n```(?:sh|bash)\n(.*?)```").FindAllSubmatch(readme, -1)
	if len(blocks) < 5 {
		t.Fatalf("found %d shell blocks in README.md", len(blocks))
	}
	ran := 0
	for bi, b := range blocks {
		lines := strings.Split(strings.TrimRight(string(b[1]), "\n"), "\n")
		if strings.TrimSpace(lines[0]) == readmeTemporal {
			t.Logf("block %d (the Temporal section): run by the temporal module's integration tests", bi+1)
			continue
		}
		t.Run(fmt.Sprintf("block%d", bi+1), func(t *testing.T) {
			env := readmeEnv(t, bin)
			for _, line := range lines {
				cmd := strings.TrimSpace(line)
				if cmd == "" || strings.HasPrefix(cmd, "#") {
					continue
				}
				if why, ok := readmeSkips[commandPart(line)]; ok {
					t.Logf("not run: %s: %s", cmd, why)
					continue
				}
				env.run(t, cmd)
				ran++
			}
		})
	}
	if ran < 20 {
		t.Errorf("ran %d README lines; the README has more", ran)
	}
}

// readmeProject is a README line's project and surroundings.
type readmeProject struct {
	dir, home, bin, model string
	vars                  []string // exported by earlier lines of the block
}

func readmeEnv(t *testing.T, bin string) *readmeProject {
	dir := t.TempDir()
	home := t.TempDir()
	// One "a" (the Edit line replaces it), and a Makefile with a test.
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("const v = \"a\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("test:\n\t@echo tests pass\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "cfg.json"), []byte(`{"permissions": {"allow": ["Bash(go test:*)"]}}`), 0o644)
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	// GitHub's MCP server, for the mcp list and logout lines.
	os.WriteFile(filepath.Join(dir, "github.json"), []byte(`{"mcpServers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}}`), 0o644)
	// The run: a Write that needs approval (call_1), then the answer.
	os.WriteFile(filepath.Join(dir, "answers.jsonl"), []byte(`{"text":"","tool_calls":[{"id":"call_1","name":"Write","arguments":{"file_path":"$WORK/config_test.go","content":"package p\n"}}]}
{"text":"I added the test."}
`), 0o644)
	srv := httptest.NewServer(&scriptedChat{dir: dir})
	t.Cleanup(srv.Close)
	return &readmeProject{dir: dir, home: home, bin: bin, model: srv.URL + "/v1"}
}

// run runs one README line, with its placeholders made this project's,
// and checks how it ended.
func (p *readmeProject) run(t *testing.T, line string) {
	t.Helper()
	cmd := commandPart(line)
	cmd = strings.NewReplacer(
		"go run ./cmd/toolscope", "toolscope",
		"/path/to/project", p.dir,
		"http://localhost:11434/v1", p.model,
		":8080", ":0",
	).Replace(cmd)
	cmd = placeholderP.ReplaceAllString(cmd, "${1}"+p.dir+"${2}")
	if strings.HasPrefix(cmd, "toolscope mcp ") {
		cmd += " --config github.json"
	}
	if cmd == "toolscope serve --config cfg.json --cwd "+p.dir {
		cmd += " </dev/null" // stdio: it serves until its client leaves
	}
	if strings.HasPrefix(cmd, "export ") {
		for _, kv := range strings.Fields(strings.TrimPrefix(cmd, "export ")) {
			p.vars = append(p.vars, kv)
		}
		return
	}
	long := strings.Contains(cmd, "serve --http")
	timeout := 60 * time.Second
	if long {
		timeout = 3 * time.Second // it serves until stopped: it must have started
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := exec.CommandContext(ctx, "bash", "-c", "set -o pipefail; "+cmd)
	c.Dir = p.dir
	c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
	c.WaitDelay = 5 * time.Second
	c.Env = append(os.Environ(), "PATH="+filepath.Dir(p.bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+p.home, "TOOLSCOPE_MODEL=", "OPENAI_BASE_URL=", "ANTHROPIC_BASE_URL=")
	c.Env = append(c.Env, p.vars...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	code := c.ProcessState.ExitCode()
	switch {
	case long:
		if !strings.Contains(out.String(), "serving MCP on") {
			t.Errorf("%s\n(as run: %s): did not start serving: %v\n%s", line, cmd, err, out.Bytes())
		}
	case code == 3 && strings.Contains(line, "exit 3"):
	case code != 0:
		t.Errorf("%s\n(as run: %s): exit %d\n%s", line, cmd, code, out.Bytes())
	}
	if want, ok := readmeSays[commandPart(line)]; ok && !strings.Contains(out.String(), want) {
		t.Errorf("%s: the README says it gives %s; it gave:\n%s", line, want, out.Bytes())
	}
	if slices.Contains([]string{"toolscope run --resume run.json --approve call_1 --always"}, commandPart(line)) {
		if _, err := os.Stat(filepath.Join(p.dir, "config_test.go")); err != nil {
			t.Errorf("after the approved run, the test it wrote: %v\n%s", err, out.Bytes())
		}
	}
}
