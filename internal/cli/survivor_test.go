package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolscope/toolscope/internal/testproc"
)

// survivorPatterns are the ways a command leaves processes behind, each a
// format with one %d: a sleep length that names the pattern's processes.
// The last one runs in the foreground.
var survivorPatterns = []struct{ name, format string }{
	{"setsid -f", "setsid -f sleep %d >/dev/null 2>&1"},
	{"nohup &", "nohup sleep %d >/dev/null 2>&1 &"},
	{"disown", "sleep %d >/dev/null 2>&1 & disown"},
	{"double fork", "(sleep %d >/dev/null 2>&1 &)"},
	{"env -i setsid -f", "env -i setsid -f sleep %d >/dev/null 2>&1"},
	{"env -u TOOLSCOPE_RUN setsid -f", "env -u TOOLSCOPE_RUN setsid -f sleep %d >/dev/null 2>&1"},
	{"daemonizing python", "python3 -c 'import os,time\nif os.fork()==0:\n os.setsid()\n if os.fork()==0: time.sleep(%d)\n os._exit(0)\nos.wait()' >/dev/null 2>&1"},
	{"foreground sleep", "sleep %d"},
}

// TestSurvivorsWithoutSandbox runs, without the OS sandbox, one Bash call
// whose command leaves processes behind in every way of
// survivorPatterns, and ends the call in each way a call ends: the
// command returns (the foreground sleep left out), it times out, the CLI
// gets SIGTERM, SIGHUP, or SIGKILL. Nothing of the command may be left:
// at once when the CLI exits, within 10 seconds after a SIGKILL (the
// helper that ends the command outlives the CLI); and no toolscope-cwd-*
// file. It runs as root and, when the test runs as root, as an
// unprivileged user too (nobody), since root and a user differ in what
// they may signal.
func TestSurvivorsWithoutSandbox(t *testing.T) {
	bin := buildCLI(t)
	if bin == "" {
		t.Skip("needs the CLI built: main's signal handling is not in the test binary")
	}
	for _, tool := range []string{"setsid", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not available", tool)
		}
	}
	type runAs struct {
		name string
		cred *syscall.Credential
	}
	users := []runAs{{name: "self"}}
	if os.Getuid() == 0 {
		users[0].name = "root"
		u, err := user.Lookup("nobody")
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("no user nobody to run the CLI unprivileged: %v", err)
			}
			t.Logf("no user nobody (%v): the unprivileged runs are skipped", err)
		} else {
			uid, _ := strconv.Atoi(u.Uid)
			gid, _ := strconv.Atoi(u.Gid)
			users = append(users, runAs{"nobody", &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}})
			// The binary must be reachable by nobody.
			for d := filepath.Dir(bin); d != filepath.Dir(filepath.Dir(filepath.Dir(bin))); d = filepath.Dir(d) {
				os.Chmod(d, 0o755)
			}
		}
	}
	ends := []string{"exit", "timeout", "SIGTERM", "SIGHUP", "SIGKILL"}
	for _, u := range users {
		for _, end := range ends {
			t.Run(u.name+"/"+end, func(t *testing.T) {
				t.Parallel()
				survivors(t, bin, u.cred, end)
			})
		}
	}
}

func survivors(t *testing.T, bin string, cred *syscall.Credential, end string) {
	dir, tmp, home := t.TempDir(), t.TempDir(), t.TempDir()
	if cred != nil {
		for _, d := range []string{dir, tmp, home} {
			os.Chown(d, int(cred.Uid), int(cred.Gid))
			os.Chmod(filepath.Dir(d), 0o755)
		}
	}
	patterns := survivorPatterns
	if end == "exit" {
		patterns = patterns[:len(patterns)-1]
	}
	base := 700000 + 100*rand.IntN(2000) // sleep lengths that name this run's processes
	marks := make([]string, len(patterns))
	parts := make([]string, len(patterns))
	for i, p := range patterns {
		marks[i] = strconv.Itoa(base + i)
		parts[i] = fmt.Sprintf(p.format, base+i)
	}
	command := strings.Join(parts, "\n")
	timeout := 60000
	switch end {
	case "exit":
		command += "\nsleep 0.2" // the shell ends while the others run
	case "timeout":
		timeout = 1500
	}
	input, _ := json.Marshal(map[string]any{"command": command, "timeout": timeout})
	cmd := exec.Command(bin, "call", "--mode", "bypass", "Bash", string(input))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+home)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// left lists the live processes of each pattern (by its mark); with
	// all, the CLI's own processes too (the Bash tool's wrapper shell and
	// helper, whose command lines hold every mark).
	left := func(all bool) map[string][]int {
		m := map[string][]int{}
		for i, mark := range marks {
			skip := []string{"toolscope"}
			if all {
				skip = nil
			}
			if pids := testproc.With(mark, skip...); len(pids) > 0 {
				m[patterns[i].name] = pids
			}
		}
		return m
	}
	defer func() { // whatever happened, leave nothing running
		cmd.Process.Kill()
		for _, pids := range left(true) {
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
	}()

	if end != "exit" && end != "timeout" {
		// Wait until every pattern's process runs, then end the CLI.
		deadline := time.Now().Add(20 * time.Second)
		for len(left(false)) < len(patterns) {
			if time.Now().After(deadline) {
				t.Fatalf("the command's processes did not all start: %v\n%s", left(false), out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		sig := map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGHUP": syscall.SIGHUP, "SIGKILL": syscall.SIGKILL}[end]
		cmd.Process.Signal(sig)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the CLI did not end:\n%s", out.String())
	}
	switch {
	case end == "exit" && cmd.ProcessState.ExitCode() != 0,
		end == "timeout" && !strings.Contains(out.String(), "timed out"):
		t.Errorf("the call did not end as it should have (%v):\n%s", cmd.ProcessState, out.String())
	}
	got := left(true)
	if end == "SIGKILL" {
		// The CLI had no say: what ends the command outlives it, and
		// has a grace period to give.
		for deadline := time.Now().Add(10 * time.Second); len(got) > 0 && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			got = left(true)
		}
	}
	for _, p := range patterns {
		if pids, ok := got[p.name]; ok {
			var cmdlines []string
			for _, pid := range pids {
				cmdlines = append(cmdlines, fmt.Sprintf("%d %q", pid, testproc.Cmdline(pid)))
			}
			t.Errorf("%s: left after the call ended: %s", p.name, strings.Join(cmdlines, ", "))
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("temporary files left in $TMPDIR: %v", names)
	}
}
