//go:build linux

package sandbox

import (
	"os"
	"runtime"
	"testing"
)

// benchRoot is a large tree: the Go distribution (about 2 000
// directories), or $SECRETS_ROOT.
func benchRoot() string {
	if r := os.Getenv("SECRETS_ROOT"); r != "" {
		return r
	}
	return runtime.GOROOT()
}

// BenchmarkTreeScanCold times the scan for protected and secret files of a
// tree read for the first time (the CLI's one call per process).
func BenchmarkTreeScanCold(b *testing.B) {
	root := benchRoot()
	for b.Loop() {
		var c treeCache
		c.scan(root, maxTreeDirs)
	}
}

// BenchmarkTreeScanWarm times the scan of a tree that has not changed
// since the last one (a session's next command, and the check after each
// command): a stat per directory, no reading.
func BenchmarkTreeScanWarm(b *testing.B) {
	root := benchRoot()
	var c treeCache
	c.scan(root, maxTreeDirs)
	for b.Loop() {
		c.scan(root, maxTreeDirs)
	}
}
