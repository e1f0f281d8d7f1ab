//go:build !race

package textfile

const raceEnabled = false
