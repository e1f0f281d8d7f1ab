package builtin_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

func readIn(p string, kv ...any) map[string]any {
	m := map[string]any{"file_path": p}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func TestReadText(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	var lines []string
	for i := 1; i <= 12; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	p := e.write("a.txt", strings.Join(lines, "\n")+"\n")
	got := e.mustOK(e.call("Read", readIn(p)))
	if !strings.HasPrefix(got, "     1\tline 1\n     2\tline 2\n") || !strings.HasSuffix(got, "    12\tline 12") {
		t.Fatalf("whole file:\n%s", got)
	}
	got = e.mustOK(e.call("Read", readIn(p, "offset", 3, "limit", 2)))
	if got != "     3\tline 3\n     4\tline 4\n\n[Showing lines 3-4 of 12. Use offset=5 to read on.]" {
		t.Fatalf("slice: %q", got)
	}
	got = e.mustOK(e.call("Read", readIn(p, "offset", 40)))
	if got != "<system-reminder>Warning: the file has 12 lines, so offset 40 is past its end.</system-reminder>" {
		t.Fatalf("past the end: %q", got)
	}
	long := e.write("long.txt", strings.Repeat("x", 2500)+"\nshort\n")
	got = e.mustOK(e.call("Read", readIn(long)))
	if got != "     1\t"+strings.Repeat("x", 2000)+" [truncated]\n     2\tshort" {
		t.Fatalf("long line: %q", got[len(got)-40:])
	}
	crlf := e.write("crlf.txt", "a\r\nb\r\n")
	if got := e.mustOK(e.call("Read", readIn(crlf))); got != "     1\ta\n     2\tb" {
		t.Fatalf("crlf: %q", got)
	}
	empty := e.write("empty.txt", "")
	if got := e.mustOK(e.call("Read", readIn(empty))); got != "<system-reminder>Warning: the file exists but its contents are empty.</system-reminder>" {
		t.Fatalf("empty: %q", got)
	}
}

func TestReadErrors(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	e.mustErr(e.call("Read", readIn("src/main.go")), "Error: file_path must be an absolute path, got: src/main.go (relative to the project root that would be "+e.path("src/main.go")+")")
	e.mustErr(e.call("Read", readIn(e.path("missing.txt"))), "Error: File does not exist: "+e.path("missing.txt"))
	e.mustErr(e.call("Read", readIn(e.root)), "Error: Path is a directory, not a file: "+e.root)
	bin := e.write("prog.bin", "ELF\x00\x01\x02binary")
	e.mustErr(e.call("Read", readIn(bin)), fmt.Sprintf("Error: %s is a binary file (12 bytes); Read shows text files and images (PNG, JPEG, GIF, WebP). Inspect it with Bash instead, e.g. `file %s` or `xxd %s | head`.", bin, bin, bin))
	r := e.call("Read", readIn(e.path("x"), "offset", 0))
	if r.Status != tool.StatusError || !strings.Contains(r.Text(), `field "offset" must be at least 1`) {
		t.Fatalf("offset 0: %q", r.Text())
	}
}

func TestReadImage(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
	p := e.path("dot.png")
	os.WriteFile(p, png, 0o644)
	r := e.call("Read", readIn(p))
	if r.Status != tool.StatusSuccess || len(r.Content) != 1 || r.Content[0].Kind != tool.KindData || r.Content[0].MediaType != "image/png" || string(r.Content[0].Data) != string(png) {
		t.Fatalf("image: %+v", r)
	}
	fake := e.write("fake.png", "not really a png\n")
	if got := e.mustOK(e.call("Read", readIn(fake))); got != "     1\tnot really a png" {
		t.Fatalf("text with an image extension: %q", got)
	}
}

func TestWriteAndEditNeedFreshRead(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	p := e.write("f.txt", "one\ntwo\n")
	e.mustErr(e.call("Write", map[string]any{"file_path": p, "content": "x"}), "Error: File "+p+" exists but has not been read yet. You must read the file first before writing to it.")
	e.mustErr(e.call("Edit", map[string]any{"file_path": p, "old_string": "one", "new_string": "1"}), "Error: To edit a file, you must first read it using the Read tool.")
	e.mustOK(e.call("Read", readIn(p)))
	if got := e.mustOK(e.call("Edit", map[string]any{"file_path": p, "old_string": "one", "new_string": "1"})); got != "Successfully replaced 1 occurrence in "+p {
		t.Fatal(got)
	}
	// The edit refreshed the read state: a second edit needs no new Read.
	e.mustOK(e.call("Edit", map[string]any{"file_path": p, "old_string": "two", "new_string": "2"}))
	if got := e.mustOK(e.call("Write", map[string]any{"file_path": p, "content": "fresh\n"})); got != "The file "+p+" has been written successfully (1 lines)." {
		t.Fatal(got)
	}
	e.mustOK(e.call("Edit", map[string]any{"file_path": p, "old_string": "fresh", "new_string": "again"}))
	if got := e.read("f.txt"); got != "again\n" {
		t.Fatalf("content %q", got)
	}
}

// TestStaleness changes a file behind the agent's back in ways an mtime-only
// check misses: the mtime is put back each time.
func TestStaleness(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(p string)
	}{
		{"size only", func(p string) { os.WriteFile(p, []byte("hello world, longer\n"), 0o644) }},
		{"content only, same size", func(p string) { os.WriteFile(p, []byte("HELLO WORLD\n"), 0o644) }},
		{"deleted and recreated", func(p string) { os.Remove(p); os.WriteFile(p, []byte("hello w0rld\n"), 0o644) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, permission.Bypass, nil)
			p := e.write("f.txt", "hello world\n")
			mtime := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
			os.Chtimes(p, mtime, mtime)
			e.mustOK(e.call("Read", readIn(p)))
			tt.change(p)
			os.Chtimes(p, mtime, mtime)
			want := "Error: File " + p + " has been modified since it was last read (by the user or another program). Read it again before changing it."
			e.mustErr(e.call("Edit", map[string]any{"file_path": p, "old_string": "hello", "new_string": "bye"}), want)
			// The stale record is dropped: Write now says it was not read.
			r := e.call("Write", map[string]any{"file_path": p, "content": "x"})
			if r.Status != tool.StatusError || !strings.Contains(r.Text(), "has not been read yet") {
				t.Fatalf("write after stale: %q", r.Text())
			}
			e.mustOK(e.call("Read", readIn(p)))
			e.mustOK(e.call("Write", map[string]any{"file_path": p, "content": "x"}))
		})
	}
}

func TestReadStateSurvivesJSON(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	p := e.write("f.txt", "a\n")
	e.mustOK(e.call("Read", readIn(p)))
	b, _ := e.st.MarshalJSON()
	e.st = tool.NewState(nil)
	if err := e.st.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	e.mustOK(e.call("Edit", map[string]any{"file_path": p, "old_string": "a", "new_string": "b"}))
}

func TestEdit(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	p := e.write("f.go", "a := 1\nb := 1\nc := 2")
	e.mustOK(e.call("Read", readIn(p)))
	edit := func(old, new string, all bool) *tool.Result {
		return e.call("Edit", map[string]any{"file_path": p, "old_string": old, "new_string": new, "replace_all": all})
	}
	e.mustErr(edit("x", "x", false), "Error: old_string and new_string are identical. No changes to make.")
	e.mustErr(edit("zzz", "y", false), "Error: old_string not found in "+p+". It must match the file exactly, including whitespace and indentation, without Read's line-number prefixes.")
	e.mustErr(edit(":= 1", ":= 3", false), "Error: old_string appears 2 times in "+p+". Set replace_all=true to replace all occurrences, or make old_string more specific.")
	e.mustErr(edit("", "new", false), "Error: old_string is empty, but "+p+" already exists. To insert text, put the text next to the insertion point in old_string and that text plus the insertion in new_string; to replace the whole file, use Write.")
	r := edit(":= 1", ":= 3", true)
	if e.mustOK(r) != "Successfully replaced all 2 occurrences in "+p {
		t.Fatal(r.Text())
	}
	if got := e.read("f.go"); got != "a := 3\nb := 3\nc := 2" {
		t.Fatalf("content %q (the missing final newline must stay missing)", got)
	}
	diff, _ := r.Metadata["diff"].(string)
	contains(t, diff, "--- a"+p, "+++ b"+p, "-a := 1", "+a := 3", "\\ No newline at end of file")
	missing := e.path("sub/new.txt")
	e.mustErr(e.call("Edit", map[string]any{"file_path": missing, "old_string": "a", "new_string": "b"}), "Error: File not found: "+missing+" (to create a file, use Write)")
	e.mustOK(e.call("Edit", map[string]any{"file_path": missing, "old_string": "", "new_string": "created\n"}))
	if e.read("sub/new.txt") != "created\n" {
		t.Fatal("edit with empty old_string did not create the file")
	}
}

func TestEditKeepsCRLF(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	p := e.write("win.txt", "first\r\nsecond\r\nthird\r\n")
	e.mustOK(e.call("Read", readIn(p)))
	e.mustOK(e.call("Edit", map[string]any{"file_path": p, "old_string": "first\nsecond", "new_string": "1st\n2nd\n2.5th"}))
	if got := e.read("win.txt"); got != "1st\r\n2nd\r\n2.5th\r\nthird\r\n" {
		t.Fatalf("CRLF not kept: %q", got)
	}
}

func TestWrite(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	p := e.path("deep/er/new.txt")
	r := e.call("Write", map[string]any{"file_path": p, "content": "a\nb"})
	if e.mustOK(r) != "The file "+p+" has been created successfully (2 lines)." || r.Metadata["created"] != true {
		t.Fatalf("%q %v", r.Text(), r.Metadata)
	}
	contains(t, r.Metadata["diff"].(string), "--- /dev/null", "+a")
	exe := e.write("run.sh", "#!/bin/sh\n")
	os.Chmod(exe, 0o750)
	e.mustOK(e.call("Read", readIn(exe)))
	e.mustOK(e.call("Write", map[string]any{"file_path": exe, "content": "#!/bin/sh\necho hi\n"}))
	if fi, _ := os.Stat(exe); fi.Mode().Perm() != 0o750 {
		t.Fatalf("mode %v not kept", fi.Mode())
	}
	e.mustErr(e.call("Write", map[string]any{"file_path": "rel.txt", "content": ""}), "Error: file_path must be an absolute path, got: rel.txt (relative to the project root that would be "+e.path("rel.txt")+")")
	e.mustErr(e.call("Write", map[string]any{"file_path": e.root, "content": ""}), "Error: Path is a directory, not a file: "+e.root)
}

// TestWriteFailureLeavesNothing makes the write fail as root would not
// notice permission bits: the parent "directory" is a regular file.
func TestWriteFailureLeavesNothing(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	e.write("plain", "I am a file\n")
	r := e.call("Write", map[string]any{"file_path": e.path("plain/child.txt"), "content": "x"})
	if r.Status != tool.StatusError || !strings.HasPrefix(r.Text(), "Error writing file: ") {
		t.Fatalf("got %s %q", r.Status, r.Text())
	}
	entries, _ := os.ReadDir(e.root)
	if len(entries) != 1 || e.read("plain") != "I am a file\n" {
		t.Fatalf("stray files or damage: %v", entries)
	}
}

func TestEditPermissions(t *testing.T) {
	outside := t.TempDir()
	for _, tt := range []struct {
		mode permission.Mode
		file string // relative to the project; "OUT" = outside it
		want tool.Status
	}{
		{permission.Default, "a.txt", tool.StatusAsking},
		{permission.AcceptEdits, "a.txt", tool.StatusSuccess},
		{permission.DontAsk, "a.txt", tool.StatusSuccess},
		{permission.AcceptEdits, "OUT", tool.StatusAsking},
		{permission.DontAsk, "OUT", tool.StatusDenied},
		{permission.AcceptEdits, "escape/evil.txt", tool.StatusAsking},  // a link inside the project, pointing out
		{permission.AcceptEdits, "dangling.txt", tool.StatusAsking},     // a link to a missing file outside
		{permission.AcceptEdits, "rel-dangling.txt", tool.StatusAsking}, // the same, by a relative link
		{permission.AcceptEdits, "inner-link.txt", tool.StatusSuccess},  // a link that stays inside
		{permission.AcceptEdits, ".env", tool.StatusAsking},
		{permission.AcceptEdits, ".git/config", tool.StatusAsking},
		{permission.Bypass, ".env", tool.StatusSuccess},
		{permission.Explore, "a.txt", tool.StatusDenied},
	} {
		t.Run(string(tt.mode)+"/"+tt.file, func(t *testing.T) {
			e := newEnv(t, tt.mode, nil)
			os.Symlink(outside, e.path("escape"))
			os.Symlink(filepath.Join(outside, "created-by-write.txt"), e.path("dangling.txt"))
			rel, _ := filepath.Rel(e.root, filepath.Join(outside, "rel.txt"))
			os.Symlink(rel, e.path("rel-dangling.txt"))
			os.Symlink("sub/target.txt", e.path("inner-link.txt"))
			p := e.path(tt.file)
			if tt.file == "OUT" {
				p = filepath.Join(outside, "x.txt")
			}
			r := e.call("Write", map[string]any{"file_path": p, "content": "x"})
			if r.Status != tt.want {
				t.Fatalf("Write %s: %s, want %s (%+v)", p, r.Status, tt.want, r.Decision)
			}
			if _, err := os.Lstat(filepath.Join(outside, "created-by-write.txt")); err == nil {
				t.Fatal("a write escaped the project through a dangling link")
			}
			if (tt.file == ".env" || tt.file == ".git/config") && tt.mode != permission.Bypass && !r.Decision.BypassImmune {
				t.Error("sensitive file ask is not bypass-immune")
			}
		})
	}
}

func TestPathRules(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	secret := e.write("secrets/key.txt", "k\n")
	open := e.write("src/a.txt", "a\n")
	e.st.AddRule(permission.Rule{Tool: "Read", Content: "secrets/**", Behavior: permission.Deny})
	e.st.AddRule(permission.Rule{Tool: "Edit", Content: "src/**", Behavior: permission.Allow})
	if r := e.call("Read", readIn(secret)); r.Status != tool.StatusDenied {
		t.Fatalf("deny rule: %s", r.Status)
	}
	e.mustOK(e.call("Read", readIn(open)))
	e.mustOK(e.call("Edit", map[string]any{"file_path": open, "old_string": "a", "new_string": "b"}))
	// Edit rules govern Write.
	e.mustOK(e.call("Write", map[string]any{"file_path": open, "content": "c"}))
	other := e.write("docs/b.txt", "b\n")
	e.mustOK(e.call("Read", readIn(other)))
	r := e.call("Write", map[string]any{"file_path": other, "content": "c"})
	if r.Status != tool.StatusAsking || r.Decision.Suggestions[0].String() != "Edit(/docs/**)" {
		t.Fatalf("write outside the rule: %s %+v", r.Status, r.Decision)
	}
	// Read rules govern Grep and Glob: the denied file is neither searched
	// nor listed.
	needRg(t)
	for _, engine := range []string{"go", "rg"} {
		g := builtin.NewGrep(&builtin.Options{Root: e.root, GrepEngine: engine})
		tk, _ := tool.NewToolkit(&tool.ToolkitOptions{Tools: []tool.Tool{g}})
		r, err := tk.Call(context.Background(), &tool.Call{Name: "Grep", Input: json.RawMessage(`{"pattern":"k","output_mode":"files_with_matches"}`), State: e.st})
		if err != nil || r.Status != tool.StatusSuccess || strings.Contains(r.Text(), "secrets") {
			t.Errorf("%s: Grep searched a denied file: %s %s %v", engine, r.Status, r.Text(), err)
		}
	}
	if r := e.call("Glob", map[string]any{"pattern": "**/*.txt"}); strings.Contains(r.Text(), "key.txt") || !strings.Contains(r.Text(), "a.txt") {
		t.Errorf("Glob listed a denied file or missed an allowed one: %s", r.Text())
	}
	if r := e.call("Grep", map[string]any{"pattern": "k", "path": e.path("secrets")}); r.Status != tool.StatusDenied {
		t.Errorf("Grep of a denied directory: %s %s", r.Status, r.Text())
	}
}

func TestReadMoreErrors(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	fifo := e.path("pipe")
	if err := syscallMkfifo(fifo); err != nil {
		t.Skip("cannot make a FIFO:", err)
	}
	e.mustErr(e.call("Read", readIn(fifo)), "Error: "+fifo+" is a named pipe (FIFO), not a regular file; Read only reads files.")
	big := e.path("big.png")
	f, _ := os.Create(big)
	f.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	f.Truncate(6 << 20)
	f.Close()
	e.mustErr(e.call("Read", readIn(big)), fmt.Sprintf("Error: the image %s is %d bytes, more than the %d bytes Read returns. Resize it first (for example with Bash and ImageMagick's convert).", big, 6<<20, 5<<20))
	e.mustErr(e.call("Grep", map[string]any{"pattern": "x", "path": e.path("nowhere")}), "Error: Path does not exist: "+e.path("nowhere"))
}

// Unknown parameters do not fail a built-in's call: they are ignored, and
// the result says so.
func TestUnknownParametersNoted(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	f := e.write("a.txt", "alpha\n")
	r := e.call("Read", map[string]any{"file_path": f, "encoding": "utf-8", "verbose": true})
	got := e.mustOK(r)
	contains(t, got, "alpha", "Note: the parameter(s) encoding, verbose are not known to this tool and were ignored. It takes: file_path, limit, offset")
	r = e.call("TaskList", map[string]any{"filter": "open"})
	contains(t, e.mustOK(r), "No tasks available.", "parameter(s) filter are not known")
	if r := e.call("Read", map[string]any{"file_path": f}); strings.Contains(r.Text(), "Note:") {
		t.Errorf("a note without unknown parameters: %q", r.Text())
	}
}
