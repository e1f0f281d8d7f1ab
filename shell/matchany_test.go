package shell

import (
	"strings"
	"testing"
)

// MatchAnyRule agrees with MatchRule's any for every rule, in order.
func TestMatchAnyRule(t *testing.T) {
	rules := []string{"git push:*", "rm -r:*", "kill:*", "docker:*"}
	for _, cmd := range []string{
		"make", "git -C . push", "env git push", "sh -c 'rm -r x'", "echo; kill 1", "docker run x",
		"f() { git \"$@\"; }; f push", "rm -r", "unterminated 'quote", "git commit -m 'git push later'",
	} {
		want := ""
		for _, r := range rules {
			if _, any := MatchRule(r, cmd); any {
				want = r
				break
			}
		}
		got, ok := MatchAnyRule(rules, cmd)
		if got != want || ok != (want != "") {
			t.Errorf("%q: MatchAnyRule = %q %v, MatchRule says %q", cmd, got, ok, want)
		}
		if got, ok := Analyze(cmd, &Options{KeepParse: true}).MatchAnyRule(rules); got != want || ok != (want != "") {
			t.Errorf("%q: Analysis.MatchAnyRule = %q %v, MatchRule says %q", cmd, got, ok, want)
		}
	}
	if _, ok := MatchAnyRule(nil, "git push"); ok {
		t.Error("no rules matched")
	}
}

func BenchmarkMatchAnyRule(b *testing.B) {
	rules := []string{"git push:*", "git send-email:*", "git reset:*", "git clean:*", "git restore:*",
		"git checkout --:*", "git checkout -f:*", "git stash drop:*", "git branch -D:*", "git gc:*",
		"rm -r:*", "rm -R:*", "rm --recursive:*", "shred:*", "kill:*", "pkill:*", "killall:*"}
	for b.Loop() {
		MatchAnyRule(rules, "make -j4 && go test ./... | tee out.txt")
	}
}

// Analysis.MatchRule, on the analysis's own parse, agrees with MatchRule
// for every row of the command table and a spread of rules, allow and
// deny sides alike: the one parse changes nothing but the work.
func TestAnalysisMatchRuleAgrees(t *testing.T) {
	contents := []string{"git log:*", "rm:*", "npm test", "git *", "ls*", "echo *", "", "cd:*", "sh -c:*",
		"find:*", "tar:*", "python3:*", "curl:*", "git push:*", `echo \*`, "sed -i:*", "env *"}
	extra := []string{"", "   ", "ls 'unterminated", "ls\rrm -rf x", "git log; rm -rf x", strings.Repeat("a ", 9000)}
	cmds := extra
	for _, r := range loadTable(t) {
		cmds = append(cmds, r.Command)
	}
	dir := t.TempDir()
	for _, cmd := range cmds {
		a := Analyze(cmd, &Options{Cwd: dir, Home: dir, KeepParse: true})
		for _, c := range contents {
			wantAll, wantAny := MatchRule(c, cmd)
			if all, any := a.MatchRule(c); all != wantAll || any != wantAny {
				t.Errorf("%q, rule %q: Analysis.MatchRule = %v %v, MatchRule = %v %v", cmd, c, all, any, wantAll, wantAny)
			}
		}
	}
}
