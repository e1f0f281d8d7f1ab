package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolscope/toolscope/shell/internal/specs"
	"github.com/toolscope/toolscope/shell/internal/unquote"
)

func parseArgs(t *testing.T, src string) []word {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	call := f.Stmts[0].Cmd.(*syntax.CallExpr)
	var out []word
	for _, w := range call.Args {
		var ok bool
		out, ok = (&unquote.Unquoter{Src: src}).ExpandWord(w, out)
		if !ok {
			t.Fatalf("expand %q failed", src)
		}
	}
	return out
}

func TestUnquote(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{`l\s -la`, []string{"ls", "-la"}},
		{`r''m -rf /`, []string{"rm", "-rf", "/"}},
		{`"rm" '-rf' x`, []string{"rm", "-rf", "x"}},
		{`find . -exe\c ls`, []string{"find", ".", "-exec", "ls"}},
		{`git log --out\put=x`, []string{"git", "log", "--output=x"}},
		{`echo "a\"b" "\$x" "\q"`, []string{"echo", `a"b`, "$x", `\q`}},
		{`echo 'a\b'`, []string{"echo", `a\b`}},
		{`echo $'\x2dexec' $'a\tb' $'\101'`, []string{"echo", "-exec", "a\tb", "A"}},
		{"echo a\\\nb", []string{"echo", "ab"}},
		{`touch {a,../../etc/x}`, []string{"touch", "a", "../../etc/x"}},
		{`echo {1..3}`, []string{"echo", "1", "2", "3"}},
		{`echo x{a,b}y`, []string{"echo", "xay", "xby"}},
		{`git show HEAD@{0}`, []string{"git", "show", "HEAD@{0}"}},
		{`echo "$HOME"/x`, []string{"echo", "$HOME/x"}},
	}
	for _, tt := range tests {
		got := argvStrings(parseArgs(t, tt.src))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.src, got, tt.want)
		}
	}
	ws := parseArgs(t, `ls *.go '*.md' "$HOME" ~/x '~/y' $'\e'`)
	if !ws[1].Glob || ws[2].Glob {
		t.Error("glob detection: unquoted * is a glob, quoted is not")
	}
	if ws[3].Literal || !ws[3].Param {
		t.Error("$HOME is not literal")
	}
	if !ws[4].Tilde || ws[5].Tilde {
		t.Error("tilde only when unquoted")
	}
	if ws[6].Literal || !ws[6].Obscured {
		t.Error("$'\\e' decodes to a control character: not literal")
	}
}

func TestBraceDifferential(t *testing.T) {
	for _, src := range []string{`git diff {@'{'0},--output=/tmp/pwned}`, `touch {a,\'b}`, `echo {1..99999}`} {
		f, _ := syntax.NewParser().Parse(strings.NewReader(src), "")
		ok := true
		for _, w := range f.Stmts[0].Cmd.(*syntax.CallExpr).Args {
			if _, good := (&unquote.Unquoter{Src: src}).ExpandWord(w, nil); !good {
				ok = false
			}
		}
		if ok {
			t.Errorf("%s: want refusal", src)
		}
	}
}

func TestFlagParsing(t *testing.T) {
	w := func(ss ...string) []word {
		out := make([]word, len(ss))
		for i, s := range ss {
			out[i] = word{Value: s, Literal: true}
		}
		return out
	}
	sortSpec := func(_, _ any, args []word) (bool, string) {
		p := specPlan(specs.Prog("sort"), args, "sort")
		return p.why == "", p.why
	}
	for _, tc := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"-u", "f"}, true},
		{[]string{"-k2", "-t,", "f"}, true},
		{[]string{"-k", "2", "f"}, true},
		{[]string{"-o", "out"}, false},
		{[]string{"-oout"}, false},
		{[]string{"-uo", "out"}, false},
		{[]string{"-ruo", "out"}, false},
		{[]string{"--o", "x"}, false},
		{[]string{"--ou=x"}, false},
		{[]string{"--output=x"}, false},
		{[]string{"--compress=sh"}, false},
		{[]string{"--rev"}, true},
		{[]string{"--unknown"}, false},
		{[]string{"-k", "-o"}, true}, // -o is the value of -k
		{[]string{"--", "-o"}, true}, // after -- it is an operand
	} {
		if ok, _ := sortSpec(nil, nil, w(tc.args...)); ok != tc.ok {
			t.Errorf("sort %q: ok=%v, want %v", tc.args, ok, tc.ok)
		}
	}
	r := specs.ParseFlags(rmSpec, w("-rfv", "--", "-x", "y"))
	if !r.Has("r") || !r.Has("f") || len(r.Operands) != 2 {
		t.Errorf("rm cluster: %+v", r)
	}
	r = specs.ParseFlags(rmSpec, w("--rec", "--fo", "x"))
	if !r.Has("recursive") || !r.Has("force") {
		t.Errorf("rm abbreviations: %+v", r)
	}
	r = specs.ParseFlags(cpSpec, w("-tdir", "a"))
	if v, _ := r.Value("t"); v != "dir" {
		t.Errorf("attached value: %+v", r)
	}
	r = specs.ParseFlags(cpSpec, w("--target=dir", "a"))
	if v, _ := r.Value("target-directory"); v != "dir" {
		t.Errorf("abbreviated long with value: %+v", r)
	}
	if r := specs.ParseFlags(cpSpec, w("-s", "a", "b")); r.Bad != "-s" {
		t.Errorf("cp -s should be refused: %+v", r)
	}
	if p := specPlan(specs.Prog("rg"), w("-ez", "x"), "rg"); p.why != "" {
		t.Error("rg -ez: z is the pattern of -e")
	}
	if p := specPlan(specs.Prog("rg"), w("-nz", "x"), "rg"); p.why == "" {
		t.Error("rg -nz: z in cluster")
	}
	if p := planDate(nil, nil, w("-us")); p.why == "" {
		t.Error("date -us")
	}
	if p := planDate(nil, nil, w("-d", "yesterday", "+%F")); p.why != "" {
		t.Errorf("date -d yesterday: %s", p.why)
	}
}

func TestPathClassification(t *testing.T) {
	p := newProject(t)
	cfg := newConfig(&Options{Mode: "accept_edits", Cwd: p.proj, WorkingDirs: []string{p.proj}, Home: p.home})
	an := &analyzer{cfg: cfg}
	at := &leaf{cwd: p.proj, pwd: p.proj}
	for _, tc := range []struct {
		path   string
		forbid bool
		want   bool
	}{
		{"a", false, true},
		{"sub/x", false, true},
		{"./sub/../x", false, true},
		{"../x", false, false},
		{"sub/../../x", false, false},
		{p.proj + "/x", false, true},
		{p.proj + "2/x", false, false},
		{p.proj + "-sibling", false, false},
		{p.proj + "/../proj2/x", false, false},
		{"~/x", false, false},
		{"~root/x", false, false},
		{"~+/x", false, true},
		{"link-out/x", false, false},
		{"link-out", false, false},
		{".", true, false},
		{".", false, true},
		{p.proj, true, false},
		{"/", false, false},
		{"/etc/x", false, false},
	} {
		w := word{Value: tc.path, Literal: true, Tilde: strings.HasPrefix(tc.path, "~")}
		if got := an.editInside(editPath{w: w, forbidTop: tc.forbid}, at); got != tc.want {
			t.Errorf("inside(%q, forbidTop=%v) = %v, want %v", tc.path, tc.forbid, got, tc.want)
		}
	}
	// A root spelled through a symlink still contains its real paths.
	alias := filepath.Join(p.root, "alias")
	if err := os.Symlink(p.proj, alias); err != nil {
		t.Fatal(err)
	}
	an2 := &analyzer{cfg: newConfig(&Options{Mode: "accept_edits", Cwd: p.proj, WorkingDirs: []string{alias}, Home: p.home})}
	if !an2.editInside(editPath{w: word{Value: "x", Literal: true}}, at) {
		t.Error("path inside a symlinked working dir refused")
	}
	if an2.editInside(editPath{w: word{Value: "link-out/x", Literal: true}}, at) {
		t.Error("symlink escape accepted with a symlinked working dir")
	}
	// A dangling symlink inside the project is refused (writing through it
	// would create its target).
	if err := os.Symlink(filepath.Join(p.out, "missing"), filepath.Join(p.proj, "dangling")); err != nil {
		t.Fatal(err)
	}
	if an.editInside(editPath{w: word{Value: "dangling", Literal: true}}, at) {
		t.Error("dangling symlink accepted")
	}
	for _, g := range []struct {
		s    string
		want bool
	}{{"*.go", true}, {"src/*", true}, {".*", false}, {"..*", false}, {"sub/.?", false}, {"../*", false}} {
		w := word{Value: g.s, Pat: g.s, Literal: true, Glob: true}
		if got := an.editInside(editPath{w: w}, at); got != g.want {
			t.Errorf("glob %q: %v, want %v", g.s, got, g.want)
		}
	}
}

func TestMatchRule(t *testing.T) {
	tests := []struct {
		rule, cmd string
		all, any  bool
	}{
		{"git log:*", "git log", true, true},
		{"git log:*", "git log --oneline", true, true},
		{"git log:*", "git logx", false, false},
		{"git log:*", "git log; rm -rf x", false, true},
		{"git log:*", "git log && git log -p", true, true},
		{"git log:*", "git log $(rm -rf x)", false, true},
		{"git log:*", "git log > /etc/x", false, true},
		{"git log:*", "LD_PRELOAD=x git log", false, true},
		{"git log:*", "TZ=UTC git log", true, true},
		{"git log:*", "'git' \"log\" -p", true, true},
		{"git log:*", "git  log   -p", true, true},
		{"rm:*", "sudo rm -rf x", false, true},
		{"rm:*", "echo a; rm x", false, true},
		{"rm:*", "echo $(rm x)", false, true},
		{"rm:*", "env FOO=1 nice rm x", false, true},
		{"rm:*", "bash -c 'rm x'", false, true},
		{"rm:*", "find . -exec rm {} \\;", false, true},
		{"rm:*", "X=1 rm x", false, true},
		{"rm:*", "/bin/rm x", false, true},
		{"rm:*", "command rm x", false, true},
		{"rm:*", "timeout 5 rm x", false, true},
		{"rm:*", "xargs rm < list", false, true},
		{"rm:*", "for f in a; do rm $f; done", true, true},
		{"git push:*", "git -C . -c x=y push", false, true},
		// Exact rules match exactly (after normalising whitespace and quoting).
		{"npm test", "npm test", true, true},
		{"npm test", "npm   test", true, true},
		{"npm test", "npm test --watch", false, false},
		{"npm test", "npm test --watch && rm x", false, false},
		{"npm test", "python3 x.py npm test", false, true}, // deny side: the rule's command among the arguments may run (fail closed)
		{"npm test", "npm test && npm test", true, true},
		{"npm install", "npm install lodash", false, false},
		{"npm install", "sudo npm install", false, true},
		// Wildcards.
		{"git * --oneline", "git log --oneline", true, true},
		{"git * --oneline", "git log -p", false, false},
		{"git *", "git", true, true},
		{"git *", "git status; rm x", false, true},
		{"ls *", "ls", true, true},
		{"ls *", "lsof", false, false},
		{"ls*", "lsof", true, true},
		{"git * main", "git push origin main", true, true},
		{"git checkout * -- :*", "git checkout main -- a.go b.go", true, true},
		{"git checkout * -- :*", "git checkout main", false, false},
		{`echo \*`, "echo *", true, true},
		{`echo \*`, "echo a", false, false},
		{`echo a\\b`, `echo 'a\b'`, true, true},
		{`echo \* x*`, "echo * xyz", true, true},
		// Quotes mean the same on both sides.
		{`node -e "x"`, "node -e 'x'", true, true},
		{`node -e "x"`, "node -e x", true, true},
		{`node -e "x"`, `node -e "x" && rm y`, false, true},
		{`grep -E "a|b" src`, "grep -E 'a|b' src", true, true},
		{`grep -E "a|b" src`, `grep -E a\|b src`, true, true},
		{`grep -E "a|b" src`, "grep -E a b src", false, false},
		{`echo "a b"`, "echo a b", false, false},
		{`rm -rf "build dir"`, "rm -rf 'build dir'", true, true},
		{`rm -rf "build dir"`, "sudo rm -rf build\\ dir", false, true},
		{`rm "a`, `rm "a`, false, true}, // an unbalanced rule still matches its own text
		// Malformed or refused commands: deny rules still see them.
		{"ls:*", "ls 'unterminated", false, true},
		{"rm:*", "ls\rrm -rf x", false, true},
		{"ls:*", "ls \x00", false, true},
		{"echo *", "echo x && ls", false, true},
		{"cd:*", "cd X && python3 evil.py", false, true},
		{"env *", "env rm -rf x", true, true},
		{"", "ls", true, true},
		{"", "ls $(x)", true, true},
		{"", "ls $((1))", false, true},
	}
	for _, tt := range tests {
		all, any := MatchRule(tt.rule, tt.cmd)
		if all != tt.all || any != tt.any {
			t.Errorf("MatchRule(%q, %q) = %v,%v; want %v,%v", tt.rule, tt.cmd, all, any, tt.all, tt.any)
		}
	}
}

// TestAllowedBy: a compound passes when every simple command is read-only
// or matched by some allow rule.
func TestAllowedBy(t *testing.T) {
	p := newProject(t)
	opts := p.options(tableRow{Mode: "default"})
	for _, tc := range []struct {
		cmd   string
		rules []string
		ok    bool
	}{
		{"git add . && git commit -m x", []string{"git add:*", "git commit:*"}, true},
		{"git add . && git commit -m x", []string{"git add:*"}, false},
		{"make | tail -5", []string{"make:*"}, true},
		{"make && ls && cat a", []string{"make:*"}, true},
		{"npm test --watch && rm x", []string{"npm test"}, false},
		{"npm test", []string{"npm test"}, true},
		{"make; rm -rf ~", []string{"make:*", "rm:*"}, false}, // immune
		{"cd /tmp && make", []string{"make:*"}, false},        // outside the working directories
		{"make > ../x", []string{"make:*"}, false},
		{"make > build.log", []string{"make:*"}, true},
		{"LD_PRELOAD=x make", []string{"make:*"}, false},
		{"for t in a b; do make $t; done", []string{"make:*"}, true},
		{"echo $(npm test)", []string{"npm test"}, true},
		{"npm install && cat node_modules/x/package.json", []string{"npm install"}, true},
		{"ln -s /etc e && cat e/passwd", []string{"git:*"}, false},
	} {
		a := Analyze(tc.cmd, opts)
		if _, ok := a.AllowedBy(tc.rules); ok != tc.ok {
			t.Errorf("%q with %q: %v, want %v (%s)", tc.cmd, tc.rules, ok, tc.ok, a.Reason)
		}
	}
}

// TestSuggestionsProperty: over the whole command table, the suggestions of
// a command the analyser does not allow, added as allow rules, let the same
// command through; an immune ask suggests nothing; no suggestion repeats.
func TestSuggestionsProperty(t *testing.T) {
	p := newProject(t)
	n := 0
	for i, r := range loadTable(t) {
		a := Analyze(p.expand(r.Command), p.options(r))
		s := a.Suggestions()
		if a.Verdict == Ask && a.BypassImmune && s != nil {
			t.Errorf("row %d %q: an immune ask suggests %q", i+1, r.Command, s)
		}
		if a.Verdict == Allow && s != nil {
			t.Errorf("row %d %q: allowed, yet suggests %q", i+1, r.Command, s)
		}
		seen := map[string]bool{}
		for _, x := range s {
			if seen[x] {
				t.Errorf("row %d: duplicate suggestion %q", i+1, x)
			}
			seen[x] = true
		}
		if len(s) == 0 {
			continue
		}
		n++
		if _, ok := a.AllowedBy(s); !ok {
			t.Errorf("row %d %q: suggestions %q do not let it through", i+1, r.Command, s)
		}
	}
	if n < 200 {
		t.Errorf("only %d rows had suggestions", n)
	}
}

func TestSuggestions(t *testing.T) {
	p := newProject(t)
	opts := p.options(tableRow{Mode: "default"})
	tests := []struct {
		cmd  string
		want []string
	}{
		{"git push", []string{"git push:*"}},
		{"git push origin main", []string{"git push:*"}},
		{"rm ~/.bashrc", nil},    // immune
		{"chmod 777 x", nil},     // immune
		{"cd /tmp && make", nil}, // outside the working directories: no rule can pass it
		{"ls -la", nil},
		{"echo hi | grep h", nil},
		{"npm install && npm test && npm install", []string{"npm install:*", "npm test:*"}},
		{"NODE_ENV=prod npm run build", []string{"npm run build:*"}},
		{"LD_PRELOAD=x npm run build", nil},
		{"find . -delete", []string{"find . -delete"}},
		{"rm build/x.o", []string{"rm build/x.o"}},
		{"cat /etc/passwd", []string{"cat /etc/passwd"}},
		{"python3 -c 'print(1)'", []string{"python3 -c 'print(1)'"}},
		{"echo 'a*' | sh", []string{"sh"}},
		{"a b; c d; e f; g h; i j; k l; m n", []string{"a b", "c d", "e f", "g h", "i j", "k l", "m n"}},
		{"'git' \"commit\" -m x", []string{"git commit:*"}},
	}
	for _, tt := range tests {
		if got := Analyze(tt.cmd, opts).Suggestions(); !slices.Equal(got, tt.want) {
			t.Errorf("Suggestions(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestAnalysisFields(t *testing.T) {
	a := Analyze("ls; rm -rf /; echo x", &Options{Cwd: "/w", Home: "/home/u"})
	if a.Verdict != Ask || !a.BypassImmune || a.Layer != LayerDangerous || a.ReadOnly {
		t.Fatalf("got %+v", a)
	}
	if a.Message != "Permission required: Command contains dangerous pattern: rm -rf" {
		t.Errorf("message %q", a.Message)
	}
	if !strings.Contains(a.Reason, `"rm -rf /" (command 2 of 3)`) || !strings.Contains(a.Reason, "dangerous pattern rm -rf") {
		t.Errorf("reason %q", a.Reason)
	}
	if len(a.Commands) != 3 || !slices.Equal(a.Commands[1].Argv, []string{"rm", "-rf", "/"}) || !a.Commands[0].ReadOnly {
		t.Errorf("commands %+v", a.Commands)
	}
	a = Analyze("git status && ls | wc -l", &Options{HardenedEnv: true, Cwd: t.TempDir()})
	if a.Verdict != Allow || !a.ReadOnly || a.Layer != LayerReadOnly {
		t.Errorf("read-only chain: %+v", a)
	}
	if a = Analyze("git status", nil); a.Verdict != Passthrough || !strings.Contains(a.Reason, "hardened environment") {
		t.Errorf("git without the hardened environment: %+v", a)
	}
	a = Analyze("npm test", nil)
	if a.Verdict != Passthrough || a.Message != "Execute bash command: npm test" || a.Layer != LayerPassthrough {
		t.Errorf("passthrough: %+v", a)
	}
	a = Analyze("ls $((1+1))", nil)
	if a.Message != "Permission required: Command contains arithmetic_expansion which cannot be statically analyzed" {
		t.Errorf("injection message %q", a.Message)
	}
	if a = Analyze("ls $(id)", nil); a.Verdict != Passthrough || !strings.Contains(a.Reason, "known only at run time") {
		t.Errorf("a substitution as an argument: %+v", a)
	}
	a = Analyze("rm -r /usr", nil)
	if !strings.HasPrefix(a.Message, "Dangerous removal operation detected: '/usr'") || a.Layer != LayerRemoval {
		t.Errorf("removal %+v", a)
	}
	a = Analyze("cat ~/.ssh/id_rsa", &Options{Home: "/home/u"})
	if a.Message != "Permission required: Bash command operates on sensitive paths: ~/.ssh/id_rsa" {
		t.Errorf("sensitive %q", a.Message)
	}
	a = Analyze("sed 's/a/b/e' f", nil)
	if a.Message != "Permission required: sed execute operation (e/E) not allowed" || a.Layer != LayerSed {
		t.Errorf("sed %+v", a)
	}
	a = Analyze("   ", nil)
	if a.Verdict != Passthrough || a.Layer != LayerEmpty {
		t.Errorf("empty %+v", a)
	}
	dir := t.TempDir()
	a = Analyze("mkdir build", &Options{Mode: "accept_edits", Cwd: dir, WorkingDirs: []string{dir}})
	if a.Verdict != Allow || a.ReadOnly || a.Layer != LayerAcceptEdits ||
		a.Message != "Permission granted for 'mkdir' command (filesystem command, all targets in working directory)" {
		t.Errorf("accept-edits %+v", a)
	}
	a = Analyze("mkdir build", &Options{Mode: "default", Cwd: dir, WorkingDirs: []string{dir}})
	if a.Verdict != Passthrough {
		t.Errorf("default mode mkdir %+v", a)
	}
	a = Analyze(strings.Repeat("true;", 51), nil)
	if a.Verdict != Ask || a.Layer != LayerLimit {
		t.Errorf("limit %+v", a)
	}
	a = Analyze("ls", &Options{MaxLength: 1})
	if a.Verdict != Ask || a.Layer != LayerReject {
		t.Errorf("length %+v", a)
	}
	a = Analyze("touch .gitconfig", &Options{DangerousFiles: []string{}, DangerousDirs: []string{}})
	if a.Verdict != Passthrough {
		t.Errorf("empty dangerous lists disable write checks: %+v", a)
	}
	for _, v := range []Verdict{Allow, Passthrough, Ask} {
		if v.String() == "" {
			t.Error("empty String")
		}
	}
}

func TestSedRules(t *testing.T) {
	an := &analyzer{cfg: newConfig(nil)}
	w := func(ss ...string) []word {
		out := make([]word, len(ss))
		for i, s := range ss {
			out[i] = word{Value: s, Literal: true}
		}
		return out
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"s/a/b/g", "f"}, ""},
		{[]string{"-n", "5p", "f"}, ""},
		{[]string{"s/a#/b/", "f"}, ""},
		{[]string{"s|a|b|", "f"}, ""},
		{nil, "sed command missing expression"},
		{[]string{"-x", "p"}, "sed flag -x not allowed"},
		{[]string{"--file=x"}, "sed flag --file not allowed"},
		{[]string{"--fi=x"}, "sed flag --fi not allowed"},
		{[]string{"s/a/b/w /tmp/x", "f"}, "sed write operation (w/W) not allowed"},
		{[]string{"s/a/b/e", "f"}, "sed execute operation (e/E) not allowed"},
		{[]string{"/x/{p}", "f"}, "sed curly braces not allowed"},
		{[]string{"!d", "f"}, "sed negation (!) not allowed"},
		{[]string{"1d # c", "f"}, "sed comments not allowed"},
		{[]string{"y/abc/xyz/", "f"}, "sed expression 'y/abc/xyz/' not in allowlist"},
	} {
		if got := an.sedCheck(w(tc.args...), &leaf{cwd: "/", pwd: "/"}).err; got != tc.err {
			t.Errorf("sed %q: %q, want %q", tc.args, got, tc.err)
		}
	}
}

func TestConcurrentAnalyze(t *testing.T) {
	rows := loadTable(t)
	p := newProject(t)
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			for _, r := range rows[:200] {
				Analyze(p.expand(r.Command), p.options(r))
				MatchRule("git log:*", r.Command)
			}
			done <- true
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}

func TestNilOptionsAndDefaults(t *testing.T) {
	if a := Analyze("ls", nil); a.Verdict != Allow {
		t.Errorf("ls with nil options: %+v", a)
	}
	if len(DefaultDangerousFiles) == 0 || len(DefaultDangerousDirs) == 0 {
		t.Error("default lists empty")
	}
	// Never panics on odd input.
	for _, s := range []string{"", "\x00", "((", "$((", "<<EOF", "a=(", "${", "`", "'", "\\", "{a,b}{", "!", ";;", "&&", "|"} {
		Analyze(s, nil)
		MatchRule(s, s)
		Suggestions(s)
	}
}

// A line whose brace expansions hold more words than its budget asks, and
// the expansions are not built to learn it; one just under the budget is
// judged as usual.
func TestBraceWordBudget(t *testing.T) {
	dir := t.TempDir()
	opts := &Options{Cwd: dir, WorkingDirs: []string{dir}}
	word := strings.Repeat("{a,b}", 7)                          // 128 words
	leaf := "echo" + strings.Repeat(" "+word, maxLeafWords/128) // as many words as a leaf may hold
	budget := newConfig(opts).wordBudget()
	n := budget / (maxLeafWords + 1) // leaves that fit
	line := func(k int) string { return strings.TrimSuffix(strings.Repeat(leaf+" && ", k), " && ") }
	if a := Analyze(line(n), opts); a.Verdict != Allow {
		t.Errorf("%d leaves of %d words: %s %s: %s", n, maxLeafWords+1, a.Verdict, a.Layer, a.Reason)
	}
	a := Analyze(line(n+1), opts)
	if a.Verdict != Ask || a.Layer != LayerLimit || !a.BypassImmune || !strings.Contains(a.Reason, "words after expansion") {
		t.Errorf("%d leaves of %d words: %s %s: %s", n+1, maxLeafWords+1, a.Verdict, a.Layer, a.Reason)
	}
	// One leaf of many brace words is refused without building any.
	huge := "echo" + strings.Repeat(" "+word, 40)
	if a := Analyze(huge, opts); a.Verdict != Ask || !a.BypassImmune {
		t.Errorf("40 brace words: %s %s: %s", a.Verdict, a.Layer, a.Reason)
	}
	if allocs := testing.AllocsPerRun(5, func() { Analyze(huge, opts) }); allocs > 3000 {
		t.Errorf("%v allocations to refuse 40 brace words of 128: the expansions were built", allocs)
	}
}
