package bashglob

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixtureFiles are the regular files of the differential test's tree.
var fixtureFiles = []string{
	".env", ".env.local", ".envrc", ".git/config", ".git/HEAD", ".ssh/id_rsa", ".ssh/config",
	"-r", "--pre=sh", "-rf", "-", "--", "-e",
	"a*b", "q?", "[x]", "x]", "[", "]", "!bang", "^caret", `back\slash`, "sp ace", "tab\tname",
	"new\nline", "é", "日本", "ü", "Ü", "ß", "\u212a", "k", "Ab", "ab", "AB", "aB", "b", "e", "z",
	"Makefile", "README.md", "x.go", "y.GO", "x.txt", "X.TXT", "1", "_", "~tilde", "#hash", "$dollar",
	"src/main.go", "src/sub/x.go", "src/.hidden", "src/-flag", "dir/.dot", "dir/file", "dir/sub/deep",
	"..x", "...", ".a", ".x.y", "a.b.c", "[ab]", "a-b", "a]b", "a[b", ":x", "=x", "!", "^",
	"\xff", "v\xe9", "w\xc3", "\xf4\x90\x80\x80", "\xed\xa0\x80", "a[/b]", "[]/x", "d.d/f",
}

// makeFixture builds the tree the differential tests expand patterns in.
func makeFixture(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range fixtureFiles {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := [][2]string{
		{"src", "lnk"}, {"nowhere", "dangle"}, {"loop2", "loop1"}, {"loop1", "loop2"},
		{"self", "self"}, {"..", "dir/up"}, {"x.go", "flnk"},
	}
	for _, l := range links {
		if err := os.Symlink(l[0], filepath.Join(root, l[1])); err != nil {
			t.Skipf("cannot create symbolic links: %v", err)
		}
	}
	return root
}

// handPatterns cover every construct the package claims to handle.
var handPatterns = []string{
	// wildcards and leading dots
	"*", "?", "??", "???", "?*", "*?", "**", "***", ".*", "..*", "...*", ".?", ".??", "*.*",
	".[!.]*", ".[^.]*", "[.]*", "[.]env", "[!a]env", "[!a]*", "[^a]*", "[!.]*", "?env", "*env",
	`\.*`, `\.env`, `.\e*`, ".env*", ".env.*", ".e*", ".[e]nv", ".[!x]nv", ".[!x]it/config",
	".g?t/*", ".ss[!x]/*", ".ss[h]", "[.]ssh", ".*/config", ".*/*", ".*/", ".?*/*",
	// options-like names
	"-*", "--*", "[-]*", "[!-]*", "[^-]*", "-[a-z]", "-?", "?-*", "*=*", "--pre=*", "-[!-]*",
	// multiple components, slashes
	"*/", "*/*", "*/*/*", "*/*/*/*", "*/.*", "src/*.go", "src/*/x.go", "*/x.go", "*//x.go",
	"src//*", "src///*", "*//", "*///", "src/*/", "src/*//", "*/.", "*/..", ".*/.", "*/../x.go",
	"lnk/*", "l?k/*", "l?k/", "dangl?", "dangle", "loop?", "loop1/*", "loop?/*", "self/*",
	"s?lf/*", "s?lf", "dir/up/*", "dir/*/*", "*/up/*", "flnk/*", "fl?k/", "fl?k", "*/sub/*",
	"src/sub/", "sr[c]/", "./*", "./.*", "./src/*", ".//src/*", "src/./*", "src/../*",
	"*/./*", "d?d/*", "d.d/?", "empty/*", "empt?/*", "empt?/", "*/*/", "*/*/*/", "[]/*",
	"a[/b]", "a[/b]*", "a[/*", `a\[/b]`, "[]//x", "[]/?", "*/[x]", "*/x", "*/f", "*/deep",
	// bracket expressions
	"[ab]*", "[a-c]*", "[!a-c]*", "[A-Z]*", "[a-Z]*", "[Z-a]*", "[A-z]*", "[z-a]", "[a-a]",
	"[[:upper:]]*", "[[:lower:]]*", "[[:alpha:]]*", "[[:digit:]]", "[[:punct:]]*",
	"[![:alnum:]]*", "[[:space:]]*", "*[[:space:]]*", "*[[:blank:]]*", "[[:print:]]*",
	"[[:graph:]]*", "[[:cntrl:]]*", "*[[:cntrl:]]*", "[[:xdigit:]]", "[[:word:]]*",
	"[[:ascii:]]*", "[![:ascii:]]*", "[[:alpha:][:digit:]]", "[[:alpha:]-]*", "[[:digit:]-z]",
	"[]]*", "[]x]", "[!]]*", "[^]]*", "[]-a]*", "[]--]*", "[a-]*", "[-a]*", "[!-a]*", "[--z]*",
	"[a--]*", "[!a--]*", "[a-z-9]*", "[a-b-c]*", `[a\-z]*`, `[\a-z]*`, `[a-\z]*`, `[\]]*`,
	`[\[]*`, `[\!]*`, `[\^]*`, "[!!]*", "[!^]*", "[x^]*", "[^^]*", "[\\\\]*", `[a-\]]*`,
	"[[]*", "[[]x]", "[[a]*", "[a[]*", "[a[b]*", "[]a]", "[:]*", "[=]*", "[.]*", "[:x]*",
	"[=x]*", "[[=a=]b]*", "[[=e=][=z=]x]", "[[.a.]b]*", "[[.-.]]*", "[[.-.]a]*", "[[.].]x]",
	"[[=a=]-z]*", "[a[:digit:]]*", "[[:digit:]a]", "[![:digit:]a]*",
	// unclosed brackets and stray brackets
	"[", "]", "[]", "[!]", "[^]", "[!", "[a", "[ab*", "[!a*", "x]", "*]", "[*", "*[", "a[b",
	"a[b*", `a\[b`, "a]b", "a[]]b", "a[]b]", "[[", "[[a", "[]*", "*[]", "[!]*", "[]]", "[]]]",
	`\[*`, `\[x\]`, `\[x]`, `*\]`, `x\]`, `[x\]`, `[x\]*`, "[]a", "[!]a", "[[]", "[]/",
	// escapes
	`a\*b`, "a*b", `q\?`, "q?", `\*`, `\?`, `*\**`, `back\\slash`, `back\\*`, `*\\*`,
	`sp\ ace`, "sp?ace", "*[ ]*", `*\ *`, "tab?name", `tab\	name`, `\-*`, `\-r`, `\!*`,
	`\a\b`, `\#hash`, `\~tilde`, `\$*`, `~*`, `\#*`, `#*`, "$*", `\\`, `\\*`, `*\\`,
	// non-ASCII and invalid UTF-8
	"é", "[é]", "[!é]*", "[é-ü]", "[a-é]", "é*", "日*", "日?", "[日]*", "[[:alpha:]][[:alpha:]]",
	"\xff", "[\xff]", "v?", "v[\xe9]", "v[[:alpha:]]", "w?", "w[\xc3]", "[é]*", "?\xe9",
	"[!a]", "[!a]?", "?\x80", "\xf4?", "????", "[[:graph:]]", "[[:alpha:]]", "[![:print:]]",
	"\xed?", "\xed??", "[ü]", "[Ü]", "[ß]", "[\u212a]", "[[:upper:]]", "[[:lower:]]", "?",
	// case
	"A*", "a*", "[Aa]*", "*[Bb]", "Makefile", "Make*", "*.go", "*.GO", "*.[gG][oO]", "y.G?",
	"[[:upper:]][[:upper:]]", "*.[[:upper:]]*", "*.[![:lower:]]*",
	// assorted
	"!*", "^*", ":*", "=*", "new?line", "*line", "_", "1", "[0-9]", "*.b.*", ".x.*", "...",
	"..?", "[.][.]*", "?[.]*", "*[.]", "*.", ".", "..", "./", "x.go/", "x.go/*", "*.go/",
}

// randomPattern returns a random pattern built from tokens that exercise
// the parser; with slashes it has several components.
func randomPattern(r *rand.Rand, slashes bool) string {
	return randomPatternN(r, slashes, 7)
}

// randomPatternN is randomPattern with at most maxTokens tokens.
func randomPatternN(r *rand.Rand, slashes bool, maxTokens int) string {
	toks := []string{
		"*", "*", "?", "?", "[", "[", "]", "]", "[!", "[^", "-", "-", ".", ".", "a", "b", "e", "n",
		"v", "r", "x", "A", "B", "z", "é", "日", "\xe9", "_", "=", ":", "!", "^", " ",
		`\*`, `\?`, `\[`, `\]`, `\\`, `\.`, `\-`, `\!`, `\^`, `\a`, `\ `, `\é`, `\(`,
		"[:alpha:]", "[:upper:]", "[:lower:]", "[:digit:]", "[:punct:]", "[:space:]",
		"[:alnum:]", "[:word:]", "[:print:]", "[:ascii:]", "[=a=]", "[=.=]", "[.-.]", "[.a.]",
		"[:bogus:]", "[=ab=]", "[:", "[=", "[.",
	}
	if slashes {
		toks = append(toks, "/", "/", "/")
	}
	var b strings.Builder
	n := 1 + r.IntN(maxTokens)
	for range n {
		if r.IntN(4) == 0 {
			// A bracket expression with random contents.
			b.WriteString("[")
			for range r.IntN(5) {
				b.WriteString(toks[r.IntN(len(toks))])
			}
			b.WriteString("]")
			continue
		}
		b.WriteString(toks[r.IntN(len(toks))])
	}
	return b.String()
}

// mutatedPattern turns a name into a pattern that likely matches it (or a
// near miss), by replacing characters with wildcards and bracket
// expressions.
func mutatedPattern(r *rand.Rand, name string) string {
	extras := []string{"a-z", "A-Z", "0-9", "[:alpha:]", "[:upper:]", "[:punct:]", "[:space:]", ".", "-",
		"x", "é", "[:alnum:]", "[=e=]", "[.-.]", "!", "^", `\]`, "]"}
	var b strings.Builder
	// Split the name into characters, keeping invalid bytes as they are.
	var syms []string
	for i := 0; i < len(name); {
		_, n := decodeWide(name[i:])
		if n == 0 {
			n = 1
		}
		syms = append(syms, name[i:i+n])
		i += n
	}
	for i := 0; i < len(syms); i++ {
		c := syms[i]
		lit := c
		if strings.Contains(`*?[]\`, c) {
			lit = `\` + lit
		}
		if c == "/" {
			b.WriteString("/")
			continue
		}
		switch x := r.IntN(20); {
		case x < 4:
			b.WriteString("?")
		case x < 7:
			b.WriteString("[")
			if r.IntN(5) == 0 {
				b.WriteString([]string{"!", "^"}[r.IntN(2)])
			}
			if strings.Contains(`]\-!^[`, c) {
				b.WriteString(`\`)
			}
			b.WriteString(c)
			for range r.IntN(3) {
				b.WriteString(extras[r.IntN(len(extras))])
			}
			b.WriteString("]")
		case x < 8:
			b.WriteString("*")
			i += r.IntN(3)
		default:
			b.WriteString(lit)
		}
	}
	return b.String()
}

func TestExpandMatchesBash(t *testing.T) {
	bash := needBash(t)
	root := makeFixture(t)
	r := rand.New(rand.NewPCG(1, 2))
	patterns := slices.Clone(handPatterns)
	for i := range 3500 {
		if i%2 == 0 {
			patterns = append(patterns, randomPattern(r, true))
		} else {
			patterns = append(patterns, mutatedPattern(r, fixtureFiles[r.IntN(len(fixtureFiles))]))
		}
	}
	escRoot := escapeAll(root)
	for _, p := range []string{"/*", "/.*", "//*", "/src/*.go", "/*/x.go", "/*/", "/.[!.]*/*", "/[]/*"} {
		patterns = append(patterns, escRoot+p)
	}
	type config struct {
		name     string
		shopts   string
		opts     Options
		count    int
		nullglob bool
	}
	configs := []config{
		{"default", "", Options{}, len(patterns), false},
		// With nullglob, a word that bash globs but that matches nothing
		// disappears, which shows exactly which words bash globs.
		{"nullglob", "-s nullglob", Options{}, len(patterns), true},
		{"dotglob", "-s dotglob", Options{DotGlob: true}, len(handPatterns) + 2000, false},
		{"noglobskipdots", "-u globskipdots", Options{DotEntries: true}, len(handPatterns) + 2000, false},
		{"dotglob+noglobskipdots", "-s dotglob; shopt -u globskipdots", Options{DotGlob: true, DotEntries: true}, len(handPatterns), false},
	}
	for _, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			ps := patterns[:cfg.count]
			var supported []string
			unsupported := 0
			for _, p := range ps {
				if Unsupported(p) != nil {
					unsupported++
					if !Match(p, "anything", &cfg.opts) {
						t.Errorf("Match(%q) is false for an unsupported pattern", p)
					}
					if _, err := Expand(p, &ExpandOptions{Dir: root}); err == nil {
						t.Errorf("Expand(%q) succeeded for an unsupported pattern", p)
					}
					continue
				}
				supported = append(supported, p)
			}
			want := bashExpand(t, bash, root, cfg.shopts, supported)
			fails, nonEmpty := 0, 0
			// One cache shared by all the patterns of a configuration, as
			// the analyser shares one per command line: it must not change
			// any answer.
			cache := &DirCache{}
			for i, p := range supported {
				got, err := Expand(p, &ExpandOptions{Options: cfg.opts, Dir: root})
				if err != nil {
					t.Errorf("Expand(%q): %v", p, err)
					continue
				}
				cached, err := Expand(p, &ExpandOptions{Options: cfg.opts, Dir: root, Cache: cache})
				if err != nil || !slices.Equal(cached, got) {
					t.Errorf("Expand(%q) with a cache: %q, %v; without: %q", p, cached, err, got)
				}
				switch {
				case got != nil:
					nonEmpty++
				case !cfg.nullglob || !wordGlob(p):
					// bash leaves the word as written.
					got = []string{dequote(globForm(p))}
				}
				w := slices.Clone(want[i])
				slices.Sort(w)
				if !slices.Equal(got, w) && !(len(got) == 0 && len(w) == 0) {
					fails++
					if fails <= 40 {
						t.Errorf("pattern %q (bash source %s):\n  got  %q\n  bash %q", p, sourceWord(p), got, w)
					}
				}
			}
			if fails > 0 {
				t.Errorf("%d of %d patterns differ", fails, len(supported))
			}
			t.Logf("compared %d patterns with bash, %d of them with matches (%d more are unsupported)", len(supported), nonEmpty, unsupported)
		})
	}
}

// escapeAll escapes every character of s.
func escapeAll(s string) string {
	var b strings.Builder
	for _, c := range s {
		b.WriteString(`\` + string(c))
	}
	return b.String()
}

// caseNames are the names of the Match comparison.
var caseNames = []string{
	"a", "b", "A", "ab", "Ab", "aB", "abc", ".", "..", ".a", ".env", ".env.local", "-", "-r",
	"--pre=sh", "-rf", "a*b", "a?b", "[x]", "x]", "[", "]", "[]", "!", "^", `\`, `a\b`, " ", "a b",
	"\t", "\n", "é", "É", "日", "日本", "ü", "ß", "\u212a", "k", "K", "\u00a0", "\u3000", "²", "½",
	"\u0378", "\ue000", "\U0001F600", "\xff", "\xe9", "\xc3", "v\xe9", "\xf4\x90\x80\x80",
	"\xed\xa0\x80", "0", "9", "_", ":", "=", "x.go", "y.GO", "...", "..x", "a-b", "a]b", "a[b",
	"~", "#", "$", "(", "\x01", "\x7f", "\u0085", "\u2028", "\u0345", "ǅ", "ª", "\u0660",
}

func TestMatchAgreesWithBashCase(t *testing.T) {
	bash := needBash(t)
	r := rand.New(rand.NewPCG(3, 4))
	var patterns []string
	for _, p := range handPatterns {
		if !strings.Contains(p, "/") {
			patterns = append(patterns, p)
		}
	}
	for range 1000 {
		patterns = append(patterns, randomPattern(r, false))
	}
	for range 600 {
		patterns = append(patterns, mutatedPattern(r, caseNames[r.IntN(len(caseNames))]))
	}
	var supported []string
	for _, p := range patterns {
		if Unsupported(p) == nil {
			supported = append(supported, p)
		}
	}
	names := caseNames
	want := bashCase(t, bash, "", supported, names)
	fails := 0
	pairs := 0
	for i, p := range supported {
		for j, n := range names {
			if n == "." || n == ".." {
				continue // the case statement has no dot-entry rule; Expand tests them
			}
			pairs++
			// case applies no leading-dot rule; pathname expansion
			// does, and with DotGlob it is lifted.
			dotOK := n[0] != '.' || strings.HasPrefix(p, ".") || strings.HasPrefix(p, `\.`)
			for _, dotglob := range []bool{false, true} {
				exp := want[i][j] && (dotOK || dotglob)
				if got := Match(p, n, &Options{DotGlob: dotglob}); got != exp {
					fails++
					if fails <= 40 {
						t.Errorf("Match(%q, %q, dotglob=%v) = %v, bash case says %v (source %s)", p, n, dotglob, got, want[i][j], sourceWord(p))
					}
				}
			}
		}
	}
	if fails > 0 {
		t.Errorf("%d disagreements", fails)
	}
	t.Logf("compared %d (pattern, name) pairs with bash's case statement, each with and without DotGlob", pairs)
	_ = fmt.Sprint()
}
