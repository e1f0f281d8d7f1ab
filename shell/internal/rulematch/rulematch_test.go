package rulematch

import (
	"fmt"
	"testing"

	"github.com/toolscope/toolscope/shell/internal/unquote"
)

// The compiled-rule cache stays bounded however many distinct rules pass.
func TestRuleCacheBounded(t *testing.T) {
	for i := 0; i < 3*maxCachedRules; i++ {
		Compile(fmt.Sprintf("echo %d:*", i))
	}
	n := 0
	ruleCache.Range(func(any, any) bool { n++; return true })
	if n > maxCachedRules {
		t.Errorf("%d rules cached, more than %d", n, maxCachedRules)
	}
}

// The forms of a rule: prefix (:*), a trailing lone *, quotes and
// escaped stars, the raw form's blanks, glob words standing for names.
func TestMatcher(t *testing.T) {
	for _, c := range []struct {
		rule  string
		words []string
		want  bool
	}{
		{"git log:*", []string{"git", "log", "--oneline"}, true},
		{"git log:*", []string{"git", "log"}, true},
		{"git log:*", []string{"git", "logs"}, false},
		{"ls *", []string{"ls"}, true},
		{"npm test", []string{"npm", "test", "--watch"}, false},
		{`echo 'a b'`, []string{"echo", "a b"}, true},
		{`echo 'a b'`, []string{"echo", "a", "b"}, false},
		{`echo \*`, []string{"echo", "*"}, true},
		{`echo \*`, []string{"echo", "x"}, false},
		{"", []string{"anything"}, true},
	} {
		if got := Compile(c.rule).Words(c.words); got != c.want {
			t.Errorf("%q matches %q: %v, want %v", c.rule, c.words, got, c.want)
		}
	}
	if !Compile("rm -rf:*").Raw("rm   -rf  /") {
		t.Error("the raw form does not normalise blanks")
	}
	argv := []unquote.Word{{Value: "/bin/r[m]", Pat: "/bin/r[m]", Glob: true, Literal: true}, {Value: "-rf", Literal: true}}
	if !Compile("rm:*").Globbed(argv) {
		t.Error("/bin/r[m] does not stand for rm")
	}
	if !Compile("rm -rf:*").Unparsed(`x=(; r\m -rf /`) {
		t.Error(`an unparsed command with r\m -rf is not matched`)
	}
}
