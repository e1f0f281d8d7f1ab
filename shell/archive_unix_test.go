//go:build unix

package shell

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// An archive name that is a FIFO is not waited on: the analyser would block
// until something writes to it. It is opaque, so no wildcard rule covers it.
func TestArchiveFIFO(t *testing.T) {
	proj := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(proj, "f.tar"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan *Analysis, 1)
	go func() { done <- Analyze("tar -xf f.tar", &Options{Cwd: proj}) }()
	select {
	case a := <-done:
		if _, ok := a.AllowedBy([]string{"tar:*"}); ok {
			t.Errorf("tar -xf of a FIFO allowed by Bash(tar:*): %s %s", a.Verdict, a.Reason)
		}
	case <-time.After(time.Minute):
		// Unblock the analyser so the test binary can end.
		if w, err := os.OpenFile(filepath.Join(proj, "f.tar"), os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("the analyser blocked opening a FIFO named like an archive")
	}
}
