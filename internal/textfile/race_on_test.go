//go:build race

package textfile

// raceEnabled: the race detector multiplies memory use, so RSS limits do not apply.
const raceEnabled = true
