//go:build linux

package sandbox

import (
	"os"
	"runtime"
	"testing"
)

// BenchmarkSecretsBelow times the search for secret files in a large tree
// (the Go distribution: thousands of directories, so the bound of 150
// directories is reached).
func BenchmarkSecretsBelow(b *testing.B) {
	root := runtime.GOROOT()
	if r := os.Getenv("SECRETS_ROOT"); r != "" {
		root = r
	}
	for b.Loop() {
		scanBelow(root, nil)
	}
}
