package proc

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// pidsWithArg returns the live processes whose command line holds arg.
func pidsWithArg(arg string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(b), arg) {
			continue
		}
		if isZombie(atoiOr(e.Name())) {
			continue
		}
		out = append(out, e.Name())
	}
	return out
}

func atoiOr(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// Processes that leave the command's process group (setsid, setsid -f,
// setsid in a subshell, nohup with a double fork), with or without the
// run's environment marker, do not outlive Run.
func TestNothingOutlivesRun(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not available")
	}
	for i, cmd := range []string{
		"setsid sleep 1001.1 >/dev/null 2>&1 &",
		"setsid -f sleep 1001.2 >/dev/null 2>&1",
		"(setsid sleep 1001.3 >/dev/null 2>&1 &)",
		"( ( setsid nohup sleep 1001.4 >/dev/null 2>&1 & ) & )",
		"setsid bash -c 'trap \"\" TERM HUP; exec sleep 1001.5' >/dev/null 2>&1 &",
		"sleep 1001.6 & disown",
		// Without the marker in their environment.
		"env -i setsid -f sleep 1001.7 >/dev/null 2>&1",
		"env -u TOOLSCOPE_RUN setsid -f sleep 1001.8 >/dev/null 2>&1",
		"env -i sh -c '(setsid sleep 1001.9 >/dev/null 2>&1 &) &'",
	} {
		arg := "1001." + string(rune('1'+i))
		res := run(t, cmd+"\nsleep 0.2", &Options{KillGrace: 300 * time.Millisecond})
		if res.ExitCode != 0 {
			t.Errorf("%q: %+v", cmd, res)
		}
		if left := pidsWithArg(arg); len(left) > 0 {
			for _, p := range left {
				exec.Command("kill", "-9", p).Run()
			}
			t.Errorf("%q: processes left after Run: %v", cmd, left)
		}
	}
}

// A timeout ends the escaped processes too.
func TestNothingOutlivesTimeout(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not available")
	}
	res := run(t, "setsid -f sleep 1002.1 >/dev/null 2>&1; env -i setsid -f sleep 1002.2 >/dev/null 2>&1; sleep 100", &Options{Timeout: 300 * time.Millisecond, KillGrace: 200 * time.Millisecond})
	if !res.TimedOut {
		t.Errorf("not timed out: %+v", res)
	}
	for _, arg := range []string{"1002.1", "1002.2"} {
		if left := pidsWithArg(arg); len(left) > 0 {
			for _, p := range left {
				exec.Command("kill", "-9", p).Run()
			}
			t.Errorf("processes left after the timeout: %v", left)
		}
	}
}
