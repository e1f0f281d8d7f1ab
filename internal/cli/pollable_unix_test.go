//go:build unix

package cli

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func nonblocking(t *testing.T, fd uintptr) bool {
	t.Helper()
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	return flags&syscall.O_NONBLOCK != 0
}

// The standard input of a stdio server, when a pipe, is read through the
// poller (non-blocking) and reads as before; restore makes it blocking
// again. A regular file is left alone.
func TestPollableStdin(t *testing.T) {
	// A blocking pipe, as a client's: os.Pipe would make it non-blocking.
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	defer r.Close()
	defer w.Close()
	if nonblocking(t, uintptr(p[0])) {
		t.Fatal("syscall.Pipe made a non-blocking pipe")
	}
	in, restore := pollable(r)
	if in == io.Reader(r) || !nonblocking(t, uintptr(p[0])) {
		t.Fatal("a pipe was left blocking")
	}
	go func() {
		w.Write([]byte("one line\n"))
		w.Close()
	}()
	if b, err := io.ReadAll(in); err != nil || string(b) != "one line\n" {
		t.Errorf("read %q, %v", b, err)
	}
	restore()
	if nonblocking(t, uintptr(p[0])) {
		t.Error("restore left the pipe non-blocking")
	}

	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if in, restore := pollable(f); in != io.Reader(f) {
		t.Error("a regular file was changed")
	} else {
		restore()
	}
}

// The pollable reader never closes the descriptor it was made from: once
// restored and collected, the caller's file still works. (It used to
// wrap the same descriptor in a second os.File, whose finalizer closed it
// at some later collection: the number, by then another file's or a
// listener's, was closed under its owner, seen as "bad file descriptor"
// and "connection refused" in unrelated tests of the same process.)
func TestPollableLeavesDescriptorOpen(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	defer r.Close()
	defer w.Close()
	in, restore := pollable(r)
	if in == io.Reader(r) {
		t.Fatal("a pipe was not made pollable")
	}
	restore()
	in = nil
	for range 5 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(p[0], &st); err != nil {
		t.Fatalf("the caller's descriptor was closed: %v", err)
	}
	w.Write([]byte("x"))
	b := make([]byte, 1)
	if n, err := r.Read(b); n != 1 || err != nil {
		t.Fatalf("reading the caller's file after restore: %d %v", n, err)
	}
}
