package subagent_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/subagent"
)

func TestParse(t *testing.T) {
	d, err := subagent.Parse("a.md", []byte("\xef\xbb\xbf---\r\nname: code-reviewer\r\ndescription: Reviews code\r\ntools: Read, Grep ,Read\r\ndisallowedTools: [Bash]\r\nmodel: inherit\r\npermissionMode: plan\r\nmaxTurns: 7\r\ncolor: blue\r\n---\r\nYou review code.\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := subagent.Definition{Name: "code-reviewer", Description: "Reviews code", Prompt: "You review code.", Tools: []string{"Read", "Grep"},
		DisallowedTools: []string{"Bash"}, Model: "inherit", Mode: permission.Explore, MaxTurns: 7, Source: "a.md"}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Error(diff)
	}
	for mode, want := range map[string]permission.Mode{"acceptEdits": permission.AcceptEdits, "dontAsk": permission.DontAsk, "bypassPermissions": permission.Bypass, "accept_edits": permission.AcceptEdits, "default": permission.Default} {
		d, err := subagent.Parse("m.md", []byte("---\nname: m\ndescription: d\npermissionMode: "+mode+"\n---\np"))
		if err != nil || d.Mode != want {
			t.Errorf("%s: %v %v", mode, d.Mode, err)
		}
	}
	// No tools key: all of the parent's (nil); an empty list: none.
	if d, _ := subagent.Parse("x", []byte("---\nname: x\ndescription: d\n---\np")); d.Tools != nil {
		t.Errorf("no tools key: %v", d.Tools)
	}
	if d, _ := subagent.Parse("x", []byte("---\nname: x\ndescription: d\ntools: []\n---\np")); d.Tools == nil || len(d.Tools) != 0 {
		t.Errorf("tools []: %#v", d.Tools)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"name: x\n", "no frontmatter"},
		{"---\nname: x\ndescription: d\n", "not closed"},
		{"---\nname: [\n---\np", "not valid YAML"},
		{"---\ndescription: d\n---\np", `no "name"`},
		{"---\nname: Bad_Name\ndescription: d\n---\np", `invalid name "Bad_Name"`},
		{"---\nname: x\n---\np", `no "description"`},
		{"---\nname: x\ndescription: \"\"\n---\np", "description is empty"},
		{"---\nname: x\ndescription: d\ntools: 3\n---\np", `"tools" must be a list`},
		{"---\nname: x\ndescription: d\ntools: [1]\n---\np", `"tools" must list tool names`},
		{"---\nname: x\ndescription: d\npermissionMode: yolo\n---\np", `unknown permissionMode "yolo"`},
		{"---\nname: x\ndescription: d\nmaxTurns: 0\n---\np", "maxTurns must be"},
		{"---\nname: x\ndescription: d\nmaxTurns: many\n---\np", "maxTurns must be"},
		{"---\nname: x\ndescription: d\n---\n  \n", "system prompt is empty"},
		{"---\nname: 7\ndescription: d\n---\np", `"name" must be a string`},
	} {
		_, err := subagent.Parse("f.md", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "f.md: ") {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}

// Load reads *.md files, the first directory winning for a name; a bad
// file is reported and skipped, and other files and directories ignored.
func TestLoad(t *testing.T) {
	project, user := t.TempDir(), t.TempDir()
	write := func(dir, name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(project, "a.md", "---\nname: shared\ndescription: project's\n---\np")
	write(user, "b.md", "---\nname: shared\ndescription: user's\n---\np")
	write(user, "c.md", "---\nname: only-user\ndescription: u\n---\np")
	write(user, "bad.md", "no frontmatter")
	write(user, "notes.txt", "---\nname: txt\ndescription: d\n---\np")
	os.Mkdir(filepath.Join(user, "sub.md"), 0o755)
	write(user, "big.md", "---\nname: big\ndescription: d\n---\n"+strings.Repeat("x", 300<<10))
	if err := os.Symlink("/dev/zero", filepath.Join(user, "zero.md")); err != nil {
		t.Fatal(err)
	}
	defs, errs := subagent.Load(project, filepath.Join(t.TempDir(), "missing"), user)
	var names []string
	for _, d := range defs {
		names = append(names, d.Name+"="+d.Description)
	}
	if want := []string{"only-user=u", "shared=project's"}; !slices.Equal(names, want) {
		t.Errorf("loaded %v, want %v", names, want)
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{"bad.md: no frontmatter", "big.md: ", "zero.md: not a regular file"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors %q lack %q", got, want)
		}
	}
	if len(errs) != 3 {
		t.Errorf("%d errors: %q", len(errs), got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nname: x\ndescription: d\ntools: Read, Bash\npermissionMode: plan\nmaxTurns: 3\n---\nprompt"))
	f.Add([]byte("---\nname: x\ndescription: d\ntools: [Read]\n---\n"))
	f.Add([]byte("---\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := subagent.Parse("f.md", data)
		if err != nil {
			return
		}
		if d.Name == "" || d.Description == "" || d.Prompt == "" || d.MaxTurns < 0 {
			t.Errorf("accepted an incomplete definition: %+v", d)
		}
		if d.Mode != "" {
			if _, err := permission.ParseMode(string(d.Mode)); err != nil {
				t.Errorf("accepted mode %q", d.Mode)
			}
		}
		if _, err := subagent.New(&subagent.Options{Definitions: []subagent.Definition{d}, Model: nopModel{}, Toolkit: emptyToolkit(t)}); err != nil {
			t.Errorf("a parsed definition is refused by New: %v", err)
		}
	})
}
