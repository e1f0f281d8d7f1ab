package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"

	"github.com/toolscope/toolscope/internal/textfile"
	"github.com/toolscope/toolscope/internal/udiff"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

//go:embed write.md
var writeDescription string

// Write is the file writing tool. See the package documentation.
type Write struct{ pathRules }

// NewWrite returns the Write tool.
func NewWrite(opts *Options) *Write { return &Write{pathRules{newConfig(opts), "Write"}} }

var writeSchema = json.RawMessage(`{"type":"object","properties":{
"file_path":{"type":"string","maxLength":4095,"description":"The absolute path to the file to write (must be absolute, not relative)"},
"content":{"type":"string","description":"The content to write to the file"}},
"required":["file_path","content"]}`)

// Info implements [tool.Tool].
func (w *Write) Info() tool.Info {
	return tool.Info{Name: "Write", Title: "Write a file", Description: writeDescription, InputSchema: writeSchema, StateInjected: true, RuleNames: []string{"Edit"},
		Annotations: hints(false, true, true, false)}
}

// CheckPermissions implements [tool.Tool]: sensitive files always ask; in
// accept_edits and dont_ask mode a path inside a working directory is allowed.
func (w *Write) CheckPermissions(_ context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error) {
	return w.c.checkEdit("Write", "writing", inputPath(input), pc), nil
}

// Call implements [tool.Tool].
func (w *Write) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return noted(writeSchema, call.Input, w.run(ctx, call))
}

func (w *Write) run(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	type input struct {
		FilePath string `json:"file_path"`
		Content  string `json:"content"`
	}
	return single(call, func(in input) *tool.Chunk { return w.write(in.FilePath, in.Content, call.State) })
}

func (w *Write) write(p, content string, st *tool.State) *tool.Chunk {
	if !filepath.IsAbs(p) {
		return w.c.absError(p)
	}
	s := lastSeen(p, st)
	lock, bad := lockFor(s)
	if bad != nil {
		return bad
	}
	defer lock.Unlock()
	var old []byte
	var was *textfile.Fingerprint
	fi, err := os.Stat(p)
	exists := err == nil
	switch {
	case exists && fi.IsDir():
		return tool.Errorf("Error: Path is a directory, not a file: %s", p)
	case exists && !fi.Mode().IsRegular():
		return tool.Errorf("Error: %s is %s, not a regular file; Write writes only regular files.", p, textfile.ModeKind(fi.Mode()))
	case exists:
		if bad := notWritable(s.canon, fi); bad != nil {
			return bad
		}
		var fp textfile.Fingerprint
		var bad *tool.Chunk
		if old, fp, bad = fresh(p, s, st, fmt.Sprintf("Error: File %s exists but has not been read yet. You must read the file first before writing to it.", p)); bad != nil {
			return bad
		}
		was = &fp
	case !errors.Is(err, fs.ErrNotExist):
		return tool.Errorf("Error writing file: %v", err)
	}
	if err := commit(p, []byte(content), st, lock, s, was); err != nil {
		return commitError(p, err, st, s)
	}
	from := "a" + p
	if !exists {
		from = "/dev/null"
	}
	verb := "written"
	if !exists {
		verb = "created"
	}
	return &tool.Chunk{
		Content:  []tool.Block{tool.TextBlock(fmt.Sprintf("The file %s has been %s successfully (%d lines).", p, verb, countLines(content)))},
		Metadata: map[string]any{"file_path": p, "created": !exists, "diff": udiff.Unified(from, "b"+p, string(old), content, 3)},
	}
}
