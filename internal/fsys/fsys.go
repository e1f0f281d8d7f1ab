// Package fsys has the stat calls of the permission checks' hot paths,
// without the allocations of package os and package syscall.
//
// Judging one command line stats a few paths (the working directory, the
// directories whose remembered listings answer lookups, a git config), and
// an agent judges many command lines. syscall.Stat copies each path into a
// new byte slice to add its NUL; os.Stat also builds a FileInfo. Here, on
// Linux amd64 and arm64, a path shorter than [MaxFastPath] is terminated in
// a buffer on the stack; everywhere else, and for longer paths, the calls
// are syscall's own. An interrupted call (EINTR) is made again.
package fsys

// MaxFastPath is the longest path (in bytes) stat'ed without an allocation.
const MaxFastPath = 1023
