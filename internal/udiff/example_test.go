package udiff_test

import (
	"fmt"

	"github.com/toolscope/toolscope/internal/udiff"
)

func ExampleUnified() {
	old := "package main\nfunc main() {\n\tprintln(\"hi\")\n}\n"
	new := "package main\nfunc main() {\n\tprintln(\"hello\")\n}"
	fmt.Print(udiff.Unified("a/main.go", "b/main.go", old, new, 3))
	// Output:
	// --- a/main.go
	// +++ b/main.go
	// @@ -1,4 +1,4 @@
	//  package main
	//  func main() {
	// -	println("hi")
	// -}
	// +	println("hello")
	// +}
	// \ No newline at end of file
}
