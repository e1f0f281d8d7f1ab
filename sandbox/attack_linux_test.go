//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
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
