//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestAttacks tries ways around the filesystem rules; each must leave the
// file outside unchanged.
func TestAttacks(t *testing.T) {
	s, st := newSandbox(t, nil)
	need(t, st, FilesystemWrites, ProtectedPaths)
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(victim)
	if err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{
		`ln ` + victim + ` hard && echo evil >> hard`,
		`ln -s ` + victim + ` soft && echo evil >> soft`,
		`cp -l ` + victim + ` cpl && echo evil >> cpl`,
		`mv ` + victim + ` ./moved`,
		`echo evil >> /proc/self/root` + victim,
		`echo evil >> /proc/$$/cwd/../` + filepath.Base(outside) + `/victim`,
		`python3 -c 'import os; fd=os.open("` + outside + `", os.O_RDONLY); os.write(os.open("victim", os.O_WRONLY|os.O_APPEND, dir_fd=fd), b"evil")'`,
		`truncate -s 0 ` + victim,
		`touch -d 2000-01-01 ` + victim + `; chmod 777 ` + victim,
		`exec 3>>` + victim + `; echo evil >&3`,
		`chmod 600 ` + victim + `; chown 1:1 ` + victim + `; setfattr -n user.x -v 1 ` + victim + ` 2>/dev/null`,
	} {
		out, _, _ := run(t, s, dir, script, nil)
		if b, _ := os.ReadFile(victim); string(b) != "original\n" {
			t.Fatalf("%s: the file outside changed to %q\n%s", script, b, out)
		}
		if fi, err := os.Stat(victim); err != nil || fi.Mode() != before.Mode() || !fi.ModTime().Equal(before.ModTime()) {
			t.Fatalf("%s: the file outside changed its mode or time: %v %v\n%s", script, fi.Mode(), err, out)
		}
		if strings.Contains(out, "evil") {
			t.Logf("%s: %s", script, out)
		}
	}
}

// TestDevices: a device the user can read outside the sandbox (a disk, a
// console's screen memory) cannot be read inside it, at either level; the
// harmless devices still work.
func TestDevices(t *testing.T) {
	var dev string
	ents, _ := os.ReadDir("/dev")
	for _, e := range ents {
		p := "/dev/" + e.Name()
		if slices.Contains(devices, p) || p == "/dev/tty" {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil || fi.Mode()&os.ModeDevice == 0 {
			continue
		}
		// Raw non-blocking calls: os.File would wait for a device that
		// has nothing to read.
		fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		n, _ := syscall.Read(fd, make([]byte, 8))
		syscall.Close(fd)
		if n > 0 {
			dev = p
			break
		}
	}
	if dev == "" {
		t.Skip("no device outside the allowed list is readable here")
	}
	for _, lv := range []level{levelUserNS, levelNone} {
		forceLevel = &lv
		s, st := newSandbox(t, nil)
		forceLevel = nil
		need(t, st, FilesystemWrites)
		out, err, _ := run(t, s, t.TempDir(), "timeout 2 head -c 8 "+dev+" | wc -c; head -c 4 /dev/urandom | wc -c; echo x > /dev/null && echo devnull-ok", nil)
		if err != nil || !strings.Contains(out, "\n4\ndevnull-ok") {
			t.Fatalf("level %d: %v %s", lv, err, out)
		}
		if !strings.HasPrefix(out, "0\n") && !strings.Contains(out, "\n0\n") {
			t.Errorf("level %d: %s was readable inside the sandbox:\n%s", lv, dev, out)
		}
	}
}

// TestPrivateProc: the host's processes (their names, their command lines)
// are not in the sandbox's /proc.
func TestPrivateProc(t *testing.T) {
	s, st := newSandbox(t, nil)
	need(t, st, PrivateProc)
	secret := exec.Command("sleep", "30", "FAKE-PASSWORD-ON-A-COMMAND-LINE")
	if err := secret.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { secret.Process.Kill(); secret.Wait() }()
	out, err, _ := run(t, s, t.TempDir(), `cat /proc/[0-9]*/cmdline | tr '\0' ' '; echo; cat /proc/[0-9]*/comm; [ -e /proc/`+strconv.Itoa(secret.Process.Pid)+` ] && echo host-""pid-visible; echo self=$(readlink /proc/self)`, nil)
	if err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if strings.Contains(out, "FAKE-PASSWORD") || strings.Contains(out, "host-pid-visible") || !strings.Contains(out, "self=") {
		t.Errorf("a host process is visible:\n%s", out)
	}
}
