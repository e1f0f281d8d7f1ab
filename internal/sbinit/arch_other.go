//go:build linux && !amd64 && !arm64

package sbinit

// No seccomp filter on this architecture (auditArch 0): the helper
// reports the filter missing.
const (
	auditArch  = 0
	sysSocket  = 0
	sysSeccomp = 0

	sysMount          = 0
	sysUmount2        = 0
	sysPivotRoot      = 0
	sysChroot         = 0
	sysSetns          = 0
	sysUnshare        = 0
	sysClone          = 0
	sysKeyctl         = 0
	sysAddKey         = 0
	sysRequestKey     = 0
	sysBPF            = 0
	sysPerfEventOpen  = 0
	sysUserfaultfd    = 0
	sysKexecLoad      = 0
	sysKexecFileLoad  = 0
	sysInitModule     = 0
	sysFinitModule    = 0
	sysDeleteModule   = 0
	sysNameToHandleAt = 0
	sysOpenByHandleAt = 0
)
