//go:build linux

package textfile

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

const killChildEnv = "TOOLSCOPE_WRITE_KILL_CHILD"

// A writer killed with SIGKILL at a random moment leaves the file whole
// (the old content or a new one, never a mix) and, after the next write to
// the directory, no temporary file of its own.
func TestWriteAtomicKill(t *testing.T) {
	if p := os.Getenv(killChildEnv); p != "" {
		for i := 1; ; i++ {
			data := bytes.Repeat([]byte{byte('a' + i%26)}, 8<<20)
			if err := WriteAtomic(p, data, nil); err != nil {
				fmt.Println(err)
				os.Exit(1)
			}
		}
	}
	trials := 40
	if testing.Short() {
		trials = 5
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, bytes.Repeat([]byte{'0'}, 8<<20), 0o644)
	leftBefore := 0
	for i := 0; i < trials; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriteAtomicKill$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+p)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(5+rand.IntN(60)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		b, err := os.ReadFile(p)
		if err != nil || len(b) != 8<<20 || bytes.Count(b, b[:1]) != len(b) {
			t.Fatalf("trial %d: the file is not whole (%d bytes, err %v)", i, len(b), err)
		}
		for _, n := range dirNames(t, dir) {
			if n != "f" && n != "other" {
				leftBefore++
			}
		}
		// The next write sweeps what the killed writer left.
		if err := WriteAtomic(filepath.Join(dir, "other"), []byte("x"), nil); err != nil {
			t.Fatal(err)
		}
		if names := dirNames(t, dir); !slices.Equal(names, []string{"f", "other"}) {
			t.Fatalf("trial %d: left behind after the next write: %v", i, names)
		}
	}
	t.Logf("%d trials: %d temporary files were left by killed writers, all swept by the next write", trials, leftBefore)
}

// A full disk: the write fails with ENOSPC, the old content survives,
// nothing is left, and directories the write created are removed. Needs a
// tmpfs that can be mounted (root); skipped otherwise.
func TestWriteAtomicFullDisk(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a small tmpfs (%v): the full-disk case needs root", err)
	}
	defer syscall.Unmount(dir, syscall.MNT_DETACH)
	p := filepath.Join(dir, "f")
	if err := WriteAtomic(p, []byte("original"), nil); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 1<<20)
	if err := WriteAtomic(p, big, nil); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want ENOSPC", err)
	}
	if readString(t, p) != "original" {
		t.Fatal("the old content was lost")
	}
	err := WriteAtomic(filepath.Join(dir, "new", "deep", "g"), big, &WriteOptions{CreateDirs: true})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("nested: err = %v, want ENOSPC", err)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"f"}) {
		t.Fatalf("left behind: %v", names)
	}
	if !strings.Contains(err.Error(), "no space left") {
		t.Errorf("message: %v", err)
	}
}

// The sweep removes only what a dead toolscope writer left: other
// programs' temporary files of any name (".notes.tmp2024", ".data.tmp42",
// an editor's swap file) stay, and so does the temporary file of a writer
// that is still alive, and the temporary files of another directory.
func TestWriteAtomicSweepsOnlyItsOwn(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadPid := dead.ProcessState.Pid()
	if processAlive(deadPid) {
		t.Skipf("pid %d was reused at once", deadPid)
	}
	foreign := []string{
		".notes.tmp2024", ".backup.tmp1", ".data.tmp42", ".x.tmp123", ".f.tmp999999999999",
		".f.swp", "f~", ".toolscope-probe-123", ".toolscope-12-xyz-f.tmp",
		fmt.Sprintf(".toolscope-%d-0123456789abcdef-f.tmpx", deadPid),
		fmt.Sprintf(".toolscope-%d-0123456789ABCDEF-f.tmp", deadPid),
		fmt.Sprintf(".toolscope-0%d-0123456789abcdef-f.tmp", deadPid),
		fmt.Sprintf(".toolscope-%d-0123456789abcdef-f.tmp", live.Process.Pid), // a live writer's
	}
	abandoned := fmt.Sprintf(".toolscope-%d-0123456789abcdef-f.tmp", deadPid)
	for _, n := range append(foreign, abandoned) {
		for _, d := range []string{dir, other} {
			if err := os.WriteFile(filepath.Join(d, n), []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := WriteAtomic(filepath.Join(dir, "f"), []byte("new"), nil); err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(foreign), "f")
	slices.Sort(want)
	if got := dirNames(t, dir); !slices.Equal(got, want) {
		t.Errorf("after a write the directory holds\n%q\nwant\n%q", got, want)
	}
	if got := dirNames(t, other); len(got) != len(foreign)+1 {
		t.Errorf("a directory the write did not touch lost files: %q", got)
	}
	for _, n := range foreign {
		if b, _ := os.ReadFile(filepath.Join(dir, n)); string(b) != "keep" {
			t.Errorf("%s changed: %q", n, b)
		}
	}
}

func TestIsTempName(t *testing.T) {
	p := tempName("main.go")
	if !IsTempName(p) || !strings.HasPrefix(p, ".toolscope-") {
		t.Errorf("%q is not recognised", p)
	}
	long := tempName(strings.Repeat("x", 255))
	if !IsTempName(long) || len(long) > 255 {
		t.Errorf("a long name: %q (%d bytes)", long, len(long))
	}
	for _, n := range []string{"", ".toolscope-", ".toolscope-1-0123456789abcdef-.tmp2", ".tmp", ".a.tmp1", ".toolscope--0123456789abcdef-f.tmp",
		".toolscope-1-0123456789abcde-f.tmp", ".toolscope-99999999999-0123456789abcdef-f.tmp", ".toolscope-1-0123456789abcdef-" + strings.Repeat("x", 65) + ".tmp"} {
		if IsTempName(n) {
			t.Errorf("%q taken for a temporary file", n)
		}
	}
}

const ownerChildEnv = "TOOLSCOPE_WRITE_OWNER_CHILD"

// A user who may write a file of another user (root's 0666 file) cannot
// give a new file that owner: WriteAtomic refuses with ErrOwner and leaves
// the file as it was (content, owner, mode, inode), instead of making the
// user its owner by the rename. The user's own file in the same directory
// is written as usual. Runs the writer as nobody (needs root to set up).
func TestWriteAtomicForeignOwnerRefused(t *testing.T) {
	if p := os.Getenv(ownerChildEnv); p != "" {
		for _, f := range strings.Split(p, ",") {
			err := WriteAtomic(f, []byte("changed by nobody\n"), nil)
			fmt.Printf("%s: owner=%v err=%v\n", filepath.Base(f), errors.Is(err, ErrOwner), err)
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a writer as another user")
	}
	// A directory nobody may enter, with a copy of this test binary.
	base, err := os.MkdirTemp("", "owner")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	os.Chmod(base, 0o777)
	bin := filepath.Join(base, "textfile.test")
	src, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	rootFile, rootGroupFile, own := filepath.Join(base, "root.txt"), filepath.Join(base, "group.txt"), filepath.Join(base, "own.txt")
	os.WriteFile(rootFile, []byte("root's\n"), 0o666)
	os.Chmod(rootFile, 0o666)
	os.WriteFile(rootGroupFile, []byte("nobody's, root's group\n"), 0o664)
	os.Chown(rootGroupFile, 65534, 0)
	os.WriteFile(own, []byte("nobody's\n"), 0o640)
	os.Chown(own, 65534, 65534)
	before, _ := os.Stat(rootFile)

	cmd := exec.Command(bin, "-test.run=^TestWriteAtomicForeignOwnerRefused$")
	cmd.Env = append(os.Environ(), ownerChildEnv+"="+rootFile+","+rootGroupFile+","+own)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the writer as nobody: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	for _, want := range []string{"root.txt: owner=true", "group.txt: owner=true", "own.txt: owner=false err=<nil>", "belongs to user root (uid 0)", "group root (gid 0)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	after, _ := os.Stat(rootFile)
	st := after.Sys().(*syscall.Stat_t)
	if b, _ := os.ReadFile(rootFile); string(b) != "root's\n" || st.Uid != 0 || after.Mode() != before.Mode() || !os.SameFile(before, after) {
		t.Errorf("root's file changed: %q uid %d mode %v same inode %v", b, st.Uid, after.Mode(), os.SameFile(before, after))
	}
	if b, _ := os.ReadFile(own); string(b) != "changed by nobody\n" {
		t.Errorf("nobody's own file: %q", b)
	}
	if fi, _ := os.Stat(own); fi.Mode().Perm() != 0o640 || fi.Sys().(*syscall.Stat_t).Uid != 65534 {
		t.Errorf("nobody's own file: mode %v", fi.Mode())
	}
	for _, n := range dirNames(t, base) {
		if IsTempName(n) {
			t.Errorf("left %s", n)
		}
	}
}
