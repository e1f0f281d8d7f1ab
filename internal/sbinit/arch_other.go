//go:build linux && !amd64 && !arm64

package sbinit

const (
	auditArch  = 0
	sysSocket  = 0
	sysSeccomp = 0
)
