package sbinit

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

func init() {
	if len(os.Args) != 3 || os.Args[0] != Arg0 {
		return
	}
	// Package initialisation runs on the main thread, locked to it: the
	// per-thread settings below (no_new_privs, Landlock, seccomp) are made
	// on the thread that executes the command.
	runtime.LockOSThread()
	os.Exit(helper(os.Args[1], os.Args[2]))
}

// Landlock access rights (include/uapi/linux/landlock.h).
const (
	llExecute     = 1 << 0
	llWriteFile   = 1 << 1
	llReadFile    = 1 << 2
	llReadDir     = 1 << 3
	llTruncate    = 1 << 14
	llIoctlDev    = 1 << 15
	llResolveUnix = 1 << 16

	llNetBindTCP    = 1 << 0
	llNetConnectTCP = 1 << 1

	llScopeAbstractUnix = 1 << 0
	llScopeSignal       = 1 << 1

	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446
)

// handledFS returns the filesystem rights Landlock ABI abi knows.
func handledFS(abi int) uint64 {
	switch {
	case abi >= 9:
		return 1<<17 - 1
	case abi >= 5:
		return 1<<16 - 1
	case abi >= 3:
		return 1<<15 - 1
	case abi == 2:
		return 1<<14 - 1
	}
	return 1<<13 - 1
}

type helperState struct {
	report []byte
	fd     int
	strict bool
	miss   bool
}

func (h *helperState) active(name string) { h.report = Append(h.report, RepActive, name) }

func (h *helperState) missing(name, why string) {
	h.report = Append(h.report, RepMissing, name+"\x00"+why)
	h.miss = true
}

// fail reports err and returns the helper's exit status; the command is
// not executed.
func (h *helperState) fail(msg string) int {
	h.report = Append(h.report, RepError, msg)
	h.flush()
	os.Stderr.WriteString("toolscope sandbox: " + msg + "\n")
	return 125
}

func (h *helperState) flush() {
	b := h.report
	for len(b) > 0 {
		n, err := syscall.Write(h.fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		b = b[n:]
	}
	h.report = h.report[:0]
}

func atoi(s string) int {
	n := 0
	if s == "" {
		return -1
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' || n > 1<<20 {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

type plan struct {
	flags                  int
	readOnly               []string
	mask, tmpfs            []string
	maskSrc                string
	write, writeFile, read []string
	list                   []string
	path                   string
	argv                   []string
	proxyFD                int // -1: none
}

func readSpec(fd int) (*plan, string) {
	var buf []byte
	chunk := make([]byte, 16<<10)
	for {
		n, err := syscall.Read(fd, chunk)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, "reading the spec: " + err.Error()
		}
		if n == 0 {
			break
		}
		buf = append(buf, chunk[:n]...)
	}
	syscall.Close(fd)
	p := &plan{proxyFD: -1}
	for len(buf) > 0 {
		tag, data, rest, ok := Next(buf)
		if !ok {
			return nil, "malformed spec"
		}
		buf = rest
		switch tag {
		case TagReadOnly:
			p.readOnly = append(p.readOnly, data)
		case TagMask:
			p.mask = append(p.mask, data)
		case TagMaskSrc:
			p.maskSrc = data
		case TagTmpfs:
			p.tmpfs = append(p.tmpfs, data)
		case TagWrite:
			p.write = append(p.write, data)
		case TagWriteFile:
			p.writeFile = append(p.writeFile, data)
		case TagRead:
			p.read = append(p.read, data)
		case TagList:
			p.list = append(p.list, data)
		case TagFlags:
			p.flags = atoi(data)
		case TagExec:
			p.path = data
		case TagArgv:
			p.argv = append(p.argv, data)
		case TagProxy:
			if p.proxyFD = atoi(data); p.proxyFD < 3 {
				return nil, "bad proxy socket"
			}
		default:
			return nil, "unknown spec record " + string(rune(tag))
		}
	}
	if p.path == "" || len(p.argv) == 0 || p.flags < 0 {
		return nil, "the spec names no command"
	}
	return p, ""
}

func helper(specArg, reportArg string) int {
	specFD, reportFD := atoi(specArg), atoi(reportArg)
	if specFD < 3 || reportFD < 3 {
		os.Stderr.WriteString("toolscope sandbox: bad helper arguments\n")
		return 125
	}
	syscall.CloseOnExec(reportFD)
	h := &helperState{fd: reportFD}
	p, msg := readSpec(specFD)
	if p == nil {
		return h.fail(msg)
	}
	h.strict = p.flags&FlagStrict != 0

	if p.flags&FlagMountNS != 0 {
		// The working directory still refers to the mounts it was opened
		// on; after the mounts it is entered again by name, so that it is
		// on the new ones (writable, with the masks).
		wd, err := syscall.Getwd()
		if err != nil {
			return h.fail("getcwd: " + err.Error())
		}
		if msg := doMounts(h, p); msg != "" {
			return h.fail(msg)
		}
		if err := syscall.Chdir(wd); err != nil {
			return h.fail("chdir " + wd + ": " + err.Error())
		}
		if p.flags&FlagPIDNS != 0 {
			// A /proc of the command's own PID namespace: the host's
			// processes, their command lines and their environments
			// are not there to read.
			if err := syscall.Mount("proc", "/proc", "proc", msNosuid|msNodev|msNoexec, ""); err != nil {
				h.missing("private-proc", "mounting /proc for the PID namespace: "+err.Error())
			} else {
				h.active("private-proc")
			}
		}
		h.active("protected-paths")
		h.active("secret-reads")
	}
	env := syscall.Environ()
	if p.proxyFD >= 0 {
		syscall.CloseOnExec(p.proxyFD)
	}
	if p.flags&FlagNetNS != 0 {
		lo := loopbackUp()
		switch {
		case p.proxyFD >= 0 && lo != nil:
			return h.fail("the network allow-list needs the loopback, which could not be brought up: " + lo.Error())
		case p.proxyFD >= 0:
			port, msg := proxyListener(p.proxyFD)
			if msg != "" {
				return h.fail("the network allow-list's proxy: " + msg)
			}
			url := "http://127.0.0.1:" + itoa(port)
			for _, k := range ProxyEnv {
				env = setenv(env, k, url)
			}
			for _, k := range NoProxyEnv {
				env = setenv(env, k, NoProxy)
			}
			h.active("network-proxy")
		case lo != nil:
			// The namespace has no route out whether lo is up or not.
			h.missing("loopback", "lo could not be brought up: "+lo.Error())
			h.active("network")
		default:
			h.active("network")
		}
	} else if p.proxyFD >= 0 {
		return h.fail("the network allow-list needs a network namespace")
	}

	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); e != 0 {
		return h.fail("no_new_privs: " + e.Error())
	}
	h.active("no-new-privileges")
	if p.flags&FlagDropCaps != 0 {
		if msg := dropCaps(); msg != "" {
			return h.fail("dropping capabilities: " + msg)
		}
		h.active("no-capabilities")
		if p.flags&FlagMountNS != 0 {
			// The mounts above were made in the namespace the command
			// now holds no capability in: it cannot undo them.
			h.active("mount-lock")
		}
	} else if p.flags&FlagMountNS != 0 {
		h.missing("mount-lock", "the capabilities are not dropped")
	}

	if msg := landlock(h, p); msg != "" {
		return h.fail(msg)
	}
	if msg := seccomp(h, p.flags&FlagNoUnix != 0); msg != "" {
		return h.fail(msg)
	}
	if h.strict && h.miss {
		return h.fail("a required protection is not in force (sandbox.required is set)")
	}
	h.flush()
	err := syscall.Exec(p.path, p.argv, env)
	// Exec failed: the report pipe is still open.
	return h.fail("exec " + p.path + ": " + err.Error())
}

// Mount flags (sys/mount.h) and statfs flags (ST_*).
const (
	msRdonly      = 0x1
	msNosuid      = 0x2
	msNodev       = 0x4
	msNoexec      = 0x8
	msRemount     = 0x20
	msNoatime     = 0x400
	msNodiratime  = 0x800
	msBind        = 0x1000
	msRec         = 0x4000
	msPrivate     = 1 << 18
	msRelatime    = 1 << 21
	msStrictatime = 1 << 24
)

// lockedFlags returns the flags of the mount holding path that a remount
// inside a user namespace must keep (the kernel refuses to clear them).
func lockedFlags(path string) uintptr {
	var st syscall.Statfs_t
	if syscall.Statfs(path, &st) != nil {
		return 0
	}
	f := uintptr(st.Flags)
	return f & (msNosuid | msNodev | msNoexec | msNoatime | msNodiratime | msRelatime)
}

func mountErr(what, path string, err error) string {
	return what + " " + path + ": " + err.Error()
}

func bindReadOnly(src, dst string, rec bool) error {
	flags := uintptr(msBind)
	if rec {
		flags |= msRec
	}
	if err := syscall.Mount(src, dst, "", flags, ""); err != nil {
		return err
	}
	return syscall.Mount("", dst, "", msBind|msRemount|msRdonly|lockedFlags(dst), "")
}

// mountSetattr makes every mount of the namespace read-only (Linux 5.12).
func readOnlyTree() error {
	const (
		sysMountSetattr = 442
		atFdcwd         = -100
		atRecursive     = 0x8000
		mountAttrRdonly = 0x1
	)
	attr := struct{ set, clr, propagation, userns uint64 }{set: mountAttrRdonly}
	root := [2]byte{'/', 0}
	fd := atFdcwd
	_, _, e := syscall.Syscall6(sysMountSetattr, uintptr(fd), uintptr(unsafe.Pointer(&root[0])), atRecursive,
		uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return e
	}
	return nil
}

func doMounts(h *helperState, p *plan) string {
	// Nothing done here may reach the parent's mount namespace.
	if err := syscall.Mount("", "/", "", msRec|msPrivate, ""); err != nil {
		return mountErr("make private", "/", err)
	}
	// Everything read-only, then the writable paths writable again: chmod,
	// chown, utimes and xattrs, which Landlock does not cover, fail
	// outside them too.
	if err := readOnlyTree(); err == syscall.ENOSYS {
		h.missing("read-only-root", "needs mount_setattr (Linux 5.12)")
	} else if err != nil {
		return mountErr("read-only", "/", err)
	} else {
		for _, w := range p.write {
			if err := syscall.Mount(w, w, "", msBind|msRec, ""); err != nil {
				if err == syscall.ENOENT {
					continue
				}
				return mountErr("bind", w, err)
			}
			if err := syscall.Mount("", w, "", msBind|msRemount|lockedFlags(w), ""); err != nil {
				return mountErr("make writable", w, err)
			}
		}
		h.active("read-only-root")
	}
	for _, d := range p.readOnly {
		if err := bindReadOnly(d, d, true); err != nil && err != syscall.ENOENT {
			return mountErr("read-only bind", d, err)
		}
	}
	for _, d := range p.mask {
		var st syscall.Stat_t
		if err := syscall.Stat(d, &st); err != nil {
			if err == syscall.ENOENT || err == syscall.ENOTDIR {
				continue // gone since the plan: nothing to read
			}
			return mountErr("stat", d, err)
		}
		if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			if err := syscall.Mount("tmpfs", d, "tmpfs", msRdonly|msNosuid|msNodev|msNoexec, "mode=000,size=4k"); err != nil {
				return mountErr("mask", d, err)
			}
			continue
		}
		if p.maskSrc == "" {
			return "no mask inode for " + d
		}
		if err := bindReadOnly(p.maskSrc, d, false); err != nil {
			return mountErr("mask", d, err)
		}
	}
	for _, d := range p.tmpfs {
		if err := syscall.Mount("tmpfs", d, "tmpfs", msNosuid|msNodev, "mode=1777,size=64m"); err != nil && err != syscall.ENOENT {
			return mountErr("tmpfs", d, err)
		}
	}
	return ""
}

// loopbackUp brings up lo in the new network namespace, so that a
// command's own servers on 127.0.0.1 work (the host's do not: this is
// another loopback).
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifr [40]byte
	copy(ifr[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return e
	}
	flags := *(*uint16)(unsafe.Pointer(&ifr[16]))
	*(*uint16)(unsafe.Pointer(&ifr[16])) = flags | syscall.IFF_UP | syscall.IFF_RUNNING
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return e
	}
	return nil
}

// proxyListener listens on 127.0.0.1, on a port the kernel picks, in the
// helper's (new) network namespace, and sends the listening socket to the
// parent over the Unix socket sock; it closes both. The command is left
// with no descriptor of either: only the parent accepts on the socket.
func proxyListener(sock int) (port int, msg string) {
	defer syscall.Close(sock)
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, "socket: " + err.Error()
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return 0, "bind 127.0.0.1: " + err.Error()
	}
	if err := syscall.Listen(fd, 128); err != nil {
		return 0, "listen: " + err.Error()
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return 0, "getsockname: " + err.Error()
	}
	in4, ok := sa.(*syscall.SockaddrInet4)
	if !ok || in4.Port == 0 {
		return 0, "no port"
	}
	for {
		err = syscall.Sendmsg(sock, []byte{'L'}, syscall.UnixRights(fd), nil, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return 0, "sending the socket to the parent: " + err.Error()
	}
	return in4.Port, ""
}

// setenv returns env with key set to value (any entries of key removed).
func setenv(env []string, key, value string) []string {
	out := env[:0:0]
	for _, e := range env {
		if len(e) > len(key) && e[len(key)] == '=' && e[:len(key)] == key {
			continue
		}
		out = append(out, e)
	}
	return append(out, key+"="+value)
}

// LandlockABI returns the kernel's Landlock ABI version, 0 when Landlock is
// missing or disabled.
func LandlockABI() int {
	v, _, e := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, 1)
	if e != 0 {
		return 0
	}
	return int(v)
}

func landlock(h *helperState, p *plan) string {
	abi := LandlockABI()
	h.report = Append(h.report, RepABI, itoa(abi))
	if abi <= 0 {
		h.missing("filesystem-writes", "Landlock is not available in this kernel (CONFIG_SECURITY_LANDLOCK, and landlock in the lsm= list)")
		if p.flags&FlagHomeReads != 0 {
			h.missing("home-reads", "needs Landlock")
		}
		h.missing("signals", "needs Landlock ABI 6")
		if p.flags&FlagLandlockNet != 0 {
			h.missing("network-tcp", "needs Landlock ABI 4")
		}
		return ""
	}
	fs := handledFS(abi)
	if p.flags&FlagNoUnix == 0 {
		fs &^= llResolveUnix
	}
	attr := struct{ fs, net, scoped uint64 }{fs: fs}
	size := uintptr(8)
	if p.flags&FlagLandlockNet != 0 && abi >= 4 {
		attr.net = llNetBindTCP | llNetConnectTCP
	}
	if abi >= 4 {
		size = 16
	}
	if abi >= 6 {
		attr.scoped = llScopeAbstractUnix | llScopeSignal
		size = 24
	}
	rfd, _, e := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return "landlock_create_ruleset: " + e.Error()
	}
	defer syscall.Close(int(rfd))
	fileRights := uint64(llExecute|llWriteFile|llReadFile|llTruncate) & fs
	readRights := uint64(llExecute|llReadFile|llReadDir) & fs
	dirWrite := fs &^ (llIoctlDev | llResolveUnix)
	add := func(path string, rights uint64) string {
		fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			if err == syscall.ENOENT || err == syscall.ENOTDIR {
				return "" // gone since the plan: nothing to allow
			}
			if err == syscall.EACCES && rights&^readRights == 0 {
				// A toolchain cache under a directory this user cannot
				// search (made by root with sudo): no read of it to allow.
				return ""
			}
			return "landlock rule for " + path + ": " + err.Error()
		}
		defer syscall.Close(fd)
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil {
			return "landlock rule for " + path + ": " + err.Error()
		}
		if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			rights &= fileRights
		}
		var rule [12]byte // struct landlock_path_beneath_attr, packed
		*(*uint64)(unsafe.Pointer(&rule[0])) = rights
		*(*int32)(unsafe.Pointer(&rule[8])) = int32(fd)
		if _, _, e := syscall.Syscall6(sysLandlockAddRule, rfd, 1, uintptr(unsafe.Pointer(&rule[0])), 0, 0, 0); e != 0 {
			return "landlock rule for " + path + ": " + e.Error()
		}
		return ""
	}
	for _, d := range p.list {
		if msg := add(d, llReadDir&fs); msg != "" {
			return msg
		}
	}
	for _, d := range p.read {
		if msg := add(d, readRights); msg != "" {
			return msg
		}
	}
	for _, d := range p.write {
		if msg := add(d, dirWrite); msg != "" {
			return msg
		}
	}
	for _, d := range p.writeFile {
		if msg := add(d, fileRights&^llExecute); msg != "" {
			return msg
		}
	}
	if _, _, e := syscall.Syscall(sysLandlockRestrictSelf, rfd, 0, 0); e != 0 {
		return "landlock_restrict_self: " + e.Error()
	}
	h.active("filesystem-writes")
	if p.flags&FlagHomeReads != 0 {
		h.active("home-reads")
	}
	if abi >= 6 {
		h.active("signals")
	} else {
		h.missing("signals", "needs Landlock ABI 6 (this kernel has "+itoa(abi)+")")
	}
	if p.flags&FlagLandlockNet != 0 {
		if abi >= 4 {
			h.active("network-tcp")
		} else {
			h.missing("network-tcp", "needs Landlock ABI 4 (this kernel has "+itoa(abi)+")")
		}
	}
	return ""
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// BPF opcodes and seccomp return values.
const (
	bpfLdAbsW       = 0x20
	bpfJeqK         = 0x15
	bpfJgeK         = 0x35
	bpfJsetK        = 0x45
	bpfRetK         = 0x06
	retAllow        = 0x7fff0000
	retErrno        = 0x00050000
	afUnix          = 1
	prSetNoNewPrivs = 38
	oPath           = 0x200000

	// The same number on every architecture (the unified table from 424).
	sysIOURing      = 425 // io_uring_setup
	sysOpenTree     = 428
	sysMoveMount    = 429
	sysFsopen       = 430
	sysFsconfig     = 431
	sysFsmount      = 432
	sysFspick       = 433
	sysClone3       = 435
	sysMountSetattr = 442
	sysOpenTreeAttr = 467

	cloneNewNS   = 0x00020000
	cloneNewUser = 0x10000000
)

// A rule of the seccomp filter: syscall nr fails with errno; with mask
// set, only when args[0] has one of its bits (the low 32 bits: the clone
// and unshare flags live there); with eq set, only when args[0] equals eq.
type sysRule struct {
	nr    uint32
	errno syscall.Errno
	mask  uint32
	eq    uint32
}

// sysRules lists what the filter refuses. Beyond io_uring (its operations
// would bypass the filter) and AF_UNIX sockets: every way to make, change
// or look behind mounts (the mount API old and new, pivot_root, chroot,
// setns, and new mount or user namespaces, in which the command would hold
// capabilities again), file handles (open_by_handle_at reaches a file by
// its inode, not its path, past the masks), the kernel keyrings (the
// user's keyring is shared with the host), module and kexec loading, bpf,
// perf_event_open and userfaultfd (kernel attack surface). clone3 passes
// its flags behind a pointer the filter cannot read: it fails with ENOSYS,
// and the C library falls back to clone, whose flags are checked.
func sysRules(noUnix bool) []sysRule {
	deny := func(nrs ...uint32) []sysRule {
		var r []sysRule
		for _, nr := range nrs {
			r = append(r, sysRule{nr: nr, errno: syscall.EPERM})
		}
		return r
	}
	rules := []sysRule{
		{nr: sysIOURing, errno: syscall.ENOSYS},
		{nr: sysClone3, errno: syscall.ENOSYS},
		{nr: sysUnshare, errno: syscall.EPERM, mask: cloneNewNS | cloneNewUser},
		{nr: sysClone, errno: syscall.EPERM, mask: cloneNewNS | cloneNewUser},
	}
	rules = append(rules, deny(sysMount, sysUmount2, sysMountSetattr, sysOpenTree, sysOpenTreeAttr, sysMoveMount,
		sysFsopen, sysFsconfig, sysFsmount, sysFspick, sysPivotRoot, sysChroot, sysSetns,
		sysKeyctl, sysAddKey, sysRequestKey, sysBPF, sysPerfEventOpen, sysUserfaultfd,
		sysKexecLoad, sysKexecFileLoad, sysInitModule, sysFinitModule, sysDeleteModule,
		sysNameToHandleAt, sysOpenByHandleAt)...)
	if noUnix {
		rules = append(rules, sysRule{nr: sysSocket, errno: syscall.EACCES, eq: afUnix})
	}
	return rules
}

// filter returns the seccomp program for rules: a foreign architecture's
// syscalls (32-bit ones on amd64) and x32's fail with ENOSYS, then each
// rule in turn, then everything else is allowed. nil where there is no
// table of syscall numbers for this architecture.
func filter(rules []sysRule) []syscall.SockFilter {
	if auditArch == 0 {
		return nil
	}
	ret := func(k uint32) syscall.SockFilter { return syscall.SockFilter{Code: bpfRetK, K: k} }
	prog := []syscall.SockFilter{
		{Code: bpfLdAbsW, K: 4}, // seccomp_data.arch
		{Code: bpfJeqK, Jt: 1, Jf: 0, K: auditArch},
		ret(retErrno | uint32(syscall.ENOSYS)),
		{Code: bpfLdAbsW, K: 0},                      // seccomp_data.nr
		{Code: bpfJgeK, Jt: 0, Jf: 1, K: 0x40000000}, // x32
		ret(retErrno | uint32(syscall.ENOSYS)),
	}
	for _, r := range rules {
		deny := ret(retErrno | uint32(r.errno))
		switch {
		case r.mask != 0:
			prog = append(prog,
				syscall.SockFilter{Code: bpfJeqK, Jt: 0, Jf: 4, K: r.nr},
				syscall.SockFilter{Code: bpfLdAbsW, K: 16}, // args[0], low half (little-endian)
				syscall.SockFilter{Code: bpfJsetK, Jt: 0, Jf: 1, K: r.mask},
				deny,
				ret(retAllow))
		case r.eq != 0:
			prog = append(prog,
				syscall.SockFilter{Code: bpfJeqK, Jt: 0, Jf: 4, K: r.nr},
				syscall.SockFilter{Code: bpfLdAbsW, K: 16},
				syscall.SockFilter{Code: bpfJeqK, Jt: 0, Jf: 1, K: r.eq},
				deny,
				ret(retAllow))
		default:
			prog = append(prog,
				syscall.SockFilter{Code: bpfJeqK, Jt: 0, Jf: 1, K: r.nr},
				deny)
		}
	}
	return append(prog, ret(retAllow))
}

// seccomp installs the syscall filter (see sysRules and filter). With
// noUnix, AF_UNIX sockets fail: a pathname socket such as Docker's or
// systemd's is a way out of any filesystem sandbox, and Landlock
// restricts them only from ABI 9.
func seccomp(h *helperState, noUnix bool) string {
	prog := filter(sysRules(noUnix))
	if prog == nil {
		h.missing("syscall-filter", "no seccomp filter for "+runtime.GOARCH)
		if noUnix {
			h.missing("unix-sockets", "no seccomp filter for "+runtime.GOARCH)
		}
		return ""
	}
	fprog := syscall.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	const seccompSetModeFilter = 1
	if _, _, e := syscall.Syscall(sysSeccomp, seccompSetModeFilter, 0, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return "seccomp: " + e.Error()
	}
	h.active("syscall-filter")
	if noUnix {
		h.active("unix-sockets")
	}
	return ""
}

// Securebits (include/uapi/linux/securebits.h): uid 0 gains no
// capability on exec (noroot), a change of uid does not touch the sets
// (no-setuid-fixup), capabilities are not kept over setuid (keep-caps off)
// and none can be raised into the ambient set; each bit locked.
const secureBits = 1<<0 | 1<<1 | // SECBIT_NOROOT, _LOCKED
	1<<2 | 1<<3 | // SECBIT_NO_SETUID_FIXUP, _LOCKED
	1<<5 | // SECBIT_KEEP_CAPS_LOCKED (with KEEP_CAPS off)
	1<<6 | 1<<7 // SECBIT_NO_CAP_AMBIENT_RAISE, _LOCKED

// dropCaps empties the bounding, ambient, inheritable, permitted and
// effective capability sets and locks the securebits above, so that no
// exec (of a setuid or file-capability program, or by uid 0) gives any
// back; it then reads the state back and fails unless it holds. Root
// without a user namespace is then an ordinary user that happens to own
// root's files (no mknod of a disk device in the project, no module
// loading, no raw sockets); in the sandbox's user namespace, the command
// holds no capability in the namespace that owns its mounts, so no mount
// can be made, changed, detached or cloned (every mount operation checks
// CAP_SYS_ADMIN there).
func dropCaps() string {
	const (
		prCapbsetRead      = 23
		prCapbsetDrop      = 24
		prGetSecurebits    = 27
		prSetSecurebits    = 28
		prCapAmbient       = 47
		prCapAmbientIsSet  = 1
		prCapAmbientClrAll = 4
		linuxCapVersion3   = 0x20080522
	)
	// While CAP_SETPCAP is still held.
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetSecurebits, secureBits, 0, 0, 0, 0); e != 0 {
		return "securebits: " + e.Error()
	}
	last := uintptr(0)
	for c := uintptr(0); c < 64; c++ {
		if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapbsetDrop, c, 0, 0, 0, 0); e == syscall.EINVAL {
			break
		} else if e != 0 {
			return "dropping capability " + itoa(int(c)) + ": " + e.Error()
		}
		last = c
	}
	_, _, _ = syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClrAll, 0, 0, 0, 0)
	hdr := struct {
		version uint32
		pid     int32
	}{linuxCapVersion3, 0}
	var data [2]struct{ effective, permitted, inheritable uint32 }
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return "capset: " + e.Error()
	}
	// Check.
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return "capget: " + e.Error()
	}
	for _, d := range data {
		if d.effective|d.permitted|d.inheritable != 0 {
			return "capabilities left after dropping them"
		}
	}
	for c := uintptr(0); c <= last; c++ {
		if v, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapbsetRead, c, 0, 0, 0, 0); e != 0 || v != 0 {
			return "capability " + itoa(int(c)) + " left in the bounding set"
		}
		if v, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientIsSet, c, 0, 0, 0); e == 0 && v != 0 {
			return "capability " + itoa(int(c)) + " left in the ambient set"
		}
	}
	if v, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prGetSecurebits, 0, 0, 0, 0, 0); e != 0 || v&secureBits != secureBits {
		return "securebits not set"
	}
	return ""
}
