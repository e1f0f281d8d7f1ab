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
	"strings"
	"unsafe"

	"github.com/toolscope/toolscope/internal/textfile"
	"github.com/toolscope/toolscope/internal/udiff"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

//go:embed edit.md
var editDescription string

// maxEditSize is the largest file Edit changes: it holds the file, the
// changed copy and the diff shown to the model in memory (about four times
// the file's size at peak). Larger files are refused with a message that
// names a streaming alternative.
const maxEditSize = 64 << 20

// Edit is the exact-replacement editing tool. See the package documentation.
type Edit struct{ pathRules }

// NewEdit returns the Edit tool.
func NewEdit(opts *Options) *Edit { return &Edit{pathRules{newConfig(opts), "Edit"}} }

var editSchema = json.RawMessage(`{"type":"object","properties":{
"file_path":{"type":"string","maxLength":4095,"description":"The absolute path to the file to modify"},
"old_string":{"type":"string","description":"The text to replace"},
"new_string":{"type":"string","description":"The text to replace it with (must be different from old_string)"},
"replace_all":{"type":"boolean","default":false,"description":"Replace all occurrences of old_string (default false)"}},
"required":["file_path","old_string","new_string"]}`)

// Info implements [tool.Tool].
func (e *Edit) Info() tool.Info {
	return tool.Info{Name: "Edit", Title: "Edit a file", Description: editDescription, InputSchema: editSchema, StateInjected: true,
		Annotations: hints(false, true, false, false)}
}

// CheckPermissions implements [tool.Tool], like Write's.
func (e *Edit) CheckPermissions(_ context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error) {
	return e.c.checkEdit("Edit", "editing", inputPath(input), pc), nil
}

// Call implements [tool.Tool].
func (e *Edit) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return noted(editSchema, call.Input, e.run(ctx, call))
}

func (e *Edit) run(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	type input struct {
		FilePath   string `json:"file_path"`
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	}
	return single(call, func(in input) *tool.Chunk {
		return e.edit(in.FilePath, in.OldString, in.NewString, in.ReplaceAll, call.State)
	})
}

func (e *Edit) edit(p, oldS, newS string, all bool, st *tool.State) *tool.Chunk {
	if !filepath.IsAbs(p) {
		return e.c.absError(p)
	}
	if oldS == newS {
		return tool.Errorf("Error: old_string and new_string are identical. No changes to make.")
	}
	s := lastSeen(p, st)
	lock, bad := lockFor(s)
	if bad != nil {
		return bad
	}
	defer lock.Unlock()
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist) && oldS == "":
		if err := commit(p, []byte(newS), st, lock, s, nil); err != nil {
			return commitError(p, err, st, s)
		}
		return &tool.Chunk{Content: []tool.Block{tool.TextBlock(fmt.Sprintf("Created the new file %s (%d lines).", p, countLines(newS)))},
			Metadata: map[string]any{"file_path": p, "created": true, "occurrences": 0, "diff": udiff.Unified("/dev/null", "b"+p, "", newS, 3)}}
	case errors.Is(err, fs.ErrNotExist):
		return tool.Errorf("Error: File not found: %s (to create a file, use Write)", p)
	case err != nil:
		return tool.Errorf("Error reading file: %v", err)
	case fi.IsDir():
		return tool.Errorf("Error: Path is a directory, not a file: %s", p)
	case !fi.Mode().IsRegular():
		return tool.Errorf("Error: %s is %s, not a regular file; Edit changes only regular files.", p, textfile.ModeKind(fi.Mode()))
	case oldS == "":
		return tool.Errorf("Error: old_string is empty, but %s already exists. To insert text, put the text next to the insertion point in old_string and that text plus the insertion in new_string; to replace the whole file, use Write.", p)
	case fi.Size() > maxEditSize:
		return tool.Errorf("Error: %s is %d bytes, more than the %d bytes Edit changes in memory. Edit it with a streaming tool through Bash (sed -i, perl -pi) or split it.", p, fi.Size(), maxEditSize)
	}
	if bad := notWritable(s.canon, fi); bad != nil {
		return bad
	}
	data, was, bad := fresh(p, s, st, "Error: To edit a file, you must first read it using the Read tool.", maxEditSize)
	if bad != nil {
		return bad
	}
	if data == nil && was.Size > 0 { // it grew past the limit since the Stat above
		return tool.Errorf("Error: %s is %d bytes, more than the %d bytes Edit changes in memory. Edit it with a streaming tool through Bash (sed -i, perl -pi) or split it.", p, was.Size, maxEditSize)
	}
	// The file's bytes are read as a string without a copy (data is not
	// changed after this point): Edit's memory is the file, the changed
	// copy and the diff.
	content := bytesAsString(data)
	if textfile.DetectCRLF(data) {
		oldS, newS = textfile.ToCRLF(oldS), textfile.ToCRLF(newS)
	}
	n := strings.Count(content, oldS)
	switch {
	case n == 0:
		return tool.Errorf("Error: old_string not found in %s. It must match the file exactly, including whitespace and indentation, without Read's line-number prefixes.", p)
	case n > 1 && !all:
		return tool.Errorf("Error: old_string appears %d times in %s. Set replace_all=true to replace all occurrences, or make old_string more specific.", n, p)
	}
	var updated string
	if all {
		updated = strings.ReplaceAll(content, oldS, newS)
	} else {
		updated = strings.Replace(content, oldS, newS, 1)
	}
	if err := commit(p, stringAsBytes(updated), st, lock, s, &was); err != nil {
		return commitError(p, err, st, s)
	}
	msg := fmt.Sprintf("Successfully replaced 1 occurrence in %s", p)
	if all {
		msg = fmt.Sprintf("Successfully replaced all %d occurrences in %s", n, p)
	}
	return &tool.Chunk{Content: []tool.Block{tool.TextBlock(msg)},
		Metadata: map[string]any{"file_path": p, "occurrences": n, "diff": udiff.Unified("a"+p, "b"+p, content, updated, 3)}}
}

// bytesAsString views b as a string; b must not change afterwards.
func bytesAsString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// stringAsBytes views s as bytes, which must not be changed.
func stringAsBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
