package shell_test

import (
	"fmt"

	"github.com/toolscope/toolscope/shell"
)

func ExampleAnalyze() {
	opts := &shell.Options{Cwd: "/srv/proj", WorkingDirs: []string{"/srv/proj"}, Home: "/home/u"}
	for _, cmd := range []string{
		"git status && go version",
		"go test ./...",
		"git log; r''m -rf /",
		"cat ~/.ssh/id_rsa",
		"echo $(id)",
	} {
		a := shell.Analyze(cmd, opts)
		fmt.Printf("%-28s %-11s %s\n", cmd, a.Verdict, a.Layer)
	}
	// Output:
	// git status && go version     allow       read-only
	// go test ./...                passthrough passthrough
	// git log; r''m -rf /          ask         dangerous-pattern
	// cat ~/.ssh/id_rsa            ask         sensitive-path
	// echo $(id)                   ask         injection
}

func ExampleMatchRule() {
	all, any := shell.MatchRule("git log:*", "git log --oneline; rm -rf build")
	fmt.Println(all, any)
	fmt.Println(shell.Suggestions("npm run build && git push origin main"))
	// Output:
	// false true
	// [npm run:* git push:*]
}
