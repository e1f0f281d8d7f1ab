package shell_test

import (
	"fmt"

	"github.com/toolscope/toolscope/shell"
)

func ExampleAnalyze() {
	opts := &shell.Options{Cwd: "/srv/proj", WorkingDirs: []string{"/srv/proj"}, Home: "/home/u", HardenedEnv: true}
	for _, cmd := range []string{
		"git status && go version",
		"go test ./...",
		"git log; r''m -rf /",
		"cat ~/.ssh/id_rsa",
		"cat /etc/passwd",
		`for f in *.go; do echo "$f: $(wc -l < "$f")"; done`,
		"echo $((1+1))",
	} {
		a := shell.Analyze(cmd, opts)
		fmt.Printf("%-50s %-11s %s\n", cmd, a.Verdict, a.Layer)
	}
	// Output:
	// git status && go version                           allow       read-only
	// go test ./...                                      passthrough passthrough
	// git log; r''m -rf /                                ask         dangerous-pattern
	// cat ~/.ssh/id_rsa                                  ask         sensitive-path
	// cat /etc/passwd                                    passthrough passthrough
	// for f in *.go; do echo "$f: $(wc -l < "$f")"; done allow       read-only
	// echo $((1+1))                                      ask         injection
}

func ExampleMatchRule() {
	all, any := shell.MatchRule("git log:*", "git log --oneline; rm -rf build")
	fmt.Println(all, any)
	all, any = shell.MatchRule("npm test", "npm test --watch")
	fmt.Println(all, any)
	// Output:
	// false true
	// false false
}

func ExampleAnalysis_AllowedBy() {
	opts := &shell.Options{Cwd: "/srv/proj", WorkingDirs: []string{"/srv/proj"}, HardenedEnv: true}
	a := shell.Analyze("git add . && git commit -m 'fix' && git log -1", opts)
	fmt.Println(a.Verdict, a.Suggestions())
	used, ok := a.AllowedBy([]string{"git add:*", "git commit:*"})
	fmt.Println(ok, used)
	// Output:
	// passthrough [git add:* git commit:*]
	// true [git add:* git commit:*]
}
