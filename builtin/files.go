package builtin

import (
	"context"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolscope/toolscope/internal/textfile"
	"github.com/toolscope/toolscope/internal/udiff"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

var (
	//go:embed read.md
	readDescription string
	//go:embed write.md
	writeDescription string
	//go:embed edit.md
	editDescription string
)

// Read defaults.
const (
	DefaultReadLimit  = 2000
	MaxLineChars      = 2000
	MaxImageBytes     = 5 << 20
	hashLimit         = 32 << 20
	readStateExplains = "Read it again before changing it."
)

type pathInput struct {
	FilePath string `json:"file_path"`
}

func inputPath(input json.RawMessage) string {
	var in pathInput
	_ = json.Unmarshal(input, &in)
	return in.FilePath
}

// absError is the error for a relative path: it names the absolute path the
// model probably meant.
func (c *config) absError(p string) *tool.Chunk {
	return tool.Errorf("Error: file_path must be an absolute path, got: %s (relative to the project root that would be %s)", p, filepath.Join(c.root, p))
}

// record turns a fingerprint into the read state's record.
func record(path string, fp textfile.Fingerprint, whole bool) tool.FileRecord {
	r := tool.FileRecord{Path: path, Size: fp.Size, ModTime: fp.ModTime, Whole: whole}
	if fp.Hashed {
		r.SHA256 = hex.EncodeToString(fp.SHA256[:])
	}
	return r
}

// Read is the file reading tool. See the package documentation.
type Read struct{ c *config }

// NewRead returns the Read tool.
func NewRead(opts *Options) *Read { return &Read{c: newConfig(opts)} }

var readSchema = mustJSON(`{"type":"object","properties":{
"file_path":{"type":"string","description":"The absolute path to the file to read"},
"offset":{"type":"integer","minimum":1,"default":1,"description":"The line number to start reading from (1-based)"},
"limit":{"type":"integer","minimum":1,"maximum":2000,"default":2000,"description":"The number of lines to read"}},
"required":["file_path"],"additionalProperties":false}`)

// Info implements [tool.Tool].
func (r *Read) Info() tool.Info {
	return tool.Info{Name: "Read", Description: readDescription, InputSchema: readSchema, ReadOnly: true, ConcurrencySafe: true, StateInjected: true}
}

// CheckPermissions implements [tool.Tool]: Read has no opinion; it is read-only.
func (r *Read) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Passthrough, Message: "Read has no opinion"}, nil
}

// MatchRule implements [tool.RuleMatcher] with path globs ("src/**").
func (r *Read) MatchRule(rule permission.Rule, input json.RawMessage) bool {
	return r.c.matchPath(rule, inputPath(input))
}

// Suggestions implements [tool.Suggester]: the file's directory.
func (r *Read) Suggestions(input json.RawMessage) []permission.Rule {
	return r.c.suggestDir("Read", inputPath(input))
}

// Call implements [tool.Tool].
func (r *Read) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		var in struct {
			FilePath string `json:"file_path"`
			Offset   int    `json:"offset"`
			Limit    int    `json:"limit"`
		}
		if err := json.Unmarshal(call.Input, &in); err != nil {
			yield(tool.Errorf("Invalid input: %v", err), nil)
			return
		}
		yield(r.read(in.FilePath, max(in.Offset, 1), in.Limit, call.State), nil)
	}
}

func (r *Read) read(p string, offset, limit int, st *tool.State) *tool.Chunk {
	if !filepath.IsAbs(p) {
		return r.c.absError(p)
	}
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tool.Errorf("Error: File does not exist: %s", p)
	case err != nil:
		return tool.Errorf("Error reading file: %v", err)
	case fi.IsDir():
		return tool.Errorf("Error: Path is a directory, not a file: %s", p)
	case !fi.Mode().IsRegular():
		return tool.Errorf("Error: %s is not a regular file (it is a %s); Read only reads files.", p, fi.Mode().Type())
	}
	kind, media, err := textfile.Sniff(p)
	if err != nil {
		return tool.Errorf("Error reading file: %v", err)
	}
	switch kind {
	case textfile.Image:
		if fi.Size() > MaxImageBytes {
			return tool.Errorf("Error: the image %s is %d bytes, more than the %d bytes Read returns. Resize it first (for example with Bash and ImageMagick's convert).", p, fi.Size(), MaxImageBytes)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return tool.Errorf("Error reading file: %v", err)
		}
		b := tool.DataBlock(media, data)
		b.Name = filepath.Base(p)
		return &tool.Chunk{Content: []tool.Block{b}, Metadata: map[string]any{"file_path": p, "media_type": media, "bytes": len(data)}}
	case textfile.Binary:
		return tool.Errorf("Error: %s is a binary file (%d bytes); Read shows text files and images (PNG, JPEG, GIF, WebP). Inspect it with Bash instead, e.g. `file %s` or `xxd %s | head`.", p, fi.Size(), p, p)
	}
	s, err := textfile.ReadLines(p, &textfile.ReadOptions{Offset: offset, Limit: limit, MaxLineChars: MaxLineChars, HashLimit: hashLimit})
	if err != nil {
		return tool.Errorf("Error reading file: %v", err)
	}
	if st != nil {
		st.RecordRead(record(canonical(p), s.Fingerprint(), s.Whole))
	}
	var b strings.Builder
	for i, l := range s.Lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\t%s", l.Number, l.Text)
		if l.Truncated {
			b.WriteString(" [truncated]")
		}
	}
	meta := map[string]any{"file_path": p, "lines": len(s.Lines)}
	switch {
	case s.Size == 0:
		b.WriteString("<system-reminder>Warning: the file exists but its contents are empty.</system-reminder>")
	case len(s.Lines) == 0:
		n := "fewer"
		if s.TotalLinesKnown {
			n = fmt.Sprint(s.TotalLines)
		}
		fmt.Fprintf(&b, "<system-reminder>Warning: the file has %s lines, so offset %d is past its end.</system-reminder>", n, offset)
	case s.More:
		last := s.Lines[len(s.Lines)-1].Number
		if s.TotalLinesKnown {
			fmt.Fprintf(&b, "\n\n[Showing lines %d-%d of %d. Use offset=%d to read on.]", s.Lines[0].Number, last, s.TotalLines, last+1)
		} else {
			fmt.Fprintf(&b, "\n\n[Showing lines %d-%d; the file has more. Use offset=%d to read on.]", s.Lines[0].Number, last, last+1)
		}
		meta["more"] = true
	}
	return &tool.Chunk{Content: []tool.Block{tool.TextBlock(b.String())}, Metadata: meta}
}

// fresh checks, before Write or Edit change the existing file at path, that
// the agent read it and that it did not change since. It returns the file's
// current content.
func fresh(path string, st *tool.State, notRead string) ([]byte, *tool.Chunk) {
	canon := canonical(path)
	rec, ok := tool.FileRecord{}, false
	if st != nil {
		rec, ok = st.LastRead(canon)
	}
	if !ok {
		return nil, tool.Errorf("%s", notRead)
	}
	fp, data, err := textfile.FingerprintFile(canon, hashLimit)
	if err != nil {
		return nil, tool.Errorf("Error reading file: %v", err)
	}
	stale := fp.Size != rec.Size || !fp.ModTime.Equal(rec.ModTime)
	if !stale && rec.SHA256 != "" && fp.Hashed {
		stale = hex.EncodeToString(fp.SHA256[:]) != rec.SHA256
	}
	if stale {
		st.ForgetRead(canon)
		return nil, tool.Errorf("Error: File %s has been modified since it was last read (by the user or another program). %s", path, readStateExplains)
	}
	if data == nil { // too large to hash: read it whole now
		if data, err = os.ReadFile(canon); err != nil {
			return nil, tool.Errorf("Error reading file: %v", err)
		}
	}
	return data, nil
}

// commit writes data to path atomically and records the new content in the
// state, so a following Edit needs no new Read.
func commit(path string, data []byte, st *tool.State) error {
	if err := textfile.WriteAtomic(path, data, &textfile.WriteOptions{CreateDirs: true}); err != nil {
		return err
	}
	if st != nil {
		canon := canonical(path)
		if fp, _, err := textfile.FingerprintFile(canon, hashLimit); err == nil {
			st.RecordRead(record(canon, fp, true))
		}
	}
	return nil
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// Write is the file writing tool. See the package documentation.
type Write struct{ c *config }

// NewWrite returns the Write tool.
func NewWrite(opts *Options) *Write { return &Write{c: newConfig(opts)} }

var writeSchema = mustJSON(`{"type":"object","properties":{
"file_path":{"type":"string","description":"The absolute path to the file to write (must be absolute, not relative)"},
"content":{"type":"string","description":"The content to write to the file"}},
"required":["file_path","content"],"additionalProperties":false}`)

// Info implements [tool.Tool].
func (w *Write) Info() tool.Info {
	return tool.Info{Name: "Write", Description: writeDescription, InputSchema: writeSchema, StateInjected: true}
}

// CheckPermissions implements [tool.Tool]: sensitive files always ask; in
// accept_edits and dont_ask mode a path inside a working directory is allowed.
func (w *Write) CheckPermissions(_ context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error) {
	return w.c.checkEdit("writing", inputPath(input), pc), nil
}

// MatchRule implements [tool.RuleMatcher] with path globs.
func (w *Write) MatchRule(rule permission.Rule, input json.RawMessage) bool {
	return w.c.matchPath(rule, inputPath(input))
}

// Suggestions implements [tool.Suggester]: the file's directory.
func (w *Write) Suggestions(input json.RawMessage) []permission.Rule {
	return w.c.suggestDir("Write", inputPath(input))
}

// Call implements [tool.Tool].
func (w *Write) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		var in struct {
			FilePath string `json:"file_path"`
			Content  string `json:"content"`
		}
		if err := json.Unmarshal(call.Input, &in); err != nil {
			yield(tool.Errorf("Invalid input: %v", err), nil)
			return
		}
		yield(w.write(in.FilePath, in.Content, call.State), nil)
	}
}

func (w *Write) write(p, content string, st *tool.State) *tool.Chunk {
	if !filepath.IsAbs(p) {
		return w.c.absError(p)
	}
	var old []byte
	fi, err := os.Stat(p)
	exists := err == nil
	switch {
	case exists && fi.IsDir():
		return tool.Errorf("Error: Path is a directory, not a file: %s", p)
	case exists:
		var bad *tool.Chunk
		if old, bad = fresh(p, st, fmt.Sprintf("Error: File %s exists but has not been read yet. You must read the file first before writing to it.", p)); bad != nil {
			return bad
		}
	case !errors.Is(err, fs.ErrNotExist):
		return tool.Errorf("Error writing file: %v", err)
	}
	if err := commit(p, []byte(content), st); err != nil {
		return tool.Errorf("Error writing file: %v", err)
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

// Edit is the exact-replacement editing tool. See the package documentation.
type Edit struct{ c *config }

// NewEdit returns the Edit tool.
func NewEdit(opts *Options) *Edit { return &Edit{c: newConfig(opts)} }

var editSchema = mustJSON(`{"type":"object","properties":{
"file_path":{"type":"string","description":"The absolute path to the file to modify"},
"old_string":{"type":"string","description":"The text to replace"},
"new_string":{"type":"string","description":"The text to replace it with (must be different from old_string)"},
"replace_all":{"type":"boolean","default":false,"description":"Replace all occurrences of old_string (default false)"}},
"required":["file_path","old_string","new_string"],"additionalProperties":false}`)

// Info implements [tool.Tool].
func (e *Edit) Info() tool.Info {
	return tool.Info{Name: "Edit", Description: editDescription, InputSchema: editSchema, StateInjected: true}
}

// CheckPermissions implements [tool.Tool], like Write's.
func (e *Edit) CheckPermissions(_ context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error) {
	return e.c.checkEdit("editing", inputPath(input), pc), nil
}

// MatchRule implements [tool.RuleMatcher] with path globs.
func (e *Edit) MatchRule(rule permission.Rule, input json.RawMessage) bool {
	return e.c.matchPath(rule, inputPath(input))
}

// Suggestions implements [tool.Suggester]: the file's directory.
func (e *Edit) Suggestions(input json.RawMessage) []permission.Rule {
	return e.c.suggestDir("Edit", inputPath(input))
}

// Call implements [tool.Tool].
func (e *Edit) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		var in struct {
			FilePath   string `json:"file_path"`
			OldString  string `json:"old_string"`
			NewString  string `json:"new_string"`
			ReplaceAll bool   `json:"replace_all"`
		}
		if err := json.Unmarshal(call.Input, &in); err != nil {
			yield(tool.Errorf("Invalid input: %v", err), nil)
			return
		}
		yield(e.edit(in.FilePath, in.OldString, in.NewString, in.ReplaceAll, call.State), nil)
	}
}

func (e *Edit) edit(p, oldS, newS string, all bool, st *tool.State) *tool.Chunk {
	if !filepath.IsAbs(p) {
		return e.c.absError(p)
	}
	if oldS == newS {
		return tool.Errorf("Error: old_string and new_string are identical. No changes to make.")
	}
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist) && oldS == "":
		if err := commit(p, []byte(newS), st); err != nil {
			return tool.Errorf("Error writing file: %v", err)
		}
		return &tool.Chunk{Content: []tool.Block{tool.TextBlock(fmt.Sprintf("Created the new file %s (%d lines).", p, countLines(newS)))},
			Metadata: map[string]any{"file_path": p, "created": true, "occurrences": 0, "diff": udiff.Unified("/dev/null", "b"+p, "", newS, 3)}}
	case errors.Is(err, fs.ErrNotExist):
		return tool.Errorf("Error: File not found: %s (to create a file, use Write)", p)
	case err != nil:
		return tool.Errorf("Error reading file: %v", err)
	case fi.IsDir():
		return tool.Errorf("Error: Path is a directory, not a file: %s", p)
	case oldS == "":
		return tool.Errorf("Error: old_string is empty, but %s already exists. To insert text, put the text next to the insertion point in old_string and that text plus the insertion in new_string; to replace the whole file, use Write.", p)
	}
	data, bad := fresh(p, st, "Error: To edit a file, you must first read it using the Read tool.")
	if bad != nil {
		return bad
	}
	content := string(data)
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
	if err := commit(p, []byte(updated), st); err != nil {
		return tool.Errorf("Error writing file: %v", err)
	}
	msg := fmt.Sprintf("Successfully replaced 1 occurrence in %s", p)
	if all {
		msg = fmt.Sprintf("Successfully replaced all %d occurrences in %s", n, p)
	}
	return &tool.Chunk{Content: []tool.Block{tool.TextBlock(msg)},
		Metadata: map[string]any{"file_path": p, "occurrences": n, "diff": udiff.Unified("a"+p, "b"+p, content, updated, 3)}}
}
