package bashglob_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolscope/toolscope/internal/bashglob"
)

func Example() {
	// Brackets never match a leading dot, and bash accepts both ! and ^.
	fmt.Println(bashglob.Match(".[!x]it", ".git", nil))
	fmt.Println(bashglob.Match("[.]git", ".git", nil))
	fmt.Println(bashglob.Match("[^x]it", "git", nil))

	// Could "rm -r ?*" touch a name that looks like an option?
	fmt.Println(bashglob.MatchPrefix("?*", "-", nil))
	fmt.Println(bashglob.MatchPrefix("[!-]*", "-", nil))

	// A quoted character is written with a backslash: '*'.txt is \*.txt.
	fmt.Println(bashglob.HasMeta(`\*.txt`), bashglob.HasMeta(`*.txt`))
	// Output:
	// true
	// false
	// true
	// true
	// false
	// false true
}

func ExampleMatchPrefix() {
	// Could this pattern reach into ~/.ssh?
	fmt.Println(bashglob.MatchPrefix("/home/*/.ss[!x]/*", "/home/u/.ssh/", nil))
	// Could it match a name starting with ".env."? Not with "*.go": the
	// leading dot must be matched literally.
	fmt.Println(bashglob.MatchPrefix(".e*", ".env.", nil))
	fmt.Println(bashglob.MatchPrefix("*.go", ".env.", nil))
	// Output:
	// true
	// true
	// false
}

func ExampleExpand() {
	dir, err := os.MkdirTemp("", "bashglob")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"--pre=sh", ".env", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			panic(err)
		}
	}
	// What does "rg x *" hand to rg?
	words, err := bashglob.Expand("*", &bashglob.ExpandOptions{Dir: dir})
	fmt.Println(words, err)
	// A pattern that matches nothing expands to nil: bash keeps the word.
	words, err = bashglob.Expand("*.go", &bashglob.ExpandOptions{Dir: dir})
	fmt.Println(words == nil, err)
	// Output:
	// [--pre=sh notes.txt] <nil>
	// true <nil>
}

func ExampleUnsupported() {
	fmt.Println(bashglob.Unsupported("[[:alpha:]]*"))
	fmt.Println(bashglob.Unsupported("[[:kanji:]]*"))
	// Output:
	// <nil>
	// bashglob: unsupported pattern "[[:kanji:]]*": character class name other than the POSIX ones at offset 1
}
