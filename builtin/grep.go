package builtin

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"iter"
	"os"

	"github.com/toolscope/toolscope/internal/search"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

//go:embed grep.md
var grepDescription string

// Grep is the content search tool. See the package documentation.
type Grep struct{ c *config }

// NewGrep returns the Grep tool.
func NewGrep(opts *Options) *Grep { return &Grep{c: newConfig(opts)} }

type grepInput struct {
	Pattern         string `json:"pattern"`
	Path            string `json:"path,omitempty"`
	OutputMode      string `json:"output_mode,omitempty"`
	Glob            string `json:"glob,omitempty"`
	Type            string `json:"type,omitempty"`
	After           int    `json:"-A,omitempty"`
	Before          int    `json:"-B,omitempty"`
	C               int    `json:"-C,omitempty"`
	Context         int    `json:"context,omitempty"`
	N               *bool  `json:"-n,omitempty"`
	NAlias          *bool  `json:"n,omitempty"` // AgentScope's name for -n
	I               bool   `json:"-i,omitempty"`
	IAlias          bool   `json:"i,omitempty"` // AgentScope's name for -i
	CaseInsensitive bool   `json:"case_insensitive,omitempty"`
	Multiline       bool   `json:"multiline,omitempty"`
	HeadLimit       *int   `json:"head_limit,omitempty"`
	Offset          int    `json:"offset,omitempty"`
}

var grepSchema = json.RawMessage(`{"type":"object","properties":{
"pattern":{"type":"string","description":"The regular expression pattern to search for in file contents"},
"path":{"type":"string","description":"File or directory to search in (absolute). Defaults to the project root"},
"output_mode":{"type":"string","enum":["content","files_with_matches","count"],"default":"files_with_matches","description":"\"content\" shows matching lines, \"files_with_matches\" shows file paths (default), \"count\" shows match counts"},
"glob":{"type":"string","description":"Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\")"},
"type":{"type":"string","description":"File type to search (rg --type), e.g. js, py, rust, go"},
"-A":{"type":"integer","minimum":0,"description":"Lines to show after each match (content mode)"},
"-B":{"type":"integer","minimum":0,"description":"Lines to show before each match (content mode)"},
"-C":{"type":"integer","minimum":0,"description":"Lines to show before and after each match (content mode)"},
"context":{"type":"integer","minimum":0,"description":"Alias of -C"},
"-n":{"type":"boolean","default":true,"description":"Show line numbers (content mode)"},
"-i":{"type":"boolean","default":false,"description":"Case-insensitive search"},
"case_insensitive":{"type":"boolean","default":false,"description":"Alias of -i"},
"n":{"type":"boolean","description":"Alias of -n"},
"i":{"type":"boolean","description":"Alias of -i"},
"multiline":{"type":"boolean","default":false,"description":"Patterns may span lines and . matches newlines"},
"head_limit":{"type":"integer","minimum":0,"description":"Return at most this many lines or entries (default 250, 0 for all)"},
"offset":{"type":"integer","minimum":0,"default":0,"description":"Skip this many lines or entries first"}},
"required":["pattern"]}`)

// Info implements [tool.Tool].
func (g *Grep) Info() tool.Info {
	return tool.Info{Name: "Grep", Title: "Search file contents", Description: grepDescription, InputSchema: grepSchema, ReadOnly: true, ConcurrencySafe: true,
		StateInjected: true, RuleNames: []string{"Read"}, Annotations: hints(true, false, true, false)}
}

// lineNumbers is -n, or its alias n: on unless one says false.
func lineNumbers(in grepInput) bool {
	return (in.N == nil || *in.N) && (in.NAlias == nil || *in.NAlias)
}

func grepArgs(input json.RawMessage) grepInput {
	var in grepInput
	_ = json.Unmarshal(input, &in)
	return in
}

// CheckReadOnly implements [tool.ReadOnlyChecker]: searching a working
// directory (or a harmless system path) needs no permission. Secrets inside
// it are never searched (see Call).
func (g *Grep) CheckReadOnly(ctx context.Context, input json.RawMessage) bool {
	return g.c.readOK(ctx, cmp.Or(grepArgs(input).Path, g.c.root))
}

// CheckPermissions implements [tool.Tool]: searching a secret asks even when
// a rule allows it; a path outside the working directories needs the user
// or a Read rule.
func (g *Grep) CheckPermissions(_ context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error) {
	return g.c.checkRead("Grep", cmp.Or(grepArgs(input).Path, g.c.root), pc), nil
}

// MatchRule implements [tool.RuleMatcher]: the rule's glob against the path.
func (g *Grep) MatchRule(ctx context.Context, rule permission.Rule, input json.RawMessage) bool {
	var in grepInput
	_ = json.Unmarshal(input, &in)
	return g.c.matchPath(rule, in.Path)
}

// Suggestions implements [tool.Suggester]: the searched directory.
func (g *Grep) Suggestions(ctx context.Context, input json.RawMessage) []permission.Rule {
	var in grepInput
	_ = json.Unmarshal(input, &in)
	return g.c.suggestDir("Read", cmp.Or(in.Path, g.c.root))
}

func (g *Grep) engine() search.Engine {
	switch g.c.opts.GrepEngine {
	case "rg":
		return search.Ripgrep
	case "go":
		return search.GoEngine
	}
	return search.Auto
}

// Call implements [tool.Tool].
func (g *Grep) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return noted(grepSchema, call.Input, g.run(ctx, call))
}

func (g *Grep) run(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		var in grepInput
		if err := tool.DecodeInput(call.Input, &in); err != nil {
			yield(tool.Errorf("%v", err), nil)
			return
		}
		path := g.c.abs(cmp.Or(in.Path, g.c.root))
		if _, err := os.Stat(path); err != nil {
			yield(tool.Errorf("Error: Path does not exist: %s", path), nil)
			return
		}
		ctxLines := in.C
		if in.Context > 0 {
			ctxLines = in.Context
		}
		o := &search.GrepOptions{
			Pattern: in.Pattern, Path: path, OutputMode: in.OutputMode, Glob: in.Glob, Type: in.Type,
			Before: in.Before, After: in.After, Context: ctxLines, LineNumbers: lineNumbers(in),
			IgnoreCase: in.I || in.IAlias || in.CaseInsensitive, Multiline: in.Multiline, HeadLimit: in.HeadLimit, Offset: in.Offset,
			Engine: g.engine(),
		}
		o.ExcludeFold = secretGlobs()
		if call.State != nil {
			o.Exclude = g.c.searchExcludes(call.State.Permissions())
		} else {
			o.Exclude = g.c.searchExcludes(nil)
		}
		res, err := search.Grep(ctx, o)
		var te *search.ToolError
		switch {
		case errors.As(err, &te):
			yield(tool.Errorf("%s", te.Msg), nil)
			return
		case err != nil:
			yield(tool.Errorf("Grep failed: %v", err), nil)
			return
		}
		yield(&tool.Chunk{Content: []tool.Block{tool.TextBlock(res.Text)}, Metadata: map[string]any{"items": res.Items, "engine": res.Engine.String()}}, nil)
	}
}
