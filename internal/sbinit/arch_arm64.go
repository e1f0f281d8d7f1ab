//go:build linux

package sbinit

const (
	auditArch  = 0xc00000b7 // AUDIT_ARCH_AARCH64
	sysSocket  = 198
	sysSeccomp = 277
)
