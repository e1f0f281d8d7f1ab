package pathpolicy

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// renderClassDoc is docs/protected-paths.md, made from the class.
func renderClassDoc() string {
	var b strings.Builder
	b.WriteString("# The protected class\n\n")
	b.WriteString("Files that a program runs or loads later, or that grant permissions, protected everywhere and at\n")
	b.WriteString("any depth: no tool writes them without asking (a bypass-immune ask), in every mode but bypass.\n")
	b.WriteString("Generated from `internal/pathpolicy/class.go` (`go test ./internal/pathpolicy -run TestProtectedClassDoc -update-doc`).\n\n")
	b.WriteString("Shapes: *name* is the last component; *suffix* the last components; *dir* a directory (or directory\n")
	b.WriteString("suffix) anywhere in the path, with everything below it; *glob* a last-component pattern.\n")
	b.WriteString("Effects: *runs* (a program runs or loads it automatically) or *grants* (it grants permissions,\n")
	b.WriteString("holds credentials or starts processes).\n\n")
	b.WriteString("Beyond names, a policy also protects, each with everything below it: `Options.ProtectedPaths`\n")
	b.WriteString("(toolscope's own state, configuration and run files), the directories on `$PATH`\n")
	b.WriteString("(`Options.PathDirs`), the directory `core.hooksPath` names in the repository's and the user's git\n")
	b.WriteString("configuration, and the `bin/` and `lib/*/site-packages/` of any directory holding `pyvenv.cfg`\n")
	b.WriteString("(`Policy.ProtectedPaths` lists the first three).\n\n")
	b.WriteString("Under the OS sandbox (`--sandbox`) the members in the writable directories are read-only at any\n")
	b.WriteString("depth (`node_modules` is not scanned), the missing protected directories, `.mcp.json` and `.envrc`\n")
	b.WriteString("at the top cannot be made, and whatever else of the class a command makes is moved aside to\n")
	b.WriteString("`NAME~toolscope-blocked` when it ends (`sandbox.Run.Quarantine`).\n\n")
	b.WriteString("| pattern | shape | effect | why |\n|---|---|---|---|\n")
	for _, e := range class {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", e.Pattern, e.Shape, e.Effect, strings.ReplaceAll(e.Why, "|", "\\|"))
	}
	return b.String()
}

var updateDoc = os.Getenv("UPDATE_DOC") != ""

// The documented list is the class.
func TestProtectedClassDoc(t *testing.T) {
	const doc = "../../docs/protected-paths.md"
	want := renderClassDoc()
	if updateDoc {
		if err := os.WriteFile(doc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is not the class: regenerate it with UPDATE_DOC=1 go test ./internal/pathpolicy -run TestProtectedClassDoc", doc)
	}
}

// Every entry is well formed, and the exported lists are the table's.
func TestProtectedClassTable(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range class {
		if e.Pattern == "" || e.Why == "" || e.Effect == 0 || e.Shape == 0 || strings.HasSuffix(e.Pattern, "/") {
			t.Errorf("entry %+v: incomplete", e)
		}
		l := strings.ToLower(e.Pattern)
		if seen[l] {
			t.Errorf("%s: twice", e.Pattern)
		}
		seen[l] = true
		hasSlash, hasMeta := strings.Contains(e.Pattern, "/"), strings.ContainsAny(e.Pattern, "*?[")
		switch e.Shape {
		case Name:
			if hasSlash || hasMeta {
				t.Errorf("%s: a name with a slash or glob", e.Pattern)
			}
		case Suffix:
			if !hasSlash || hasMeta {
				t.Errorf("%s: a suffix without a slash, or with a glob", e.Pattern)
			}
		case Dir:
			if hasMeta {
				t.Errorf("%s: a dir with a glob", e.Pattern)
			}
		case Glob:
			if !hasMeta {
				t.Errorf("%s: a glob without a wildcard", e.Pattern)
			}
		}
	}
	for _, e := range class {
		in := slices.Contains(DefaultProtectedFiles, e.Pattern) || slices.Contains(DefaultProtectedDirs, e.Pattern)
		if in != (e.Shape != Glob) {
			t.Errorf("%s: in the default lists = %v", e.Pattern, in)
		}
	}
	// What the name lists held before the class was one table is still in it.
	for _, n := range []string{".gitconfig", ".gitmodules", ".gitattributes", ".git-credentials", ".bashrc", ".bash_profile",
		".bash_login", ".bash_logout", ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".profile", ".ssh/config",
		".ssh/authorized_keys", ".netrc", ".npmrc", ".pypirc", ".pgpass", ".env", ".envrc", ".kube/config", ".docker/config.json",
		".mcp.json", ".pre-commit-config.yaml", ".lefthook.yml", "lefthook.yml", ".gdbinit", ".lldbinit", ".exrc", ".nvimrc",
		".nvim.lua", ".vimrc", ".cargo/config.toml", ".cargo/config", ".yarnrc.yml", ".yarnrc", ".curlrc", ".wgetrc", ".tmux.conf"} {
		if !slices.Contains(DefaultProtectedFiles, n) {
			t.Errorf("DefaultProtectedFiles lost %s", n)
		}
	}
	for _, n := range []string{".git", ".vscode", ".idea", ".ssh", ".aws", ".gnupg", ".claude", ".husky", ".cursor", ".gemini", ".codex", ".hg"} {
		if !slices.Contains(DefaultProtectedDirs, n) {
			t.Errorf("DefaultProtectedDirs lost %s", n)
		}
	}
	// Passing the defaults explicitly is passing nil: the globs stay.
	p := New(&Options{ProtectedFiles: DefaultProtectedFiles, ProtectedDirs: DefaultProtectedDirs, PathDirs: []string{}})
	if _, prot := p.Spelling("/p/x/evil.pth"); !prot {
		t.Error("explicit defaults lost *.pth")
	}
	// Custom directories may be suffixes.
	p = New(&Options{ProtectedFiles: []string{}, ProtectedDirs: []string{"deploy/scripts"}, PathDirs: []string{}})
	for path, want := range map[string]bool{"/p/deploy/scripts/x.sh": true, "/p/a/deploy/scripts": true, "/p/deploy/x": false, "/p/scripts/x": false} {
		if _, prot := p.Spelling(path); prot != want {
			t.Errorf("custom dirs: %s protected=%v, want %v", path, prot, want)
		}
	}
}

func TestGitConfigValues(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		bad  bool
	}{
		{"[core]\n\thooksPath = tools/hooks\n", []string{"tools/hooks"}, false},
		{"[Core]\nHOOKSPATH=a\n[core]\nhookspath = b # c\n", []string{"a", "b"}, false},
		{"[core] hooksPath = x\n", []string{"x"}, false},
		{"[core]\nhooksPath = \"my hooks\" ; c\n", []string{"my hooks"}, false},
		{"[core]\nhooksPath = a\\\nb\n", []string{"ab"}, false},
		{"[core]\nhooksPath = \"a\\\"b\\\\c\"\n", []string{"a\"b\\c"}, false},
		{"[core \"x\"]\nhooksPath = no\n[core.x]\nhooksPath = no\n", nil, false},
		{"[remote \"o\"]\nurl = x\n[core]\nbare\n", nil, false},
		{"\xef\xbb\xbf[core]\r\n\thooksPath = w\r\n", []string{"w"}, false},
		{"# c\n; c\n[core]\n  hooksPath   =   sp ace  \n", []string{"sp ace"}, false},
		{"hooksPath = x\n", nil, true},
		{"[core\nhooksPath = x\n", nil, true},
		{"[core]\nhooksPath = \"x\n", nil, true},
		{"[core]\n= x\n", nil, true},
		{"[core]\nhooksPath = \\q\n", nil, true},
		{"[core]\nhooks path = x\n", nil, true},
	} {
		got, err := gitConfigValues([]byte(c.in), "core", "hookspath")
		if (err != nil) != c.bad || !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, %v; want %q, bad=%v", c.in, got, err, c.want, c.bad)
		}
	}
}

func FuzzGitConfigValues(f *testing.F) {
	for _, s := range []string{"[core]\n\thooksPath = tools/hooks\n", "[core \"x\"]\na=\"b\\\"c\" ; d\n", "[a.b]\nc\n", "[core]\nk = a\\\nb"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		vals, err := gitConfigValues(data, "core", "hookspath")
		if err != nil && vals != nil {
			t.Fatal("values with an error")
		}
		for _, v := range vals {
			if len(v) > len(data) {
				t.Fatalf("value %q longer than the input", v)
			}
		}
	})
}

// hooksDirs finds the repository from below its top, through a .git
// file, and reads the global configuration; a malformed config names
// nothing, and ProtectedPaths lists what it found.
func TestHooksDirs(t *testing.T) {
	r, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(r, "home")
	repo := filepath.Join(r, "repo")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, "sub", "deep"), 0o755)
	os.MkdirAll(home, 0o755)
	os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("[core]\nhooksPath = .githooks\n"), 0o644)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\nhooksPath = ~/global-hooks\n"), 0o644)
	got := hooksDirs(filepath.Join(repo, "sub", "deep"), home)
	want := []string{filepath.Join(repo, ".githooks"), filepath.Join(home, "global-hooks")}
	if !slices.Equal(got, want) {
		t.Errorf("hooksDirs = %q, want %q", got, want)
	}
	p := New(&Options{WorkingDirs: []string{filepath.Join(repo, "sub")}, Home: home, PathDirs: []string{}})
	slices.Sort(want)
	if pp := p.ProtectedPaths(); !slices.Equal(pp, want) {
		t.Errorf("ProtectedPaths = %q, want %q", pp, want)
	}
	if !p.Classify(filepath.Join(repo, ".githooks", "pre-push")).Protected {
		t.Error("the hooks directory is not protected")
	}
	// Malformed: nothing extra, .git itself still protected.
	bad := filepath.Join(r, "bad")
	os.MkdirAll(filepath.Join(bad, ".git"), 0o755)
	os.WriteFile(filepath.Join(bad, ".git", "config"), []byte("[core\nhooksPath = h\n"), 0o644)
	if got := hooksDirs(bad, ""); len(got) != 0 {
		t.Errorf("malformed config: %q", got)
	}
	p = New(&Options{WorkingDirs: []string{bad}, Home: home, PathDirs: []string{}})
	if !p.Classify(filepath.Join(bad, ".git", "config")).Protected || p.Classify(filepath.Join(bad, "h", "x")).Protected {
		t.Error("malformed config: wrong protection")
	}
	// A submodule: .git is a file naming the git directory.
	sub := filepath.Join(r, "sm")
	gd := filepath.Join(repo, ".git", "modules", "sm")
	os.MkdirAll(gd, 0o755)
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(gd, "config"), []byte("[core]\n\thooksPath = hk\n"), 0o644)
	rel, _ := filepath.Rel(sub, gd)
	os.WriteFile(filepath.Join(sub, ".git"), []byte("gitdir: "+rel+"\n"), 0o644)
	if got := hooksDirs(sub, ""); !slices.Equal(got, []string{filepath.Join(sub, "hk")}) {
		t.Errorf("submodule: %q", got)
	}
}

// PATH: relative entries are dropped, the rest cleaned and deduplicated.
func TestSplitPathList(t *testing.T) {
	got := SplitPathList(".::bin:/usr/bin:/usr/bin/:./node_modules/.bin:/opt/x/../y")
	if want := []string{"/usr/bin", "/opt/y"}; !slices.Equal(got, want) {
		t.Errorf("SplitPathList = %q, want %q", got, want)
	}
}

func TestMemberOf(t *testing.T) {
	for _, c := range []struct {
		path, pattern string
	}{
		{"vendor/lib/.git/config", ".git"},
		{"a/b/c/d/e/f/g/h/.git", ".git"},
		{"sub/.claude/settings.local.json", ".claude"},
		{"x/.envrc", ".envrc"},
		{"x/.env.local", ".env"},
		{"x/.GitHub/Workflows/ci.yml", ".github/workflows"},
		{".venv/lib/python3.12/site-packages/evil.pth", "*.pth"},
		{"tools/.venv/bin/python", ".venv/bin"},
		{"deep/.ssh/config", ".ssh"},
		{"Jenkinsfile", "Jenkinsfile"},
		{"src/main.go", ""},
		{"certs/server.key", ""},
		{".env.example", ""},
		{".github/ISSUE_TEMPLATE/bug.md", ""},
	} {
		e, ok := MemberOf(c.path)
		if ok != (c.pattern != "") || e.Pattern != c.pattern {
			t.Errorf("MemberOf(%q) = %q, %v; want %q", c.path, e.Pattern, ok, c.pattern)
		}
		if ok && e.Why == "" {
			t.Errorf("MemberOf(%q): no reason", c.path)
		}
	}
}

// secretName finds a suffix by the name's last dot: each must have one
// dot, its first byte.
func TestSecretSuffixesOneDot(t *testing.T) {
	for _, x := range secretSuffixes {
		if strings.LastIndexByte(x, '.') != 0 {
			t.Errorf("%q: secretName would not find it", x)
		}
	}
}

// TestQuickScanPairs: the pair filter of the quick scan changes no answer:
// over random paths made of pieces of its names, it agrees with a scan
// that tries every name at every position.
func TestQuickScanPairs(t *testing.T) {
	q := defaultNames.quick
	ref := func(path string) bool {
		for i := 0; i < len(path); i++ {
			c := path[i]
			if c == '/' {
				r := path[i:]
				if strings.HasPrefix(r, "/proc") || strings.HasPrefix(r, "/etc/") || strings.HasPrefix(r, "/run/") {
					return true
				}
			}
			if c == '.' && secretSuffixAt(path, i) {
				return true
			}
			for _, n := range q.names {
				if hasFoldASCIIAt(path, i, n) {
					return true
				}
			}
		}
		return false
	}
	var pieces []string
	for _, n := range q.names {
		pieces = append(pieces, n, strings.ToUpper(n[:1])+n[1:], n[:len(n)/2+1])
	}
	pieces = append(pieces, "/", "a", "Z", ".", "é", "x_y")
	r := rand.New(rand.NewPCG(5, 6))
	hits := 0
	for range 200_000 {
		var p string
		for range r.IntN(5) + 1 {
			p += pieces[r.IntN(len(pieces))]
		}
		got, want := q.scan(p), ref(p)
		if got != want {
			t.Fatalf("scan(%q) = %v, trying every name says %v", p, got, want)
		}
		if want {
			hits++
		}
	}
	if hits == 0 {
		t.Fatal("no path held a name")
	}
}
