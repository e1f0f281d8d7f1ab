// Package reaper is the per-command helper that keeps track of every
// process a Bash command starts, so that none outlives the call – not one
// that left the process group (setsid, a daemon's double fork), not one
// that cleared its environment (env -i), and not when the program that ran
// the command is killed with SIGKILL.
//
// # Why a helper
//
// A process can leave its process group and session and clear its
// environment, but it cannot leave its ancestry: when its parent dies, the
// kernel reparents it to the nearest living ancestor that declared itself a
// "child subreaper" (prctl PR_SET_CHILD_SUBREAPER), and only failing one to
// init. The helper is that ancestor. internal/proc starts it by
// re-executing the running binary (/proc/self/exe) with [Arg0] as argv[0];
// this package's init notices, declares the process a subreaper, starts the
// shell as its child, and from then on every process the command starts is
// a descendant of the helper, however it detaches. The helper is per
// command, so descendants are attributed to one call exactly, and the
// program that runs the command (a long-lived server, a library user) is
// not itself made a subreaper, which would make it the parent of every
// orphan of everything it runs.
//
// A PID namespace would also give this (its init's death kills every
// process in it), but it changes what a pid means to the command – $$ and
// $! are namespace pids while ps, pgrep and /proc show the host's – so it
// is left to the OS sandbox, which has a private /proc. A cgroup needs
// root or a delegated subtree, and still needs a living process to kill it
// when the caller dies.
//
// # Protocol
//
// The helper runs with the command's directory, environment and standard
// files (stdin /dev/null, stdout and stderr the output pipe), and two more
// descriptors: a control pipe it reads and a report pipe it writes. Both
// are close-on-exec in the helper, so the command never holds them. The
// caller keeps supervising the shell's process group itself; the helper
// only tells it when the shell has exited, and does not reap the shell
// until asked, so the group id stays reserved while the caller signals it.
//
//	helper → caller   "P<pid>\n"   the shell started, with this pid (its group id)
//	                  "F<error>\n" the shell could not be started; the helper exits
//	                  "U<error>\n" the helper cannot work here (no subreaper); it exits
//	                               without starting the shell, which the caller may start itself
//	                  "X\n"        the shell exited; it is not reaped yet
//	                  "S<status>\n" the shell's wait status, after the caller's 'R'
//	                  "D\n"        no descendant is left (or the last ones are unkillable)
//	caller → helper   'R'          reap the shell, report its status, then end the rest
//	                  end of file  the caller is done (or dead)
//
// After 'R' the helper ends every remaining descendant – SIGTERM, then
// SIGKILL after the grace period – reports "D", and waits for the control
// pipe to close. End of file on the control pipe before that means the
// caller died: the helper ends the shell's group and every descendant the
// same way, at once. Either way it finally removes the working-directory
// file the caller named (see internal/proc's TrackDir), so that a caller
// killed with SIGKILL leaves no temporary file, and exits.
//
// # What it does not cover
//
// A process started on the command's behalf by a process that is not its
// descendant (a request to a running daemon: tmux, systemd-run, at, docker)
// is not tracked. A descendant that raised its privileges (a setuid
// program run by a user who is not root) cannot be signalled. Killing the
// helper itself with SIGKILL (it is in a process group of its own, so
// group signals to the caller do not reach it) hands the descendants to
// init; internal/proc then falls back to its environment marker.
package reaper

// Arg0 is the argv[0] under which the binary runs as the helper.
const Arg0 = "toolscope-reaper"

// Messages of the report pipe, and the control byte (see the package doc).
const (
	MsgStarted = 'P'
	MsgFailed  = 'F'
	MsgNoUse   = 'U'
	MsgExited  = 'X'
	MsgStatus  = 'S'
	MsgDone    = 'D'
	CtlReap    = 'R'
)
