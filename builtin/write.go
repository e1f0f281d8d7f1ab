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

// maxWriteDiff is the largest content, old or new, of which Write returns a
// unified diff. Beyond it the diff (which holds both sides, and the old file
// read whole) would cost several times the file's size in memory and in
// the result, to show the model what it already knows: the result's
// metadata then carries "diff_omitted", a one-line summary of the sizes,
// and the old file is never read whole. Writing itself has no size limit.
const maxWriteDiff = 8 << 20

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
	return single(call, func(in input) *tool.Chunk { return w.write(ctx, in.FilePath, in.Content, call.State) })
}

func (w *Write) write(ctx context.Context, p, content string, st *tool.State) *tool.Chunk {
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
		if old, fp, bad = fresh(p, s, st, fmt.Sprintf("Error: File %s exists but has not been read yet. You must read the file first before writing to it.", p), maxWriteDiff); bad != nil {
			return bad
		}
		was = &fp
	case !errors.Is(err, fs.ErrNotExist):
		return tool.Errorf("Error writing file: %v", err)
	}
	if ctx.Err() != nil {
		return tool.Errorf("Error: the call was cancelled before %s was written; it is unchanged.", p)
	}
	// The content is written from the input's string without a copy.
	if err := commit(p, stringAsBytes(content), st, lock, s, was); err != nil {
		return commitError(p, err, st, s)
	}
	from, verb := "a"+p, "written"
	if !exists {
		from, verb = "/dev/null", "created"
	}
	lines := countLines(content)
	meta := map[string]any{"file_path": p, "created": !exists}
	switch {
	case exists && old == nil && was.Size > 0, len(content) > maxWriteDiff:
		meta["diff_omitted"] = diffSummary(exists, was, len(content), lines)
	default:
		meta["diff"] = udiff.Unified(from, "b"+p, bytesAsString(old), content, 3)
	}
	return &tool.Chunk{
		Content:  []tool.Block{tool.TextBlock(fmt.Sprintf("The file %s has been %s successfully (%d lines).", p, verb, lines))},
		Metadata: meta,
	}
}

// diffSummary stands for the diff of a write too large to diff.
func diffSummary(exists bool, was *textfile.Fingerprint, size, lines int) string {
	const why = "no diff is made when either side is over %d bytes"
	if !exists {
		return fmt.Sprintf("created with %d bytes (%d lines); "+why, size, lines, maxWriteDiff)
	}
	return fmt.Sprintf("replaced %d bytes with %d bytes (%d lines); "+why, was.Size, size, lines, maxWriteDiff)
}
