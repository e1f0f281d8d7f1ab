package specs

import (
	"slices"
	"strings"
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
	files, _ := specFiles.ReadDir(".")
	seen := map[string]string{} // a table's option lines -> its name
	lineSeen := map[string]string{}
	for _, f := range files {
		b, _ := specFiles.ReadFile(f.Name())
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
	files, _ := specFiles.ReadDir(".")
	for _, e := range files {
		b, _ := specFiles.ReadFile(e.Name())
		f.Add(string(b[:min(len(b), 2000)]))
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

// BenchmarkLoadSpecs is what loading the option tables costs a process
// (once, at start).
func BenchmarkLoadSpecs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		mustLoadSpecs()
	}
}

func AllProgs() map[string]*Spec { p, _ := All(); return p }
func AllSubs() map[string]*Spec  { _, s := All(); return s }
