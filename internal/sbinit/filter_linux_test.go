package sbinit

import (
	"encoding/binary"
	"syscall"
	"testing"
)

// seccompData is struct seccomp_data.
type seccompData struct {
	nr   int32
	arch uint32
	args [6]uint64
}

// run walks prog for d the way the kernel does (for the instructions the
// filter uses) and returns its verdict; it fails on a jump out of the
// program, an unknown instruction or a program that does not return.
func runFilter(t *testing.T, prog []syscall.SockFilter, d seccompData) uint32 {
	t.Helper()
	var buf [64]byte
	binary.LittleEndian.PutUint32(buf[0:], uint32(d.nr))
	binary.LittleEndian.PutUint32(buf[4:], d.arch)
	for i, a := range d.args {
		binary.LittleEndian.PutUint64(buf[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		jump := func(cond bool) {
			if cond {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
			if pc+1 >= len(prog) {
				t.Fatalf("instruction %d jumps out of the program", pc)
			}
		}
		switch in.Code {
		case bpfLdAbsW:
			if in.K%4 != 0 || in.K+4 > uint32(len(buf)) {
				t.Fatalf("instruction %d loads at %d", pc, in.K)
			}
			acc = binary.LittleEndian.Uint32(buf[in.K:])
		case bpfJeqK:
			jump(acc == in.K)
		case bpfJgeK:
			jump(acc >= in.K)
		case bpfJsetK:
			jump(acc&in.K != 0)
		case bpfRetK:
			return in.K
		default:
			t.Fatalf("instruction %d: unknown code %#x", pc, in.Code)
		}
	}
	t.Fatal("the program ends without a return")
	return 0
}

func TestFilter(t *testing.T) {
	if auditArch == 0 {
		if filter(sysRules(true)) != nil {
			t.Fatal("a filter without a syscall table")
		}
		t.Skip("no seccomp filter on this architecture")
	}
	// Numbers the syscall package has for this architecture, against the
	// table's.
	for name, n := range map[string][2]int{
		"mount":       {sysMount, syscall.SYS_MOUNT},
		"umount2":     {sysUmount2, syscall.SYS_UMOUNT2},
		"pivot_root":  {sysPivotRoot, syscall.SYS_PIVOT_ROOT},
		"chroot":      {sysChroot, syscall.SYS_CHROOT},
		"unshare":     {sysUnshare, syscall.SYS_UNSHARE},
		"clone":       {sysClone, syscall.SYS_CLONE},
		"keyctl":      {sysKeyctl, syscall.SYS_KEYCTL},
		"add_key":     {sysAddKey, syscall.SYS_ADD_KEY},
		"request_key": {sysRequestKey, syscall.SYS_REQUEST_KEY},
		"kexec_load":  {sysKexecLoad, syscall.SYS_KEXEC_LOAD},
		"init_module": {sysInitModule, syscall.SYS_INIT_MODULE},
		"delete":      {sysDeleteModule, syscall.SYS_DELETE_MODULE},
		"perf":        {sysPerfEventOpen, syscall.SYS_PERF_EVENT_OPEN},
		"socket":      {sysSocket, syscall.SYS_SOCKET},
	} {
		if n[0] != n[1] {
			t.Errorf("%s: the table has %d, the syscall package %d", name, n[0], n[1])
		}
	}

	const (
		eperm  = retErrno | uint32(syscall.EPERM)
		enosys = retErrno | uint32(syscall.ENOSYS)
		eacces = retErrno | uint32(syscall.EACCES)
	)
	sigchld := uint64(syscall.SIGCHLD)
	type filterCase struct {
		name    string
		nr      int
		arch    uint32
		arg0    uint64
		noUnix  bool
		verdict uint32
	}
	cases := []filterCase{
		{"read", syscall.SYS_READ, auditArch, 0, true, retAllow},
		{"ptrace", syscall.SYS_PTRACE, auditArch, 0, true, retAllow},
		{"foreign arch", syscall.SYS_READ, 0x40000003, 0, true, enosys}, // AUDIT_ARCH_I386
		{"x32", 0x40000000 | syscall.SYS_READ, auditArch, 0, true, enosys},
		{"io_uring_setup", sysIOURing, auditArch, 0, true, enosys},
		{"clone3", sysClone3, auditArch, 0, true, enosys},
		{"clone thread", sysClone, auditArch, syscall.CLONE_VM | syscall.CLONE_THREAD | syscall.CLONE_SIGHAND, true, retAllow},
		{"clone fork", sysClone, auditArch, sigchld, true, retAllow},
		{"clone newpid newnet", sysClone, auditArch, syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | sigchld, true, retAllow},
		{"clone newuser", sysClone, auditArch, syscall.CLONE_NEWUSER | sigchld, true, eperm},
		{"clone newns", sysClone, auditArch, syscall.CLONE_NEWNS | sigchld, true, eperm},
		{"clone newuser, high bits", sysClone, auditArch, 1<<40 | syscall.CLONE_NEWUSER, true, eperm},
		{"unshare newuser|newns", sysUnshare, auditArch, syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS, true, eperm},
		{"unshare newns", sysUnshare, auditArch, syscall.CLONE_NEWNS, true, eperm},
		{"unshare newuser", sysUnshare, auditArch, syscall.CLONE_NEWUSER, true, eperm},
		{"unshare files", sysUnshare, auditArch, syscall.CLONE_FILES, true, retAllow},
		{"unshare newnet", sysUnshare, auditArch, syscall.CLONE_NEWNET, true, retAllow},
		{"socket unix", sysSocket, auditArch, afUnix, true, eacces},
		{"socket unix allowed", sysSocket, auditArch, afUnix, false, retAllow},
		{"socket inet", sysSocket, auditArch, syscall.AF_INET, true, retAllow},
		{"socket inet6", sysSocket, auditArch, syscall.AF_INET6, false, retAllow},
	}
	for _, nr := range []int{sysMount, sysUmount2, sysMountSetattr, sysOpenTree, sysOpenTreeAttr, sysMoveMount,
		sysFsopen, sysFsconfig, sysFsmount, sysFspick, sysPivotRoot, sysChroot, sysSetns,
		sysKeyctl, sysAddKey, sysRequestKey, sysBPF, sysPerfEventOpen, sysUserfaultfd,
		sysKexecLoad, sysKexecFileLoad, sysInitModule, sysFinitModule, sysDeleteModule,
		sysNameToHandleAt, sysOpenByHandleAt} {
		for _, noUnix := range []bool{true, false} {
			cases = append(cases, filterCase{"denied " + itoa(nr), nr, auditArch, 0, noUnix, eperm})
		}
	}
	for _, c := range cases {
		prog := filter(sysRules(c.noUnix))
		if len(prog) > 4096 {
			t.Fatalf("the program has %d instructions", len(prog))
		}
		got := runFilter(t, prog, seccompData{nr: int32(c.nr), arch: c.arch, args: [6]uint64{c.arg0}})
		if got != c.verdict {
			t.Errorf("%s (nr %d, arg0 %#x, noUnix %v): verdict %#x, want %#x", c.name, c.nr, c.arg0, c.noUnix, got, c.verdict)
		}
	}
}
