// Package proc is the execution engine behind the agent's Bash tool: it runs
// one shell command, streams its output, bounds memory however much the
// command prints, and leaves no process behind.
//
// # Process model
//
// Run starts `SHELL -c COMMAND` in a new process group (Setpgid; the group id
// is the shell's pid) with stdin from /dev/null and stdout and stderr both
// attached to the write end of a single pipe, so the two streams arrive
// interleaved in the order the command wrote them. The parent closes its copy
// of the write end immediately.
//
// On Linux the shell is started through a small helper, a re-execution of
// the running binary (package internal/reaper): the helper declares itself
// a child subreaper (prctl PR_SET_CHILD_SUBREAPER) and starts the shell as
// its child, so every process the command starts stays a descendant of the
// helper however it detaches – setsid, a daemon's double fork, env -i –
// since an orphan is reparented to its nearest subreaper ancestor, not to
// init. The helper does not reap the shell until Run asks, so Run
// supervises the shell's group exactly as if the shell were its own child.
// When the shell has been reaped, the helper ends every descendant left
// (SIGTERM, then SIGKILL after KillGrace, until none is left: a process
// forking while it is killed is caught by the next round). The helper
// outlives a caller killed with SIGKILL: it notices the end of its control
// pipe, ends the shell's group and every descendant the same way, and
// removes the TrackDir file. The helper costs one more process start per
// command (about 2 ms). A custom Options.Start (the OS sandbox, whose shell
// is the init of a PID namespace) starts the shell directly; so does Run
// where the kernel has no pidfds (before 5.3) or /proc/self/exe cannot be
// executed. A shell started directly gets SIGKILL when the process that
// started it dies (Pdeathsig).
//
// A supervisor goroutine waits for the shell to exit without reaping it
// (waitid with WNOWAIT, or the helper's word). While the shell is an unreaped
// zombie its pid – and therefore the group id – cannot be reused, so
// signalling the group (-pgid) can never hit an unrelated process.
//
//   - On timeout or context cancellation the whole group receives SIGTERM,
//     and SIGKILL after Options.KillGrace if the shell has not exited by then.
//   - When the shell exits (normally or not), the group receives SIGTERM
//     again: the tool has no background mode, so background jobs the command
//     left behind are terminated too. The shell is then reaped, and the group
//     is polled until it has no live member – kill(-pgid, 0) failing with
//     ESRCH, or (when it succeeds) a /proc scan finding only zombies, since
//     orphaned members are reparented to init, which may reap them late.
//     Whatever is still alive when KillGrace (counted from the first SIGTERM)
//     expires is SIGKILLed. The common case – no member left – costs a single
//     kill(2) and no /proc scan.
//
// Every process of the run also inherits the environment variable
// TOOLSCOPE_RUN with a value unique to the run. Without the helper (a
// direct start, or a helper that was itself killed), once the group is
// gone Run finds the live processes that still carry it (a scan of
// /proc/*/environ) and ends them the same way, through pidfds so that a
// reused pid is never signalled; there, a process that left the group and
// cleared its environment escapes.
//
// Only after the group is gone does Run stop reading: it gives the pipe a
// short drain period to collect what is already buffered, then sets a read
// deadline, so a process outside the group (e.g. started with setsid) that
// still holds the pipe open cannot make Run hang. Every goroutine Run starts
// has returned, and the shell and the helper have been reaped, by the time
// Run returns.
//
// # Output capture
//
// Output is read in fixed 64 KiB chunks. The raw stream is decoded as UTF-8
// (invalid bytes become U+FFFD, "\r\n" becomes "\n"); a rune or CRLF split
// across reads is carried over to the next read, never broken. The first
// HeadLimit bytes of decoded output are kept as Result.Head – cut at a rune
// boundary – and are also streamed live to the onOutput callback, on Run's
// goroutine, so the concatenation of the callback's strings is exactly Head.
// Everything after the head goes through a ring buffer of TailLimit raw
// bytes; at the end the ring is resynchronised to a rune boundary, decoded,
// and trimmed to at most TailLimit bytes as Result.Tail. Raw bytes in
// between are counted in Result.Dropped. Accounting is in raw bytes: the raw
// bytes that produced Head, plus those that produced Tail, plus Dropped,
// equal Total. Memory use is therefore O(HeadLimit + TailLimit + 64 KiB)
// regardless of how much the command prints.
//
// # Working directory tracking
//
// With Options.TrackDir the command runs through a small wrapper:
//
//	trap 'command pwd -P >TMPFILE 2>/dev/null' EXIT
//	eval "shift; $1"
//	set -- "$?"; command pwd -P >TMPFILE 2>/dev/null; exit "$1"
//
// The user's command is passed as a positional argument (never through the
// environment) and evaluated in the wrapper shell itself, so `cd` affects the
// shell whose directory is reported. The leading `shift` inside the eval'd
// string removes the command from "$@" before it runs. The EXIT trap records
// the directory when the command calls `exit N` (the shell still exits with
// N); the explicit write after eval covers commands that replace the EXIT
// trap with their own. The exit status is preserved exactly. A syntactically
// broken command makes eval print the shell's usual syntax error. TMPFILE is
// a private temporary file (mode 0600) created by Run and removed before it
// returns (by the helper, which removes it also when the caller was killed);
// it is embedded in the wrapper as a single-quoted literal. If the command both
// replaces the EXIT trap and calls exit, or kills the shell, Result.Dir is "".
package proc
