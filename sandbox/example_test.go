package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/toolscope/toolscope/sandbox"
)

// A command in the sandbox may write inside the project, not outside it.
func ExampleRun() {
	project, _ := os.MkdirTemp("", "project")
	defer os.RemoveAll(project)
	sb, err := sandbox.New(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	run, err := sb.NewRun([]string{project})
	if err != nil {
		fmt.Println("no sandbox here:", err)
		return
	}
	defer run.Close()
	cmd := exec.Command("sh", "-c", "echo ok > inside.txt && cat inside.txt; echo no > /etc/outside.txt")
	cmd.Dir = project
	if err := run.Wrap(cmd); err != nil {
		fmt.Println(err)
		return
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := cmd.Start(); err != nil {
		fmt.Println(err)
		return
	}
	status, err := run.Report()
	if err != nil {
		fmt.Println("not run:", err)
		return
	}
	b := make([]byte, 64)
	n, _ := out.Read(b)
	err = cmd.Wait()
	fmt.Printf("%s", b[:n])
	fmt.Println("the write outside failed:", err != nil)
	fmt.Println("writes confined:", status.Has(sandbox.FilesystemWrites))
}

// An untrusted project's list may only narrow the user's: the hosts both
// allow.
func ExampleIntersectDomains() {
	user := []string{"*.npmjs.org", "github.com"}
	project := []string{"registry.npmjs.org", "evil.example", "github.com:443"}
	both, err := sandbox.IntersectDomains(user, project)
	fmt.Println(both, err)
	// Output: [registry.npmjs.org github.com:443] <nil>
}
