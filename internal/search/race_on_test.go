//go:build race

package search

// raceEnabled: the race detector multiplies memory use, so RSS limits do not apply.
const raceEnabled = true
