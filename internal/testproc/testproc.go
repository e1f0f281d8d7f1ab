// Package testproc finds processes, for the tests that check that nothing a
// command started outlives it (Linux: it reads /proc).
package testproc

import (
	"os"
	"strconv"
	"strings"
)

// With returns the live processes (zombies aside) whose command line holds
// s and none of skip, by pid.
func With(s string, skip ...string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd := Cmdline(pid)
		if !strings.Contains(cmd, s) || !Live(pid) {
			continue
		}
		skipped := false
		for _, k := range skip {
			skipped = skipped || strings.Contains(cmd, k)
		}
		if !skipped {
			out = append(out, pid)
		}
	}
	return out
}

// Cmdline is the command line of pid, its arguments joined by spaces ("" if
// there is no such process).
func Cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// Live reports whether pid is a process that has not exited: a zombie
// (exited, not yet reaped) has.
func Live(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || (b[i+2] != 'Z' && b[i+2] != 'X')
}
