//go:build linux

package sbinit

// Syscall numbers of arm64 (include/uapi/asm-generic/unistd.h).
const (
	auditArch  = 0xc00000b7 // AUDIT_ARCH_AARCH64
	sysSocket  = 198
	sysSeccomp = 277

	sysMount          = 40
	sysUmount2        = 39
	sysPivotRoot      = 41
	sysChroot         = 51
	sysSetns          = 268
	sysUnshare        = 97
	sysClone          = 220 // flags in args[0]
	sysKeyctl         = 219
	sysAddKey         = 217
	sysRequestKey     = 218
	sysBPF            = 280
	sysPerfEventOpen  = 241
	sysUserfaultfd    = 282
	sysKexecLoad      = 104
	sysKexecFileLoad  = 294
	sysInitModule     = 105
	sysFinitModule    = 273
	sysDeleteModule   = 106
	sysNameToHandleAt = 264
	sysOpenByHandleAt = 265
)
