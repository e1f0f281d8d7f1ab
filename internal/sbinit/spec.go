// Package sbinit is the sandbox's helper: the code that runs in the child
// process between the sandbox's clone and the exec of the command. The
// sandbox package re-executes the running binary (/proc/self/exe) with
// [Arg0] as argv[0]; this package's init notices, sets the sandbox up
// (mounts, Landlock, seccomp, loopback) and executes the command, so any
// program that links the sandbox package gets the helper without extra
// code, the way container runtimes re-execute themselves.
//
// The package imports only os, syscall, unsafe and runtime: Go initialises
// packages in import-path order as soon as their imports are ready, so a
// package with few imports runs early, before the heavy initialisation of
// the program's other dependencies (model SDKs, schema compilers), which
// the helper does not need and would pay on every command.
//
// The parent sends the plan as records on one pipe (the spec) and reads
// the helper's report on another; the report's write end is close-on-exec,
// so end of file tells the parent the command was executed.
package sbinit

// Arg0 is the argv[0] the sandbox gives the helper.
const Arg0 = "toolscope-sandbox-init"

// Spec record tags (parent to helper).
const (
	TagReadOnly  = 'R' // bind a path onto itself read-only
	TagMask      = 'D' // hide a path: an empty read-only tmpfs over a directory, the mask inode over a file
	TagMaskSrc   = 'M' // the mask inode: a socket, which open(2) refuses with ENXIO
	TagTmpfs     = 'T' // mount a private writable tmpfs (for /dev/shm)
	TagWrite     = 'W' // Landlock: full access beneath this path
	TagWriteFile = 'w' // Landlock: read and write this file (a device such as /dev/null)
	TagRead      = 'X' // Landlock: read and execute beneath this path
	TagList      = 'x' // Landlock: list directories beneath this path (not read files)
	TagFlags     = 'G' // flags, as a decimal number (the Flag constants)
	TagExec      = 'E' // the command: path, then argv, each its own record
	TagArgv      = 'A'
	// TagProxy: the network allow-list's proxy. Its data is the number
	// of an inherited Unix socket: the helper, in the new network
	// namespace, listens on 127.0.0.1 on a free port, sends the listening
	// socket over it (SCM_RIGHTS) to the parent, which serves the proxy
	// outside, closes both, and points the command's HTTP_PROXY and the
	// rest at the port.
	TagProxy = 'P'
)

// ProxyEnv are the environment variables the helper sets to the proxy's
// URL, "http://127.0.0.1:PORT", and NoProxyEnv those it sets to
// NoProxy: the sandbox's own loopback is reached directly.
var (
	ProxyEnv   = []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"}
	NoProxyEnv = []string{"NO_PROXY", "no_proxy"}
)

// NoProxy is the value of NoProxyEnv.
const NoProxy = "localhost,127.0.0.1,::1"

// Flags.
const (
	FlagMountNS     = 1 << iota // the helper is in a new mount namespace: do the mounts
	FlagNetNS                   // the helper is in a new network namespace: bring lo up
	FlagNoUnix                  // seccomp: socket(AF_UNIX) fails
	FlagLandlockNet             // Landlock: no TCP bind or connect (when there is no network namespace)
	FlagStrict                  // refuse to execute when any requested protection is missing
	FlagDropCaps                // drop every capability and lock the securebits (root without a user namespace; always in one)
	FlagPIDNS                   // the helper is init of a new PID namespace: mount its own /proc
	FlagHomeReads               // the read rules leave the home directories out: report home-reads with Landlock
)

// Report record tags (helper to parent).
const (
	RepActive  = 'P' // a protection in force: "name"
	RepMissing = 'N' // a protection not in force: "name\x00why"
	RepError   = 'E' // the helper failed; the command was not executed
	RepABI     = 'L' // the Landlock ABI version, decimal
)

// Append appends one record to b.
func Append(b []byte, tag byte, data string) []byte {
	b = append(b, tag)
	n := uint64(len(data))
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	b = append(b, byte(n))
	return append(b, data...)
}

// Next decodes the first record of b. ok is false when b is empty or
// malformed.
func Next(b []byte) (tag byte, data string, rest []byte, ok bool) {
	if len(b) < 2 {
		return 0, "", nil, false
	}
	tag = b[0]
	var n uint64
	var shift uint
	i := 1
	for {
		if i >= len(b) || shift > 28 {
			return 0, "", nil, false
		}
		c := b[i]
		i++
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
		shift += 7
	}
	if uint64(len(b)-i) < n {
		return 0, "", nil, false
	}
	return tag, string(b[i : i+int(n)]), b[i+int(n):], true
}
