//go:build linux

package sandbox

import (
	"os/exec"
	"testing"
)

// BenchmarkStart times starting and waiting for /bin/true, plain and in
// the sandbox (the helper's re-exec, the namespaces, the mounts, Landlock
// and seccomp), with one writable working directory.
func BenchmarkStart(b *testing.B) {
	dir := b.TempDir()
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sandboxed", func(b *testing.B) {
		s, err := New(nil)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			r, err := s.NewRun([]string{dir})
			if err != nil {
				b.Fatal(err)
			}
			cmd := exec.Command("/bin/true")
			if err := r.Wrap(cmd); err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			if _, err := r.Report(); err != nil {
				b.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
			r.Close()
		}
	})
}
