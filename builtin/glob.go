package builtin

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolscope/toolscope/internal/search"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

//go:embed glob.md
var globDescription string

// GlobLimit is how many files Glob returns at most.
const GlobLimit = 100

// Glob is the file-finding tool. See the package documentation.
type Glob struct{ c *config }

// NewGlob returns the Glob tool.
func NewGlob(opts *Options) *Glob { return &Glob{c: newConfig(opts)} }

type globInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
}

var globSchema = json.RawMessage(`{"type":"object","properties":{
"pattern":{"type":"string","minLength":1,"description":"The glob pattern to match files against"},
"path":{"type":"string","description":"The directory to search in (absolute). Defaults to the project root; omit it rather than passing null"}},
"required":["pattern"]}`)

// Info implements [tool.Tool].
func (g *Glob) Info() tool.Info {
	return tool.Info{Name: "Glob", Title: "Find files by name", Description: globDescription, InputSchema: globSchema, ReadOnly: true, ConcurrencySafe: true,
		StateInjected: true, RuleNames: []string{"Read"}, Annotations: hints(true, false, true, false)}
}

// dirs returns the directory Glob searches and, for an absolute pattern,
// the directory the pattern names before its first wildcard.
func (g *Glob) dirs(in globInput) []string {
	dirs := []string{cmp.Or(in.Path, g.c.root)}
	if filepath.IsAbs(in.Pattern) {
		if i := strings.IndexAny(in.Pattern, "*?[{"); i >= 0 {
			dirs = append(dirs, filepath.Dir(in.Pattern[:i]+"x"))
		} else {
			dirs = append(dirs, in.Pattern)
		}
	}
	return dirs
}

// CheckReadOnly implements [tool.ReadOnlyChecker]: listing a working
// directory (or a harmless system directory) needs no permission.
func (g *Glob) CheckReadOnly(ctx context.Context, input json.RawMessage) bool {
	for _, d := range g.dirs(globArgs(input)) {
		if !g.c.readOK(ctx, d) {
			return false
		}
	}
	return true
}

// CheckPermissions implements [tool.Tool]: listing a secret directory asks
// even when a rule allows it; a directory outside the working directories
// needs the user or a Read rule.
func (g *Glob) CheckPermissions(_ context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error) {
	var d permission.Decision
	for _, dir := range g.dirs(globArgs(input)) {
		d = g.c.checkRead("Glob", dir, pc)
		if d.Behavior != permission.Passthrough || d.Reason != "" {
			return d, nil
		}
	}
	return d, nil
}

func globArgs(input json.RawMessage) globInput {
	var in globInput
	_ = json.Unmarshal(input, &in)
	return in
}

// MatchRule implements [tool.RuleMatcher]: the rule's glob against the search
// directory, then against the pattern.
func (g *Glob) MatchRule(ctx context.Context, rule permission.Rule, input json.RawMessage) bool {
	in := globArgs(input)
	return g.c.matchPath(rule, in.Path) || g.c.matchPath(rule, in.Pattern)
}

// Suggestions implements [tool.Suggester]: the search directory.
func (g *Glob) Suggestions(ctx context.Context, input json.RawMessage) []permission.Rule {
	in := globArgs(input)
	return []permission.Rule{{Tool: "Read", Content: g.c.rulePath(canonical(g.c.abs(cmp.Or(in.Path, g.c.root)))), Behavior: permission.Allow, Source: "suggested"}}
}

// Call implements [tool.Tool].
func (g *Glob) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return noted(globSchema, call.Input, g.run(ctx, call))
}

func (g *Glob) run(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		in := globArgs(call.Input)
		dir := g.c.abs(cmp.Or(in.Path, g.c.root))
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			yield(tool.Errorf("Directory not found: %s", dir), nil)
			return
		}
		var pc *permission.Context
		if call.State != nil {
			pc = call.State.Permissions()
		}
		res, err := search.Glob(ctx, dir, in.Pattern, &search.GlobOptions{Limit: GlobLimit, Exclude: g.c.searchExcludes(pc), ExcludeFold: secretGlobs()})
		if err != nil {
			yield(tool.Errorf("Error: %v", err), nil)
			return
		}
		if len(res.Files) == 0 {
			yield(tool.Text("No files found matching pattern: "+in.Pattern), nil)
			return
		}
		text := strings.Join(res.Files, "\n")
		if res.Truncated {
			text += fmt.Sprintf("\n(Results are truncated: showing the %d most recently modified of %d files. Use a more specific path or pattern.)", len(res.Files), res.Total)
		}
		yield(&tool.Chunk{Content: []tool.Block{tool.TextBlock(text)}, Metadata: map[string]any{"total": res.Total, "truncated": res.Truncated}}, nil)
	}
}
