//go:build unix

package textfile

import (
	"errors"
	"fmt"
	"syscall"
	"time"
)

// lockOS takes flock(2) on the directory: other processes' writers take it
// too. A file system that does not support it (some network file systems)
// leaves the lock to this process alone; shared is false then.
func lockOS(dir string, timeout <-chan time.Time) (release func(), shared bool, err error) {
	var fd int
	for {
		var err error
		fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false, fmt.Errorf("locking %s: %w", dir, err)
		}
		break
	}
	wait := time.Millisecond
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return func() { syscall.Flock(fd, syscall.LOCK_UN); syscall.Close(fd) }, true, nil
		case err == syscall.EINTR:
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
		default: // ENOLCK, EOPNOTSUPP, EINVAL: no lock across processes here
			return func() { syscall.Close(fd) }, false, nil
		}
		select {
		case <-timeout:
			syscall.Close(fd)
			return nil, false, fmt.Errorf("locking %s: %w", dir, ErrLockTimeout)
		case <-time.After(wait):
		}
		if wait < 50*time.Millisecond {
			wait *= 2
		}
	}
}
