package builtin_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// A notebook as Jupyter writes it (nbformat 4.5: cells with ids; keys
// sorted, one-space indent), with a stream output, an error, an image and
// a markdown cell.
const demoNotebook = `{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "intro",
   "metadata": {},
   "source": [
    "# Title\n",
    "Some text."
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "calc",
   "metadata": {
    "tags": ["keep"]
   },
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "42\n"
     ]
    },
    {
     "ename": "ZeroDivisionError",
     "evalue": "division by zero",
     "output_type": "error",
     "traceback": []
    },
    {
     "data": {
      "image/png": "iVBORw0KGgo=",
      "text/plain": [
       "<Figure>"
      ]
     },
     "metadata": {},
     "output_type": "display_data"
    }
   ],
   "source": [
    "print(6 * 7)\n",
    "1 / 0"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
`

// Read shows a notebook's cells with their ids, sources and outputs, and
// images as images.
func TestReadNotebook(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	p := e.write("demo.ipynb", demoNotebook)
	r := e.call("Read", map[string]any{"file_path": p})
	got := e.mustOK(r)
	contains(t, got, `<cell id="intro" type="markdown">`, "# Title\nSome text.", `<cell id="calc" type="code">`, "print(6 * 7)\n1 / 0",
		`<output cell="calc">`+"\n42\n", `error="ZeroDivisionError"`, "division by zero")
	if strings.Contains(got, "<Figure>") {
		t.Errorf("the image's text/plain is shown beside the image:\n%s", got)
	}
	img := false
	for _, b := range r.Content {
		img = img || b.Kind == tool.KindData && b.MediaType == "image/png" && string(b.Data) == "\x89PNG\r\n\x1a\n"
	}
	if !img {
		t.Errorf("no image block: %+v", r.Content)
	}
	// A notebook that is not one is said so.
	bad := e.write("bad.ipynb", `{"cells": 3}`)
	if r := e.call("Read", map[string]any{"file_path": bad}); r.Status != tool.StatusError || !strings.Contains(r.Text(), `no "cells" list`) {
		t.Errorf("a bad notebook: %s %q", r.Status, r.Text())
	}
	// With offset or limit, the JSON as text.
	if r := e.call("Read", map[string]any{"file_path": p, "limit": 3}); !strings.Contains(r.Text(), `"cells": [`) {
		t.Errorf("Read with a limit: %q", r.Text())
	}
}

func cellsOf(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells    []map[string]any `json:"cells"`
		Metadata map[string]any   `json:"metadata"`
		Minor    int              `json:"nbformat_minor"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatalf("not valid JSON after the edit: %v\n%s", err, b)
	}
	if nb.Metadata["kernelspec"] == nil || nb.Minor != 5 {
		t.Errorf("the notebook's metadata was lost: %s", b)
	}
	return nb.Cells
}

// NotebookEdit replaces, inserts and deletes cells by id, after a Read;
// the notebook stays valid, its metadata and other cells as they were,
// written as Jupyter writes it.
func TestNotebookEdit(t *testing.T) {
	e := newEnv(t, permission.AcceptEdits, nil)
	p := e.write("demo.ipynb", demoNotebook)
	e.mustErr(e.call("NotebookEdit", map[string]any{"notebook_path": p, "cell_id": "calc", "new_source": "x"}), "Error: To edit a notebook, you must first read it using the Read tool.")
	e.mustOK(e.call("Read", map[string]any{"file_path": p}))

	contains(t, e.mustOK(e.call("NotebookEdit", map[string]any{"notebook_path": p, "cell_id": "calc", "new_source": "print(1)\nprint(2)"})), "Updated cell calc")
	cells := cellsOf(t, p)
	if len(cells) != 2 || cells[1]["id"] != "calc" || len(cells[1]["outputs"].([]any)) != 0 || cells[1]["execution_count"] != nil {
		t.Fatalf("after replace: %+v", cells)
	}
	if src := cells[1]["source"].([]any); len(src) != 2 || src[0] != "print(1)\n" || src[1] != "print(2)" {
		t.Errorf("source lines: %q", src)
	}
	if tags := cells[1]["metadata"].(map[string]any)["tags"]; tags == nil {
		t.Errorf("the cell's metadata was lost")
	}
	if b := e.read("demo.ipynb"); !strings.HasPrefix(b, "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",") || !strings.HasSuffix(b, "}\n") {
		t.Errorf("not written as Jupyter writes it:\n%s", b)
	}

	contains(t, e.mustOK(e.call("NotebookEdit", map[string]any{"notebook_path": p, "cell_id": "intro", "new_source": "x = 1", "cell_type": "code", "edit_mode": "insert"})), "Inserted a code cell")
	contains(t, e.mustOK(e.call("NotebookEdit", map[string]any{"notebook_path": p, "new_source": "# First", "cell_type": "markdown", "edit_mode": "insert"})), "Inserted a markdown cell")
	cells = cellsOf(t, p)
	if len(cells) != 4 || cells[0]["source"].([]any)[0] != "# First" || cells[2]["source"].([]any)[0] != "x = 1" || cells[2]["id"] == nil || cells[2]["outputs"] == nil {
		t.Fatalf("after inserts: %+v", cells)
	}
	contains(t, e.mustOK(e.call("NotebookEdit", map[string]any{"notebook_path": p, "cell_id": "intro", "new_source": "", "edit_mode": "delete"})), "Deleted cell intro")
	if cells = cellsOf(t, p); len(cells) != 3 || cells[1]["source"].([]any)[0] != "x = 1" {
		t.Fatalf("after delete: %+v", cells)
	}

	// Errors the model can act on.
	e.mustErr(e.call("NotebookEdit", map[string]any{"notebook_path": p, "cell_id": "nope", "new_source": "x"}), `Error: no cell "nope" in `+p+` (Read shows the cells' ids).`)
	e.mustErr(e.call("NotebookEdit", map[string]any{"notebook_path": p, "new_source": "x", "edit_mode": "insert"}), "Error: cell_type (code or markdown) is required to insert a cell.")
	e.mustErr(e.call("NotebookEdit", map[string]any{"notebook_path": p, "new_source": "x"}), "Error: cell_id is required to replace a cell.")
	txt := e.write("notes.txt", "x")
	e.mustErr(e.call("NotebookEdit", map[string]any{"notebook_path": txt, "cell_id": "a", "new_source": "x"}), "Error: "+txt+" is not a Jupyter notebook (.ipynb); use Edit for other files.")
	// Changed since it was read: read it again first.
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(p, []byte(demoNotebook), 0o644)
	if r := e.call("NotebookEdit", map[string]any{"notebook_path": p, "cell_id": "calc", "new_source": "y"}); r.Status != tool.StatusError || !strings.Contains(r.Text(), "modified") {
		t.Errorf("a notebook changed since it was read: %s %q", r.Status, r.Text())
	}
}

// A notebook without cell ids (nbformat 4.4): cells are cell-N.
func TestNotebookEditWithoutIDs(t *testing.T) {
	e := newEnv(t, permission.AcceptEdits, nil)
	p := e.write("old.ipynb", `{"cells": [{"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": "a = 1"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 4}`)
	contains(t, e.mustOK(e.call("Read", map[string]any{"file_path": p})), `<cell id="cell-0" type="code">`)
	e.mustOK(e.call("NotebookEdit", map[string]any{"notebook_path": p, "cell_id": "cell-0", "new_source": "a = 2"}))
	e.mustOK(e.call("NotebookEdit", map[string]any{"notebook_path": p, "cell_id": "cell-0", "new_source": "b = 3", "cell_type": "code", "edit_mode": "insert"}))
	b, _ := os.ReadFile(p)
	if strings.Contains(string(b), `"id"`) || !strings.Contains(string(b), `"a = 2"`) || !strings.Contains(string(b), `"b = 3"`) {
		t.Errorf("nbformat 4.4 after edits (no ids added):\n%s", b)
	}
}

// NotebookEdit is judged as an Edit of the notebook: Edit rules, the
// mode, the working directories.
func TestNotebookEditPermissions(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	p := e.write("demo.ipynb", demoNotebook)
	in, _ := json.Marshal(map[string]any{"notebook_path": p, "cell_id": "calc", "new_source": "x"})
	for _, tc := range []struct {
		mode  permission.Mode
		allow string
		want  permission.Behavior
	}{
		{permission.Default, "", permission.Ask},
		{permission.Default, "Edit(/**)", permission.Allow},
		{permission.AcceptEdits, "", permission.Allow},
		{permission.Explore, "", permission.Deny},
	} {
		pc := &permission.Context{Mode: tc.mode}
		if tc.allow != "" {
			r, _ := permission.ParseRule(tc.allow)
			r.Behavior = permission.Allow
			pc.AddRule(r)
		}
		v, err := e.tk.Check(t.Context(), &tool.Call{Name: "NotebookEdit", Input: in, State: tool.NewState(pc)})
		if err != nil || v.Decision.Behavior != tc.want {
			t.Errorf("%s %q: %v %+v, want %s", tc.mode, tc.allow, err, v, tc.want)
		}
	}
}
