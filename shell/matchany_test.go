package shell

import "testing"

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
