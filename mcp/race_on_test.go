//go:build race

package mcp_test

// raceEnabled: the race detector allocates for itself, so allocation bounds do not apply.
const raceEnabled = true
