package builtin

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolscope/toolscope/internal/textfile"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

//go:embed notebook.md
var notebookDescription string

// maxNotebookBytes is the largest notebook Read shows and NotebookEdit
// changes (in memory, as JSON).
const maxNotebookBytes = 32 << 20

// NotebookEdit changes one cell of a Jupyter notebook. See the package
// documentation.
type NotebookEdit struct{ c *config }

// NewNotebookEdit returns the NotebookEdit tool.
func NewNotebookEdit(opts *Options) *NotebookEdit { return &NotebookEdit{newConfig(opts)} }

var notebookSchema = json.RawMessage(`{"type":"object","properties":{
"notebook_path":{"type":"string","maxLength":4095,"description":"The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)"},
"cell_id":{"type":"string","description":"The ID of the cell to edit. When inserting a new cell, the new cell is inserted after the cell with this ID, or at the beginning if not specified"},
"new_source":{"type":"string","description":"The new source for the cell"},
"cell_type":{"type":"string","enum":["code","markdown"],"description":"The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required"},
"edit_mode":{"type":"string","enum":["replace","insert","delete"],"description":"The type of edit to make (replace, insert, delete). Defaults to replace"}},
"required":["notebook_path","new_source"]}`)

// Info implements [tool.Tool]. Edit rules govern it, as they do Write.
func (n *NotebookEdit) Info() tool.Info {
	return tool.Info{Name: "NotebookEdit", Title: "Edit a notebook cell", Description: notebookDescription, InputSchema: notebookSchema,
		StateInjected: true, RuleNames: []string{"Edit"}, Annotations: hints(false, true, false, false)}
}

func notebookPath(input json.RawMessage) string {
	var in struct {
		Path string `json:"notebook_path"`
	}
	_ = json.Unmarshal(input, &in)
	return in.Path
}

// CheckPermissions implements [tool.Tool]: as an Edit of the notebook.
func (n *NotebookEdit) CheckPermissions(_ context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error) {
	return n.c.checkEdit("NotebookEdit", "editing", notebookPath(input), pc), nil
}

// MatchRule implements [tool.RuleMatcher]: path globs on the notebook.
func (n *NotebookEdit) MatchRule(_ context.Context, rule permission.Rule, input json.RawMessage) bool {
	return n.c.matchPath(rule, notebookPath(input))
}

// Suggestions implements [tool.Suggester]: Edit of the notebook's directory.
func (n *NotebookEdit) Suggestions(_ context.Context, input json.RawMessage) []permission.Rule {
	return n.c.suggestDir("Edit", notebookPath(input))
}

// Call implements [tool.Tool].
func (n *NotebookEdit) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	type input struct {
		Path     string `json:"notebook_path"`
		CellID   string `json:"cell_id"`
		Source   string `json:"new_source"`
		CellType string `json:"cell_type"`
		Mode     string `json:"edit_mode"`
	}
	return noted(notebookSchema, call.Input, single(call, func(in input) *tool.Chunk {
		return n.edit(in.Path, in.CellID, in.Source, in.CellType, cmpOrStr(in.Mode, "replace"), call.State)
	}))
}

func cmpOrStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// notebook is a notebook's JSON, every key kept (json.Number for numbers).
type notebook map[string]any

func parseNotebook(data []byte) (notebook, []map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var nb notebook
	if err := d.Decode(&nb); err != nil {
		return nil, nil, fmt.Errorf("it is not a notebook's JSON: %v", err)
	}
	raw, ok := nb["cells"].([]any)
	if !ok {
		return nil, nil, errors.New(`it has no "cells" list, as a Jupyter notebook has`)
	}
	cells := make([]map[string]any, 0, len(raw))
	for i, c := range raw {
		m, ok := c.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("its cell %d is not an object", i)
		}
		cells = append(cells, m)
	}
	return nb, cells, nil
}

// cellID is a cell's id, or cell-N (its index) for a notebook without ids
// (nbformat before 4.5).
func cellID(c map[string]any, i int) string {
	if id, ok := c["id"].(string); ok && id != "" {
		return id
	}
	return "cell-" + strconv.Itoa(i)
}

// text is a notebook string: one string, or a list of lines.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var b strings.Builder
		for _, l := range x {
			s, _ := l.(string)
			b.WriteString(s)
		}
		return b.String()
	}
	return ""
}

// lines splits s as nbformat stores sources: lines keeping their "\n".
func lines(s string) []any {
	out := []any{}
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func (n *NotebookEdit) edit(p, id, source, cellType, mode string, st *tool.State) *tool.Chunk {
	if !filepath.IsAbs(p) {
		return n.c.absError(p)
	}
	if !strings.EqualFold(filepath.Ext(p), ".ipynb") {
		return tool.Errorf("Error: %s is not a Jupyter notebook (.ipynb); use Edit for other files.", p)
	}
	switch mode {
	case "replace", "insert", "delete":
	default:
		return tool.Errorf("Error: edit_mode must be replace, insert or delete, not %q.", mode)
	}
	if mode == "insert" && cellType == "" {
		return tool.Errorf("Error: cell_type (code or markdown) is required to insert a cell.")
	}
	s := lastSeen(p, st)
	lock, bad := lockFor(s)
	if bad != nil {
		return bad
	}
	defer lock.Unlock()
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tool.Errorf("Error: Notebook not found: %s", p)
	case err != nil:
		return tool.Errorf("Error reading the notebook: %v", err)
	case !fi.Mode().IsRegular():
		return tool.Errorf("Error: %s is %s, not a regular file.", p, textfile.ModeKind(fi.Mode()))
	case fi.Size() > maxNotebookBytes:
		return tool.Errorf("Error: %s is %d bytes, more than the %d bytes NotebookEdit changes.", p, fi.Size(), maxNotebookBytes)
	}
	if bad := notWritable(s.canon, fi); bad != nil {
		return bad
	}
	data, was, bad := fresh(p, s, st, "Error: To edit a notebook, you must first read it using the Read tool.", maxNotebookBytes)
	if bad != nil {
		return bad
	}
	nb, cells, err := parseNotebook(data)
	if err != nil {
		return tool.Errorf("Error: %s: %v", p, err)
	}
	at := -1 // the cell named
	if id != "" {
		for i, c := range cells {
			if cellID(c, i) == id {
				at = i
				break
			}
		}
		if at < 0 {
			return tool.Errorf("Error: no cell %q in %s (Read shows the cells' ids).", id, p)
		}
	} else if mode != "insert" {
		return tool.Errorf("Error: cell_id is required to %s a cell.", mode)
	}
	var did string
	switch mode {
	case "delete":
		cells = slices.Delete(cells, at, at+1)
		did = fmt.Sprintf("Deleted cell %s", id)
	case "insert":
		c := map[string]any{"cell_type": cellType, "metadata": map[string]any{}, "source": lines(source)}
		minor := int64(0)
		if m, ok := nb["nbformat_minor"].(json.Number); ok {
			minor, _ = m.Int64()
		}
		if major, ok := nb["nbformat"].(json.Number); ok && major.String() == "4" && minor >= 5 || cellsHaveIDs(cells) {
			c["id"] = newCellID()
		}
		if cellType == "code" {
			c["execution_count"], c["outputs"] = nil, []any{}
		}
		cells = slices.Insert(cells, at+1, c)
		did = fmt.Sprintf("Inserted a %s cell %s", cellType, cellID(c, at+1))
	case "replace":
		c := cells[at]
		c["source"] = lines(source)
		if cellType != "" && cellType != c["cell_type"] {
			c["cell_type"] = cellType
		}
		if c["cell_type"] == "code" {
			c["execution_count"], c["outputs"] = nil, []any{}
		} else {
			delete(c, "execution_count")
			delete(c, "outputs")
		}
		did = fmt.Sprintf("Updated cell %s", id)
	}
	list := make([]any, len(cells))
	for i, c := range cells {
		list[i] = c
	}
	nb["cells"] = list
	// As nbformat writes it: keys sorted, one-space indent, non-ASCII kept.
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(nb); err != nil {
		return tool.Errorf("Error: encoding the notebook: %v", err)
	}
	if err := commit(p, out.Bytes(), st, lock, s, &was); err != nil {
		return commitError(p, err, st, s)
	}
	return &tool.Chunk{Content: []tool.Block{tool.TextBlock(did + " in " + p + ".")}, Metadata: map[string]any{"notebook_path": p, "edit_mode": mode}}
}

func cellsHaveIDs(cells []map[string]any) bool {
	for _, c := range cells {
		if _, ok := c["id"].(string); ok {
			return true
		}
	}
	return false
}

func newCellID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// readNotebook is Read of a notebook: each cell with its id, type and
// source, then its outputs (text, errors, and images as images).
func (r *Read) readNotebook(p string, st *tool.State) *tool.Chunk {
	if c := r.checkFile(p); c != nil {
		return c
	}
	fi, err := os.Stat(p)
	if err != nil {
		return tool.Errorf("Error reading file: %v", err)
	}
	if fi.Size() > maxNotebookBytes {
		return tool.Errorf("Error: the notebook %s is %d bytes, more than the %d bytes Read shows. Read parts of it with Bash and jq.", p, fi.Size(), maxNotebookBytes)
	}
	fp, data, err := textfile.FingerprintFile(p, maxNotebookBytes)
	if err != nil {
		return tool.Errorf("Error reading file: %v", err)
	}
	_, cells, err := parseNotebook(data)
	if err != nil {
		return tool.Errorf("Error: %s: %v; Read it as text with offset and limit, or fix it.", p, err)
	}
	if st != nil {
		DataOf(st).RecordRead(record(canonical(p), fp, true))
	}
	var blocks []tool.Block
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			blocks = append(blocks, tool.TextBlock(b.String()))
			b.Reset()
		}
	}
	for i, c := range cells {
		id, typ := cellID(c, i), fmt.Sprint(c["cell_type"])
		fmt.Fprintf(&b, "<cell id=%q type=%q>\n%s\n</cell>\n", id, typ, text(c["source"]))
		outs, _ := c["outputs"].([]any)
		for _, o := range outs {
			om, _ := o.(map[string]any)
			switch om["output_type"] {
			case "stream":
				fmt.Fprintf(&b, "<output cell=%q>\n%s</output>\n", id, text(om["text"]))
			case "error":
				fmt.Fprintf(&b, "<output cell=%q error=%q>\n%s: %s\n</output>\n", id, fmt.Sprint(om["ename"]), om["ename"], om["evalue"])
			case "execute_result", "display_data":
				d, _ := om["data"].(map[string]any)
				shown := false
				for _, mime := range []string{"image/png", "image/jpeg", "image/gif", "image/webp"} {
					if s, ok := d[mime]; ok {
						img, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text(s)))
						if err == nil && len(img) <= MaxImageBytes {
							flush()
							blk := tool.DataBlock(mime, img)
							blk.Name = fmt.Sprintf("%s output of cell %s", mime, id)
							blocks = append(blocks, blk)
							shown = true
						}
						break
					}
				}
				if t, ok := d["text/plain"]; ok && !shown {
					fmt.Fprintf(&b, "<output cell=%q>\n%s\n</output>\n", id, text(t))
				}
			}
		}
	}
	if len(cells) == 0 {
		b.WriteString("<system-reminder>The notebook has no cells.</system-reminder>")
	}
	flush()
	return &tool.Chunk{Content: blocks, Metadata: map[string]any{"file_path": p, "cells": len(cells)}}
}
