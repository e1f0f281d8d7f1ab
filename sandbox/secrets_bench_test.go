//go:build linux

package sandbox

import (
	"runtime"
	"testing"
)

// BenchmarkSecretsBelow times the search for secret files in a large tree
// (the Go distribution: thousands of directories, so the bound of 250
// directories is reached).
func BenchmarkSecretsBelow(b *testing.B) {
	root := runtime.GOROOT()
	for b.Loop() {
		secretsBelow(root, nil)
	}
}
