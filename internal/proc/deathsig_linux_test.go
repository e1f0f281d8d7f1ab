package proc

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const orphanChildEnv = "TOOLSCOPE_PROC_ORPHAN_CHILD"

// A process that runs a command and is killed with SIGKILL (a supervisor
// gone, an OOM kill) takes the command's shell with it: the kernel kills
// the shell when its parent dies.
func TestShellDiesWithItsParent(t *testing.T) {
	if m := os.Getenv(orphanChildEnv); m != "" {
		Run(context.Background(), "echo $$ > "+m+"; sleep 300; :", nil, func(string) {})
		return
	}
	pidFile := t.TempDir() + "/shell.pid"
	cmd := exec.Command(os.Args[0], "-test.run=^TestShellDiesWithItsParent$", "-test.count=1")
	cmd.Env = append(os.Environ(), orphanChildEnv+"="+pidFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var shell int
	deadline := time.Now().Add(30 * time.Second)
	for shell == 0 {
		b, _ := os.ReadFile(pidFile)
		shell, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child's command did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() { syscall.Kill(-shell, syscall.SIGKILL) }) // the sleep, which outlives the shell
	cmd.Process.Kill()
	cmd.Wait()
	for deadline = time.Now().Add(10 * time.Second); alive(shell); {
		if time.Now().After(deadline) {
			t.Fatalf("the shell %d outlived the process that ran it", shell)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid is a process that has not exited.
func alive(pid int) bool {
	var buf [512]byte
	_, _, ok := statOf(strconv.Itoa(pid), buf[:])
	return ok && !isZombie(pid)
}

const callerChildEnv = "TOOLSCOPE_PROC_CALLER_CHILD"

// A caller killed with SIGKILL leaves nothing of the command behind: not
// the foreground process, not processes that left the group and cleared
// their environment, and not the working-directory file. That holds too
// when the caller's whole process group is killed (kill -9 %1 in a
// shell), which must not reach what ends the command.
func TestNothingOutlivesItsCaller(t *testing.T) {
	if tmp := os.Getenv(callerChildEnv); tmp != "" {
		Run(context.Background(), "env -i setsid -f sleep 1003.1 >/dev/null 2>&1; "+
			"env -u TOOLSCOPE_RUN setsid -f sleep 1003.2 >/dev/null 2>&1; "+
			"(sleep 1003.3 &); sleep 1003.4; :", &Options{TrackDir: true, TempDir: tmp}, func(string) {})
		return
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not available")
	}
	for _, group := range []bool{false, true} {
		name := "pid"
		if group {
			name = "group"
		}
		t.Run(name, func(t *testing.T) { killCaller(t, group) })
	}
}

func killCaller(t *testing.T, group bool) {
	tmp := t.TempDir()
	args := []string{"1003.1", "1003.2", "1003.3", "1003.4"}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNothingOutlivesItsCaller$", "-test.count=1")
	cmd.Env = append(os.Environ(), callerChildEnv+"="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for started := 0; started < len(args); {
		started = 0
		for _, a := range args {
			if len(pidsWithArg("sleep\x00"+a)) > 0 {
				started++
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the child's command did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if group {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	} else {
		cmd.Process.Kill()
	}
	cmd.Wait()
	var left []string
	for deadline = time.Now().Add(10 * time.Second); ; {
		left = left[:0]
		for _, a := range args {
			left = append(left, pidsWithArg(a)...)
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, p := range left {
		exec.Command("kill", "-9", p).Run()
	}
	if len(left) > 0 {
		t.Errorf("processes left 10s after the caller was killed: %v", left)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
		t.Errorf("files left in the temporary directory: %v", ents)
	}
}

// If the reaper helper itself is killed, Run still returns, reports the
// shell as killed (it dies with the helper), ends the processes the
// environment marker finds, and removes the working-directory file.
func TestHelperKilled(t *testing.T) {
	if !useReaper || !reaperUsable() {
		t.Skip("no reaper helper here")
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if len(pidsWithArg("sleep\x001005.1")) < 2 {
				continue // the command has not started both sleeps yet
			}
			for _, p := range pidsWithArg("1005.1") {
				pid := atoiOr(p)
				if b, _ := os.ReadFile("/proc/" + p + "/cmdline"); strings.HasPrefix(string(b), reaperArg0+"\x00") {
					if _, ppid, _, ok := procStat(pid); ok && ppid == os.Getpid() {
						syscall.Kill(pid, syscall.SIGKILL)
						return
					}
				}
			}
		}
	}()
	tmp := t.TempDir()
	res := run(t, "echo $$; setsid -f sleep 1005.1 >/dev/null 2>&1; sleep 1005.1", &Options{KillGrace: 200 * time.Millisecond, TrackDir: true, TempDir: tmp})
	if res.ExitCode != -1 || res.Signal != "killed" {
		t.Errorf("got %+v", res)
	}
	// The shell was reparented to init when the helper died: Run cannot
	// reap it, but nothing of its group is left running.
	if pgid := pgidFrom(t, res.Head); groupAlive(pgid) {
		syscall.Kill(-pgid, syscall.SIGKILL)
		t.Errorf("the group %d is still alive", pgid)
	}
	if left := pidsWithArg("1005.1"); len(left) > 0 {
		for _, p := range left {
			exec.Command("kill", "-9", p).Run()
		}
		t.Errorf("processes left: %v", left)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
		t.Errorf("files left in the temporary directory: %v", ents)
	}
}
