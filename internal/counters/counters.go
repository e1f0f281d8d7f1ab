// Package counters counts work that the design promises to do once, so
// that tests can hold it to that: a shell command is analysed once per
// tool call, whatever asks about it (the permission engine's questions,
// each rule, the run).
package counters

import "sync/atomic"

var (
	// ShellAnalyses counts the calls of shell.Analyze in this process.
	ShellAnalyses atomic.Int64
	// ShellParses counts the parses of a whole command line (not of the
	// scripts inside one, such as sh -c's) by the analysis and by rule
	// matching.
	ShellParses atomic.Int64
)
