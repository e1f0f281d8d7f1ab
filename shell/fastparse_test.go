package shell

import (
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolscope/toolscope/shell/internal/fastparse"
)

// checkFastParse fails when fastParse accepts src and its tree differs in
// anything from the parser's.
func checkFastParse(t *testing.T, src string) bool {
	fast, ok := fastparse.Parse(src)
	if !ok {
		return false
	}
	slow, err := slowParse(src)
	if err != nil {
		t.Fatalf("fastParse accepted %q, which the parser refuses: %v", src, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		var a, b strings.Builder
		syntax.DebugPrint(&a, fast)
		syntax.DebugPrint(&b, slow)
		t.Fatalf("fastParse(%q) differs from the parser:\nfast: %s\nslow: %s", src, a.String(), b.String())
	}
	// analyze takes a fast tree to be one plain simple command without
	// scanning it.
	if kind, n, substs := scanAll(slow); kind != "" || n != 1 || substs {
		t.Fatalf("fastParse accepted %q, which scanAll reads as kind %q, %d commands, substitutions %v", src, kind, n, substs)
	}
	return true
}

func TestFastParse(t *testing.T) {
	for _, src := range []string{"ls", "ls -la  src", "  git status ", "go test ./... -run=X", "a,b c:d e@f g%h i+j",
		"x-y_z.1 /usr/bin/env", "one two three four five six seven eight", "ls *", "ls ~", "cat ~/.ssh/id_*",
		"rm -rf ~", "ls ?*", "* x", "~ x", "ls a*b?c~d", "echo ~root", "ls 'a'", "grep -rn 'func main' --include='*.go' .",
		"echo 'a''b'c", "x ''", "x 'a b   c' d", "sed -n '1,5p' f", "awk '{print $1; x=\"y\"}' f", "echo a'|'b ~'x'"} {
		if !checkFastParse(t, src) {
			t.Errorf("fastParse refused %q", src)
		}
	}
	for _, src := range []string{"", "   ", "a=b cmd", "time ls", "export X", "let x", "if", "ls *(x)", "ls ?(a)", "ls $x",
		"'ls' x", "ls 'a", "ls 'a\nb'", "ls 'é'", "ls 'a\tb'", "ls\tx", "ls\nx", "ls # c", "a;b", "a|b", "a&", "ls > x", "echo {a,b}", "ls [a]", "ls a\\ b",
		"one two three four five six seven eight nine", "!", "ls é", "cmd ^x"} {
		if _, ok := fastparse.Parse(src); ok {
			t.Errorf("fastParse accepted %q", src)
		}
	}
	n := 0
	rows := loadTable(t)
	for _, r := range rows {
		if checkFastParse(t, r.Command) {
			n++
		}
	}
	if n < len(rows)/5 {
		t.Errorf("only %d of %d table commands take the fast path", n, len(rows))
	}
	t.Logf("%d of %d table commands take the fast path", n, len(rows))
}

func FuzzFastParse(f *testing.F) {
	addTableSeeds(f)
	f.Add("ls -la src")
	f.Add("time ls")
	f.Fuzz(func(t *testing.T, src string) { checkFastParse(t, src) })
}

// Random lines over the plain bytes, spaces and a few others: every one
// fastParse accepts must parse to the same tree.
func TestFastParseRandom(t *testing.T) {
	const alphabet = "abcdefghijklmnopqrstuvwxyzAZ09_./-+:@%,=      '\"$*?[]{}~#!^\\|&;<>()\t"
	rng := uint64(1)
	next := func() uint64 { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng }
	accepted := 0
	for i := 0; i < 200000; i++ {
		n := int(next() % 24)
		b := make([]byte, n)
		for j := range b {
			// Mostly plain bytes, so that many lines are accepted.
			if next()%10 < 8 {
				b[j] = alphabet[next()%48]
			} else {
				b[j] = alphabet[next()%uint64(len(alphabet))]
			}
		}
		if checkFastParse(t, string(b)) {
			accepted++
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d random lines took the fast path", accepted)
	}
}
