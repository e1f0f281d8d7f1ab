//go:build unix

package shell

import "syscall"

// oNoFollow makes open fail with ELOOP on a symbolic link.
const oNoFollow = syscall.O_NOFOLLOW
