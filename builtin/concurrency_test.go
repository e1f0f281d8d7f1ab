package builtin_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// N goroutines share one Toolkit and one State, read a file once and each
// Edit their own line of it at the same moment. The check that the file
// is still the version read and the rename are one step: every Edit that
// reports success is in the final file; the others are refused as stale,
// never silently overwritten.
func TestConcurrentEditsLoseNothing(t *testing.T) {
	for _, n := range []int{2, 20} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			trials := 30
			if testing.Short() {
				trials = 5
			}
			for trial := 0; trial < trials; trial++ {
				e := newEnv(t, permission.Bypass, nil)
				var b strings.Builder
				for i := 0; i < n; i++ {
					fmt.Fprintf(&b, "line %d\n", i)
				}
				p := e.write("f.txt", b.String())
				e.mustOK(e.call("Read", map[string]any{"file_path": p}))
				var wg sync.WaitGroup
				ok := make([]bool, n)
				start := make(chan struct{})
				for i := 0; i < n; i++ {
					wg.Add(1)
					go func(i int) {
						defer wg.Done()
						<-start
						r := e.call("Edit", map[string]any{"file_path": p, "old_string": fmt.Sprintf("line %d\n", i), "new_string": fmt.Sprintf("LINE %d\n", i)})
						ok[i] = r.Status == tool.StatusSuccess
						if !ok[i] && !strings.Contains(r.Text(), "has been modified since it was last read") && !strings.Contains(r.Text(), "you must first read it") {
							t.Errorf("edit %d: unexpected %s %q", i, r.Status, r.Text())
						}
					}(i)
				}
				close(start)
				wg.Wait()
				final := e.read("f.txt")
				succeeded := 0
				for i := 0; i < n; i++ {
					if ok[i] {
						succeeded++
						if !strings.Contains(final, fmt.Sprintf("LINE %d\n", i)) {
							t.Fatalf("trial %d: edit %d reported success but is not in the file:\n%s", trial, i, final)
						}
					}
				}
				if succeeded == 0 {
					t.Fatalf("trial %d: no edit succeeded", trial)
				}
			}
		})
	}
}

// Two Writes of a new file at once: one creates it, the other is refused;
// neither overwrites the other's content unseen.
func TestConcurrentCreatesLoseNothing(t *testing.T) {
	for trial := 0; trial < 30; trial++ {
		e := newEnv(t, permission.Bypass, nil)
		p := e.path(fmt.Sprintf("new/dir/f%d.txt", trial))
		var wg sync.WaitGroup
		res := make([]*tool.Result, 2)
		for i := range res {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				res[i] = e.call("Write", map[string]any{"file_path": p, "content": fmt.Sprintf("writer %d\n", i)})
			}(i)
		}
		wg.Wait()
		final := e.read(fmt.Sprintf("new/dir/f%d.txt", trial))
		for i, r := range res {
			if r.Status == tool.StatusSuccess && final != fmt.Sprintf("writer %d\n", i) {
				// A later Write may replace a file the same state created
				// and therefore knows; it must then have seen it.
				other := res[1-i]
				if other.Status != tool.StatusSuccess {
					t.Fatalf("writer %d succeeded but the file holds %q", i, final)
				}
			}
		}
	}
}

// Edit and Write refuse what the user could not write in place, say why,
// and change nothing (not the content, not the owner or group).
func TestEditRefusesReadOnly(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	p := e.write("ro.txt", "a\n")
	e.mustOK(e.call("Read", map[string]any{"file_path": p}))
	os.Chmod(p, 0o444)
	r := e.call("Edit", map[string]any{"file_path": p, "old_string": "a", "new_string": "b"})
	if r.Status != tool.StatusError || !strings.Contains(r.Text(), "is read-only (mode 0444)") {
		t.Fatalf("Edit of a 0444 file: %s %q", r.Status, r.Text())
	}
	r = e.call("Write", map[string]any{"file_path": p, "content": "c\n"})
	if r.Status != tool.StatusError || !strings.Contains(r.Text(), "is read-only (mode 0444)") {
		t.Fatalf("Write of a 0444 file: %s %q", r.Status, r.Text())
	}
	if e.read("ro.txt") != "a\n" {
		t.Fatal("the read-only file changed")
	}
	if os.Geteuid() != 0 {
		// A directory the user may not change: the rename would fail.
		os.Chmod(p, 0o644)
		d := e.write("locked/f.txt", "x\n")
		e.mustOK(e.call("Read", map[string]any{"file_path": d}))
		os.Chmod(filepath.Dir(d), 0o555)
		defer os.Chmod(filepath.Dir(d), 0o755)
		r = e.call("Edit", map[string]any{"file_path": d, "old_string": "x", "new_string": "y"})
		if r.Status != tool.StatusError || !strings.Contains(r.Text(), "the directory "+filepath.Dir(d)+" is not writable") {
			t.Fatalf("Edit in a read-only directory: %s %q", r.Status, r.Text())
		}
	}
}

// A named pipe or a socket is named as such, and Edit and Write never
// block on one.
func TestEditWriteSpecialFiles(t *testing.T) {
	e := newEnv(t, permission.Bypass, nil)
	fifo := e.path("pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("cannot make a FIFO:", err)
	}
	for _, c := range []struct{ tool, want string }{
		{"Edit", "Error: " + fifo + " is a named pipe (FIFO), not a regular file; Edit changes only regular files."},
		{"Write", "Error: " + fifo + " is a named pipe (FIFO), not a regular file; Write writes only regular files."},
		{"Read", "Error: " + fifo + " is a named pipe (FIFO), not a regular file; Read only reads files."},
	} {
		in := map[string]any{"file_path": fifo}
		switch c.tool {
		case "Edit":
			in["old_string"], in["new_string"] = "a", "b"
		case "Write":
			in["content"] = "x"
		}
		e.mustErr(e.call(c.tool, in), c.want)
	}
	sock := e.path("s.sock")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
		e.mustErr(e.call("Edit", map[string]any{"file_path": sock, "old_string": "a", "new_string": "b"}),
			"Error: "+sock+" is a socket, not a regular file; Edit changes only regular files.")
	}
	e.mustErr(e.call("Write", map[string]any{"file_path": "/dev/null", "content": "x"}),
		"Error: /dev/null is a character device, not a regular file; Write writes only regular files.")
}
