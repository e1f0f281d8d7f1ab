//go:build unix

package cli

import (
	"io"
	"os"
	"syscall"
)

// pollable returns the standard input of `toolscope serve` (stdio) ready
// for Go's network poller when it is a pipe or a socket, as a client that
// starts the server gives it: the reading goroutine then waits for the
// next request parked on the poller instead of holding a thread in a
// blocking read(2), which the runtime's monitor checks every 20 µs and
// hands the thread's processor off from (a tenth of the CPU a small call
// cost the server went to that). A terminal or a file is left as it is,
// and so is anything that is not an *os.File. restore puts the
// descriptor's blocking mode back.
//
// O_NONBLOCK belongs to the open file description, which a pipe's reading
// end shares only with processes that hold the same end: the server's
// children do not (their standard input is /dev/null or their own).
func pollable(r io.Reader) (out io.Reader, restore func()) {
	f, ok := r.(*os.File)
	if !ok {
		return r, func() {}
	}
	var st syscall.Stat_t
	fd := int(f.Fd()) // f is blocking, or Fd makes it so
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO && st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return r, func() {}
	}
	// A descriptor of its own (a dup: the same pipe, the same open file
	// description, hence the same O_NONBLOCK): the File made here owns it,
	// and closing that File, or its finalizer, never closes f's number,
	// which by then may be another file's.
	syscall.ForkLock.RLock()
	nfd, err := syscall.Dup(fd)
	if err == nil {
		syscall.CloseOnExec(nfd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return r, func() {}
	}
	if syscall.SetNonblock(nfd, true) != nil {
		syscall.Close(nfd)
		return r, func() {}
	}
	// NewFile sees the descriptor non-blocking and registers it with the
	// poller.
	p := os.NewFile(uintptr(nfd), f.Name())
	return p, func() {
		p.Close() // ends a read still waiting on it
		syscall.SetNonblock(fd, false)
	}
}
