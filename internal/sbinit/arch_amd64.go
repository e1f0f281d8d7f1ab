//go:build linux

package sbinit

// Syscall numbers of x86_64 (arch/x86/entry/syscalls/syscall_64.tbl).
const (
	auditArch  = 0xc000003e // AUDIT_ARCH_X86_64
	sysSocket  = 41
	sysSeccomp = 317

	sysMount          = 165
	sysUmount2        = 166
	sysPivotRoot      = 155
	sysChroot         = 161
	sysSetns          = 308
	sysUnshare        = 272
	sysClone          = 56 // flags in args[0]
	sysKeyctl         = 250
	sysAddKey         = 248
	sysRequestKey     = 249
	sysBPF            = 321
	sysPerfEventOpen  = 298
	sysUserfaultfd    = 323
	sysKexecLoad      = 246
	sysKexecFileLoad  = 320
	sysInitModule     = 175
	sysFinitModule    = 313
	sysDeleteModule   = 176
	sysNameToHandleAt = 303
	sysOpenByHandleAt = 304
)
