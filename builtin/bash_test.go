package builtin_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/internal/testproc"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

func bash(cmd string) map[string]any { return map[string]any{"command": cmd} }

func TestBashRuns(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	if got := e.mustOK(e.call("Bash", bash("echo hello; echo world >&2"))); got != "hello\nworld\n" {
		t.Errorf("got %q", got)
	}
	r := e.call("Bash", bash("echo partial; exit 3"))
	if r.Status != tool.StatusError || r.Text() != "partial\n\nCommand exited with code 3." || r.Metadata["exit_code"] != 3 {
		t.Errorf("exit 3: %s %q %v", r.Status, r.Text(), r.Metadata)
	}
	r = e.call("Bash", bash("ls /nonexistent-dir-xyz"))
	if r.Status != tool.StatusError {
		t.Errorf("failing ls: %s", r.Status)
	}
	contains(t, r.Text(), "No such file or directory", "Command exited with code 2.")
	if got := e.mustOK(e.call("Bash", bash("true"))); got != "(no output)" {
		t.Errorf("no output: %q", got)
	}
	got := e.mustOK(e.call("Bash", bash(`printf 'a\xff\xfeb\r\n'`)))
	if !utf8.ValidString(got) || got != "a\ufffd\ufffdb\n" {
		t.Errorf("non-UTF-8: %q", got)
	}
	if got := e.mustOK(e.call("Bash", bash("cat; echo done"))); got != "done\n" {
		t.Errorf("stdin should be empty: %q", got)
	}
}

func TestBashOutputCapped(t *testing.T) {
	e := newEnv(t, permission.Bypass, &builtin.Options{MaxOutput: 3000})
	r := e.call("Bash", bash("seq 1 100000"))
	got := e.mustOK(r)
	if !strings.HasPrefix(got, "1\n2\n3\n") || !strings.HasSuffix(got, "99999\n100000\n") || len(got) > 3200 {
		t.Fatalf("head/tail: %d bytes: %q...%q", len(got), got[:20], got[len(got)-20:])
	}
	contains(t, got, "bytes of output dropped] ...")
	if r.Metadata["dropped_bytes"] == nil {
		t.Errorf("metadata: %v", r.Metadata)
	}
}

// alive lists the processes whose command line contains marker, zombies aside.
func alive(t *testing.T, marker string) []string {
	t.Helper()
	var found []string
	for _, pid := range testproc.With(marker, "go test") {
		found = append(found, fmt.Sprintf("%d: %s", pid, testproc.Cmdline(pid)))
	}
	return found
}

func TestBashTimeoutKillsEverything(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	marker := "ts-timeout-" + strconv.Itoa(os.Getpid())
	r := e.call("Bash", map[string]any{"command": fmt.Sprintf("sh -c 'sleep 100; : %s' & sh -c 'sleep 100; : %s'", marker, marker), "timeout": 300})
	if r.Status != tool.StatusError || r.Metadata["timed_out"] != true {
		t.Fatalf("got %s %q", r.Status, r.Text())
	}
	contains(t, r.Text(), "Command timed out after 300ms")
	if left := alive(t, marker); len(left) > 0 {
		t.Fatalf("processes survived the timeout: %v", left)
	}
}

func TestBashCancellation(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	marker := "ts-cancel-" + strconv.Itoa(os.Getpid())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var text strings.Builder
	for c, err := range e.tk.Stream(ctx, &tool.Call{Name: "Bash", Input: []byte(fmt.Sprintf(`{"command":"echo started; sh -c 'sleep 100; : %s'"}`, marker)), State: e.st}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range c.Content {
			text.WriteString(b.Text)
			if strings.Contains(b.Text, "started") {
				cancel() // the user interrupts once the command is running
			}
		}
		if c.Status == tool.StatusInterrupted {
			break
		}
	}
	if !strings.Contains(text.String(), tool.InterruptedText) {
		t.Fatalf("not interrupted: %q", text.String())
	}
	if left := alive(t, marker); len(left) > 0 {
		t.Fatalf("processes survived cancellation: %v", left)
	}
}

func TestBashWorkingDirectoryPersists(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	e.mustOK(e.call("Bash", bash("mkdir -p sub/deeper && cd sub")))
	if got := e.mustOK(e.call("Bash", bash("pwd"))); got != e.path("sub")+"\n" {
		t.Fatalf("cwd did not persist: %q", got)
	}
	if builtin.DataOf(e.st).Cwd() != e.path("sub") {
		t.Fatalf("state cwd %q", builtin.DataOf(e.st).Cwd())
	}
	got := e.mustOK(e.call("Bash", bash("cd / && echo moved")))
	contains(t, got, "moved", "Shell cwd was reset to "+e.root)
	if got := e.mustOK(e.call("Bash", bash("pwd"))); got != e.root+"\n" {
		t.Fatalf("cwd after leaving the project: %q", got)
	}
	e.mustOK(e.call("Bash", bash("cd sub/deeper")))
	os.RemoveAll(e.path("sub"))
	got = e.mustOK(e.call("Bash", bash("pwd")))
	contains(t, got, e.root+"\n", "no longer exists")
}

// TestBashHardenedEnv: a command the analyser allowed runs with the
// read-only hardening its verdict assumed (no git hooks, GOTOOLCHAIN=local);
// one that runs because a rule allowed it keeps hooks, with only the
// always-safe hardening (no pager, no optional locks).
func TestBashHardenedEnv(t *testing.T) {
	requireProgram(t, "git")
	for _, tt := range []struct {
		name  string
		cmd   string
		allow string
		want  string
	}{
		{"analysed", "git config --get core.hooksPath", "", "/dev/null\n"},
		{"rule", `git config --get core.hooksPath; echo "pager=$GIT_PAGER locks=$GIT_OPTIONAL_LOCKS"`, "Bash", "pager=cat locks=0\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, permission.Default, nil)
			if tt.allow != "" {
				r, _ := permission.ParseRule(tt.allow)
				r.Behavior = permission.Allow
				e.st.AddRule(r)
			}
			if got := e.mustOK(e.call("Bash", bash(tt.cmd))); got != tt.want {
				t.Fatalf("%s printed %q, want %q", tt.cmd, got, tt.want)
			}
		})
	}
}

func TestBashPermissions(t *testing.T) {
	for _, tt := range []struct {
		mode  permission.Mode
		allow []string
		deny  []string
		cmd   string
		want  tool.Status
	}{
		{mode: permission.Default, cmd: "ls -la && git status 2>/dev/null | head", want: tool.StatusSuccess},
		{mode: permission.Default, cmd: "touch new.txt", want: tool.StatusAsking},
		{mode: permission.AcceptEdits, cmd: "touch new.txt && mkdir d", want: tool.StatusSuccess},
		{mode: permission.AcceptEdits, cmd: "touch /etc/toolscope-test", want: tool.StatusAsking},
		{mode: permission.Explore, cmd: "touch new.txt", want: tool.StatusDenied},
		{mode: permission.DontAsk, cmd: "make", want: tool.StatusDenied},
		{mode: permission.Default, allow: []string{"Bash"}, cmd: "rm -rf /", want: tool.StatusAsking},
		{mode: permission.Default, allow: []string{"Bash(echo:*)"}, cmd: "echo hi", want: tool.StatusSuccess},
		{mode: permission.Default, allow: []string{"Bash(git log:*)"}, cmd: "git log; touch pwned", want: tool.StatusAsking},
		{mode: permission.Bypass, deny: []string{"Bash(rm:*)"}, cmd: "echo a; sudo rm -f x", want: tool.StatusDenied},
		{mode: permission.Default, cmd: "echo $(whoami)", want: tool.StatusSuccess},
		{mode: permission.Default, cmd: "echo $(make -n)", want: tool.StatusAsking},
		{mode: permission.Bypass, cmd: "echo $(echo sub)", want: tool.StatusSuccess},
	} {
		t.Run(string(tt.mode)+"/"+tt.cmd, func(t *testing.T) {
			e := newEnv(t, tt.mode, nil)
			for _, a := range tt.allow {
				r, _ := permission.ParseRule(a)
				r.Behavior = permission.Allow
				e.st.AddRule(r)
			}
			for _, d := range tt.deny {
				r, _ := permission.ParseRule(d)
				r.Behavior = permission.Deny
				e.st.AddRule(r)
			}
			r := e.call("Bash", bash(tt.cmd))
			if r.Status != tt.want {
				t.Fatalf("status %s, want %s: %q %+v", r.Status, tt.want, r.Text(), r.Decision)
			}
			if tt.cmd == "rm -rf /" && !r.Decision.BypassImmune {
				t.Error("rm -rf / is not bypass-immune")
			}
		})
	}
}

func TestBashSuggestions(t *testing.T) {
	e := newEnv(t, permission.Default, nil)
	r := e.call("Bash", bash("git push origin main"))
	if r.Status != tool.StatusAsking || len(r.Decision.Suggestions) == 0 || r.Decision.Suggestions[0].String() != "Bash(git push:*)" {
		t.Fatalf("suggestions: %+v", r.Decision)
	}
}

// TestBashMemoryBounded runs a command printing 1 GB through the whole
// toolkit in a child process, and checks the child's peak RSS.
func TestBashMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("prints 1 GB")
	}
	if os.Getenv("TOOLSCOPE_RSS_CHILD") == "1" {
		e := newEnv(t, permission.Bypass, nil)
		r := e.call("Bash", bash("head -c 1000000000 /dev/zero | tr '\\0' a"))
		if r.Status != tool.StatusSuccess || len(r.Text()) > 31000 {
			t.Fatalf("status %s, %d bytes", r.Status, len(r.Text()))
		}
		testproc.PrintPeakRSS()
		return
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory distorts RSS")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestBashMemoryBounded$", "-test.v")
	cmd.Env = append(os.Environ(), "TOOLSCOPE_RSS_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	rss := testproc.PeakRSS(cmd.ProcessState, out) // KiB
	t.Logf("peak RSS of a process running a 1 GB command through the toolkit: %.1f MB", float64(rss)/1024)
	if rss > 64*1024 {
		t.Fatalf("peak RSS %d KiB > 64 MB", rss)
	}
}
