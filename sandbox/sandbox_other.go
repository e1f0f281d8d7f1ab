//go:build !linux

package sandbox

import (
	"context"
	"os/exec"
	"runtime"
)

type level int

type treeCache struct{}

type treeScan struct{}

// Status reports that no protection is in force: this platform has no
// sandbox yet (macOS's Seatbelt is the next step).
func (s *Sandbox) Status(ctx context.Context) (*Status, error) {
	why := "no sandbox on " + runtime.GOOS
	st := &Status{Platform: runtime.GOOS}
	for _, n := range []string{FilesystemWrites, ReadOnlyRoot, ProtectedPaths, SecretReads, HomeReads, Network} {
		st.Missing = append(st.Missing, Missing{n, why})
	}
	return st, nil
}

// NewRun fails with ErrUnsupported.
func (s *Sandbox) NewRun(workingDirs []string) (*Run, error) { return nil, ErrUnsupported }

// Wrap fails with ErrUnsupported.
func (r *Run) Wrap(cmd *exec.Cmd) error { return ErrUnsupported }

// Report fails with ErrUnsupported.
func (r *Run) Report() (*Status, error) { return nil, ErrUnsupported }

type placeholder struct{}

func (r *Run) closePlaceholders()                      {}
func (r *Run) createdBelow() (out, unchecked []string) { return nil, nil }

// Sweep does nothing: this platform's runs make no placeholders.
func (s *Sandbox) Sweep() {}
