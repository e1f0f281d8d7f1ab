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
