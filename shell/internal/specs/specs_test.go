package specs

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// What readonly.go once forced on every table after loading holds in the
// data, for every table: an option that names a file of further file
// names (whose paths the analyser never sees) is deny, and so are a
// checksum program's --check and file -f.
func TestSpecsDenyFileLists(t *testing.T) {
	for _, m := range []map[string]*Spec{AllProgs(), AllSubs()} {
		for name, s := range m {
			for _, k := range []string{"--files0-from", "-files0-from", "--files-from"} {
				if kind, ok := s.Opts[k]; ok && kind != OptDeny {
					t.Errorf("[%s] %s is not deny", name, k)
				}
			}
			if strings.HasSuffix(name, "sum") {
				if _, ok := s.Opts["--check"]; ok && (s.Opts["-c"] != OptDeny || s.Opts["--check"] != OptDeny) {
					t.Errorf("[%s] -c/--check is not deny", name)
				}
			}
		}
	}
	if Prog("file").Opts["-f"] != OptDeny {
		t.Error("[file] -f is not deny")
	}
	for _, n := range []string{"wc", "du"} {
		if Prog(n).Opts["--files0-from"] != OptDeny {
			t.Errorf("[%s] --files0-from is not deny", n)
		}
	}
}

// The spec files hold no repeated block: two tables with the same option
// lines say so with "like", and options several tables share are a
// [@SET] they include.
func TestSpecFilesNoRepeats(t *testing.T) {
	seen := map[string]string{} // a table's option lines -> its name
	lineSeen := map[string]string{}
	for _, f := range specSources {
		b := f.src
		var name string
		var lines []string
		flush := func() {
			if name != "" && len(lines) >= 3 {
				key := strings.Join(lines, "\n")
				if other, dup := seen[key]; dup {
					t.Errorf("[%s] repeats the option lines of [%s]: write like %s", name, other, other)
				}
				seen[key] = name
			}
			name, lines = "", nil
		}
		for _, l := range strings.Split(string(b), "\n") {
			if i := strings.Index(l, "#"); i >= 0 {
				l = l[:i]
			}
			l = strings.TrimSpace(l)
			switch {
			case strings.HasPrefix(l, "["):
				flush()
				name = l
			case l == "" || strings.HasPrefix(l, "style ") || strings.HasPrefix(l, "operands ") || strings.HasPrefix(l, "max-operands "):
			default:
				lines = append(lines, l)
				// A long line of options in two tables is a set to share.
				if w := strings.Fields(l); len(w) > 12 && !strings.HasPrefix(l, "like ") {
					if other, dup := lineSeen[l]; dup && other != name {
						t.Errorf("%s and %s both list %q...: make it a [@SET]", other, name, strings.Join(w[:4], " "))
					}
					lineSeen[l] = name
				}
			}
		}
		flush()
	}
}

func TestParseSpecsErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"flag -a", "line 1: a directive before the first [NAME]"},
		{"[a]\nflag -a\nflag -a", "line 3: -a is listed twice in [a]"},
		{"[a]\n[a]", "line 2: a is defined twice"},
		{"[a]\nstyle fancy", `line 2: unknown style "fancy"`},
		{"[a]\nwrite -o", `line 2: unknown directive "write"`},
		{"[a]\nlike b", "line 2: like b: no table b before this one"},
		{"[a]\ninclude b", "line 2: include b: no set of options b (a [@NAME]) before this table"},
		{"[a]\nmax-operands -2", `line 2: max-operands "-2": want -1 or more`},
		{"[a]\nrecursive \"-d recurse", "line 2: an unclosed quote"},
		{"[a]\nflag", "line 2: flag needs at least one option"},
		{"[a]\nflag -a\n[b]\nlike a", "line 4: like must come first in [b]"},
		{"[a", "line 1: a table's name is written [NAME]"},
	} {
		err := parseSpecs(tc.src, map[string]*Spec{})
		if tc.src == "[a]\nflag -a\n[b]\nlike a" {
			// like after nothing is fine; after an option it is not
			err = parseSpecs("[a]\nflag -a\n[b]\nflag -b\nlike a", map[string]*Spec{})
			tc.want = "line 5: like must come first in [b]"
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %s", tc.src, err, tc.want)
		}
	}
	// like copies, and the copy is its own.
	m := map[string]*Spec{}
	if err := parseSpecs("[a]\nflag -a\nrecursive \"-d recurse\" -r\n[b]\nlike a\nflag -b", m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["a"].Opts["-b"]; ok || m["b"].Opts["-a"] != OptFlag || !slices.Equal(m["b"].Recursive, []string{"-d recurse", "-r"}) {
		t.Errorf("like: %+v %+v", m["a"], m["b"])
	}
}

func FuzzParseSpecs(f *testing.F) {
	for _, e := range specSources {
		f.Add(e.src[:min(len(e.src), 2000)])
	}
	f.Add("[a]\nlike a")
	f.Fuzz(func(t *testing.T, src string) {
		m := map[string]*Spec{}
		if err := parseSpecs(src, m); err != nil && !strings.HasPrefix(err.Error(), "line ") {
			t.Fatalf("an error that names no line: %v", err)
		}
		for name, s := range m {
			if s == nil || s.Opts == nil {
				t.Fatalf("[%s] is incomplete", name)
			}
		}
	})
}

// BenchmarkLoadSpecs is what loading every option table costs a process.
func BenchmarkLoadSpecs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		all := map[string]*Spec{}
		for _, f := range specSources {
			if err := parseSpecs(f.src, all); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkLoadGitStatus is what a process that judges `git status` pays
// for the tables: the index, and the tables git status uses.
func BenchmarkLoadGitStatus(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		specIndex = sync.OnceValue(indexSpecs)
		if Sub("git") == nil || Sub("git status") == nil {
			b.Fatal("no git tables")
		}
	}
}

// The spec files the package reads are the *.spec files in its
// directory, in the order of their names.
func TestSpecSourcesAreTheFiles(t *testing.T) {
	files, err := filepath.Glob("*.spec")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, f := range specSources {
		listed = append(listed, f.name)
		b, err := os.ReadFile(f.name)
		if err != nil || string(b) != f.src {
			t.Errorf("%s: the embedded text is not the file's (%v)", f.name, err)
		}
	}
	if !slices.Equal(files, listed) {
		t.Errorf("specSources lists %v, the directory holds %v", listed, files)
	}
}

// Tables parsed one by one at their first lookup are the tables of the
// files parsed whole, in order: none is missing, none differs, and a
// lookup finds what All lists (and only a program's table as a Prog, a
// subcommand's as a Sub).
func TestLazyTablesMatchWholeFiles(t *testing.T) {
	whole := map[string]*Spec{}
	for _, f := range specSources {
		if err := parseSpecs(f.src, whole); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
	}
	progs, subs := All()
	if n := len(progs) + len(subs); n < 130 {
		t.Fatalf("%d tables", n)
	}
	sets := 0
	for name, w := range whole {
		if strings.HasPrefix(name, "@") {
			sets++
			if Prog(name) != nil || Sub(name) != nil {
				t.Errorf("%s (a set of options) is a table", name)
			}
			continue
		}
		got, other := Prog(name), Sub(name)
		if isSub(name) {
			got, other = other, got
			if subs[name] != got {
				t.Errorf("%s: Sub is not All's", name)
			}
		} else if progs[name] != got {
			t.Errorf("%s: Prog is not All's", name)
		}
		if got == nil || other != nil {
			t.Fatalf("%s: lookup %v, other kind %v", name, got, other)
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s: parsed alone %+v, with its file %+v", name, got, w)
		}
	}
	if len(progs)+len(subs)+sets != len(whole) {
		t.Errorf("All lists %d tables and %d sets, the files hold %d", len(progs)+len(subs), sets, len(whole))
	}
	for _, name := range []string{"", "nosuch", "git nosuch", "[git]"} {
		if Prog(name) != nil || Sub(name) != nil {
			t.Errorf("%q: a table", name)
		}
	}
}

// A table that does not parse panics at every lookup, and so does a table
// that names it: never an empty or missing table in its place.
func TestBrokenTablePanicsEveryTime(t *testing.T) {
	index := map[string]*table{}
	if err := scanTables("[a]\nflag -a\nbogus -b\n[b]\nlike a\n[c]\nflag -c", func(name string, line int, body string) error {
		index[name] = &table{name: name, file: "x.spec", line: line, body: body, order: len(index), index: index}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		for _, name := range []string{"a", "b"} {
			func() {
				defer func() {
					if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `x.spec: line 3: unknown directive "bogus"`) {
						t.Errorf("%s: %v", name, r)
					}
				}()
				t.Errorf("%s: %+v", name, index[name].get())
			}()
		}
	}
	if c := index["c"].get(); c.Opts["-c"] != OptFlag {
		t.Errorf("c: %+v", c)
	}
}

func AllProgs() map[string]*Spec { p, _ := All(); return p }
func AllSubs() map[string]*Spec  { _, s := All(); return s }

// A lookup parses the table it finds and the tables that names (like,
// include), no other: judging `git status` must not cost the 140 tables
// (840 µs at a process's start, BenchmarkLoadSpecs).
func TestLookupParsesOnlyWhatItNeeds(t *testing.T) {
	index := indexSpecs()
	parsed := func() (names []string) {
		for name, tb := range index {
			if tb.spec != nil {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		return names
	}
	if p := parsed(); len(p) != 0 {
		t.Fatalf("the index parsed %v", p)
	}
	if s := index["git status"].get(); s == nil || s.Opts["--porcelain"] == 0 {
		t.Fatalf("git status: %+v", s)
	}
	index["git"].get()
	if p := parsed(); !slices.Equal(p, []string{"@git-subcommand", "git", "git status"}) {
		t.Errorf("git and git status parsed %v", p)
	}
}
