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
	"strconv"
	"strings"

	"github.com/toolscope/toolscope/internal/textfile"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

//go:embed read.md
var readDescription string

// Read defaults.
const (
	DefaultReadLimit  = 2000
	MaxLineChars      = 2000
	MaxImageBytes     = 5 << 20
	hashLimit         = 32 << 20
	readStateExplains = "Read it again before changing it."
)

// Read is the file reading tool. See the package documentation.
type Read struct{ pathRules }

// NewRead returns the Read tool.
func NewRead(opts *Options) *Read { return &Read{pathRules{newConfig(opts), "Read"}} }

var readSchema = json.RawMessage(`{"type":"object","properties":{
"file_path":{"type":"string","maxLength":4095,"description":"The absolute path to the file to read"},
"offset":{"type":"integer","minimum":1,"default":1,"description":"The line number to start reading from (1-based)"},
"limit":{"type":"integer","minimum":1,"maximum":2000,"default":2000,"description":"The number of lines to read"},
"pages":{"type":["string","null"],"description":"Page range for PDF files, e.g. \"1-5\" or \"3\" (at most 20 pages per call; required for PDFs of more than 10 pages)"}},
"required":["file_path"]}`)

// Info implements [tool.Tool].
func (r *Read) Info() tool.Info {
	return tool.Info{Name: "Read", Title: "Read a file", Description: readDescription, InputSchema: readSchema, ReadOnly: true, ConcurrencySafe: true, StateInjected: true,
		Annotations: hints(true, false, true, false)}
}

// CheckReadOnly implements [tool.ReadOnlyChecker]: reading a file in a
// working directory (or a harmless system file) needs no permission;
// reading a secret or a file elsewhere does.
func (r *Read) CheckReadOnly(ctx context.Context, input json.RawMessage) bool {
	p := inputPath(input)
	return p != "" && r.c.readOK(ctx, p)
}

// CheckPermissions implements [tool.Tool]: a secret asks even when a rule
// allows it; a file outside the working directories needs the user or a
// Read rule.
func (r *Read) CheckPermissions(_ context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error) {
	return r.c.checkRead("Read", inputPath(input), pc), nil
}

// Call implements [tool.Tool].
func (r *Read) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return noted(readSchema, call.Input, r.run(ctx, call))
}

func (r *Read) run(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	type input struct {
		FilePath string `json:"file_path"`
		Offset   int    `json:"offset"`
		Limit    int    `json:"limit"`
		Pages    string `json:"pages"`
	}
	return single(call, func(in input) *tool.Chunk {
		if strings.EqualFold(filepath.Ext(in.FilePath), ".ipynb") && filepath.IsAbs(in.FilePath) && in.Offset == 0 && in.Limit == 0 {
			return r.readNotebook(in.FilePath, call.State)
		}
		if strings.EqualFold(filepath.Ext(in.FilePath), ".pdf") && filepath.IsAbs(in.FilePath) {
			if c := r.checkFile(in.FilePath); c != nil {
				return c
			}
			return readPDF(ctx, in.FilePath, in.Pages)
		}
		return r.read(in.FilePath, max(in.Offset, 1), in.Limit, call.State)
	})
}

// checkFile is the error for a path that is not a regular file, or nil.
func (r *Read) checkFile(p string) *tool.Chunk {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tool.Errorf("Error: File does not exist: %s", p)
	case err != nil:
		return tool.Errorf("Error reading file: %v", err)
	case fi.IsDir():
		return tool.Errorf("Error: Path is a directory, not a file: %s", p)
	case !fi.Mode().IsRegular():
		return tool.Errorf("Error: %s is %s, not a regular file; Read only reads files.", p, textfile.ModeKind(fi.Mode()))
	}
	return nil
}

func (r *Read) read(p string, offset, limit int, st *tool.State) *tool.Chunk {
	if !filepath.IsAbs(p) {
		return r.c.absError(p)
	}
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	if c := r.checkFile(p); c != nil {
		return c
	}
	fi, err := os.Stat(p)
	if err != nil {
		return tool.Errorf("Error reading file: %v", err)
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
		DataOf(st).RecordRead(record(canonical(p), s.Fingerprint(), s.Whole))
	}
	var b strings.Builder
	b.Grow(numberedLen(s.Lines) + 160) // room for the notice below too
	writeNumbered(&b, s.Lines)
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

// numberedLen is the length of what writeNumbered writes for lines.
func numberedLen(lines []textfile.Line) int {
	n := 0
	for _, l := range lines {
		n += max(6, digits(l.Number)) + 2 + len(l.Text) // number, tab, text, newline
		if l.Truncated {
			n += len(truncatedMark)
		}
	}
	return n
}

func digits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

const truncatedMark = " [truncated]"

// writeNumbered writes lines as `cat -n` does (fmt's "%6d\t%s", a line
// a line), into a builder grown beforehand by numberedLen: one
// allocation for the whole text, where growing it as it filled copied
// the text four times over, and fmt cost more than the copying.
func writeNumbered(b *strings.Builder, lines []textfile.Line) {
	var num [20]byte
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		d := strconv.AppendInt(num[:0], int64(l.Number), 10)
		for range 6 - len(d) {
			b.WriteByte(' ')
		}
		b.Write(d)
		b.WriteByte('\t')
		b.WriteString(l.Text)
		if l.Truncated {
			b.WriteString(truncatedMark)
		}
	}
}
