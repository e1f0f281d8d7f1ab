//go:build unix

package search

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe never blocks a search: given as the path it is refused with
// a message that names it; met inside a directory it is skipped. Each
// search has 5 s to finish (a blocked open would take forever).
func TestGrepNamedPipe(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("needle\n"), 0o644)
	fifo := filepath.Join(root, "pipe.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("cannot make a FIFO:", err)
	}
	engines := []Engine{GoEngine}
	if _, err := exec.LookPath("rg"); err == nil {
		engines = append(engines, Ripgrep)
	}
	for _, e := range engines {
		type out struct {
			res *GrepResult
			err error
		}
		run := func(path string) out {
			ch := make(chan out, 1)
			go func() {
				r, err := Grep(context.Background(), &GrepOptions{Pattern: "needle", Path: path, Engine: e, OutputMode: ModeContent, Timeout: 3 * time.Second})
				ch <- out{r, err}
			}()
			select {
			case o := <-ch:
				return o
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: Grep of %s blocked", e, path)
			}
			return out{}
		}
		o := run(fifo)
		var te *ToolError
		if !errors.As(o.err, &te) || !strings.Contains(te.Msg, "is a named pipe (FIFO), not a regular file or a directory") {
			t.Errorf("%s: Grep of the FIFO: %v %v", e, o.res, o.err)
		}
		o = run(root)
		if o.err != nil || !strings.Contains(o.res.Text, "a.txt:") || !strings.Contains(o.res.Text, "needle") {
			t.Errorf("%s: Grep of the directory: %+v %v", e, o.res, o.err)
		}
	}
	// The engine's own open refuses a FIFO at once.
	if _, err := openFile(fifo); err == nil {
		t.Error("openFile opened a FIFO")
	}
}
