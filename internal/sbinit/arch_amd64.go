//go:build linux

package sbinit

const (
	auditArch  = 0xc000003e // AUDIT_ARCH_X86_64
	sysSocket  = 41
	sysSeccomp = 317
)
