package builtin

import (
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/toolscope/toolscope/internal/proc"
	"github.com/toolscope/toolscope/sandbox"
	"github.com/toolscope/toolscope/tool"
)

//go:embed bash_background.md
var bashBackgroundDescription string

// description is bash.md, and how to run a command in the background
// when Options.Background allows it.
func (b *Bash) description() string {
	if b.c.opts.Background {
		return bashDescription + "\n" + bashBackgroundDescription
	}
	return bashDescription
}

// backgroundRefused says why run_in_background cannot be honoured here;
// "" when it can.
func (b *Bash) backgroundRefused(st *tool.State) string {
	switch {
	case !b.c.opts.Background:
		return "Command not run: run_in_background is not available here: a background shell cannot outlive the program that started it, and this one ends with the call. Run the command in the foreground instead (timeout up to 600000 ms), or ask the user to run it."
	case st == nil:
		return "Command not run: run_in_background needs the agent's state (Call.State), which owns its background shells."
	case shellsOf(st) == nil:
		return "Command not run: this call's agent state is closed (its session has ended, or the call came without one), so a background shell started now could never be read or stopped. Run the command in the foreground instead."
	}
	return ""
}

// startBackground starts the judged command j as a background shell of
// the agent: the same command, directory, environment and sandbox as the
// foreground run would have used (popts, and sbRun, which it owns once
// it returned a shell).
// Output is streamed into the shell's ring, never kept by proc; the
// timeout applies only when the call gave one. The goroutine it starts
// ends once nothing of the command runs, after the sandbox's quarantine.
func (b *Bash) startBackground(shells *agentShells, in bashInput, j *BashJudgment, popts *proc.Options, sbRun *sandbox.Run, excludedBy string, sbStatus **sandbox.Status) (*bgShell, error) {
	sh, err := shells.add(in.Command)
	if err != nil {
		return nil, err // the caller closes sbRun
	}
	o := *popts
	o.Stream, o.TrackDir = true, false
	o.HeadLimit, o.TailLimit = 0, 0
	if in.Timeout <= 0 {
		o.Timeout = 0
	}
	ctx, cancel := sh.ctx, sh.cancel
	sandboxed := sbRun != nil
	go func() {
		defer close(sh.done)
		defer cancel()
		started := time.Now()
		res, err := proc.Run(ctx, in.Command, &o, sh.write)
		var notes []string
		meta := map[string]any{}
		if sbRun != nil {
			blocked, unchecked := sbRun.Quarantine(ownWrites.keep(started))
			sbRun.Close()
			m := sandboxMeta(*sbStatus, excludedBy)
			if len(blocked) > 0 {
				m["blocked"] = blocked
				notes = append(notes, blockedNote(blocked))
			}
			if unchecked != nil {
				m["unchecked"] = unchecked.Error()
				notes = append(notes, "Warning: "+strings.TrimPrefix(unchecked.Error(), "sandbox: ")+". Tell the user: files there that git, editors or agents run later were not checked.")
			}
			meta["sandbox"] = m
		} else if b.c.opts.Sandbox != nil {
			meta["sandbox"] = sandboxMeta(nil, excludedBy)
		}
		if err != nil {
			sh.end(shellFailed, -1, append(notes, fmt.Sprintf("Command could not be started: %v", err)), meta)
			return
		}
		meta["duration_ms"] = res.Duration.Milliseconds()
		meta["output_bytes"] = res.Total
		switch {
		case res.TimedOut:
			meta["timed_out"] = true
			sh.end(shellFailed, res.ExitCode, append(notes, fmt.Sprintf("Command timed out after %dms.", o.Timeout.Milliseconds())), meta)
		case res.ExitCode != 0:
			if res.Signal != "" {
				notes = append(notes, fmt.Sprintf("Command was killed by a signal (%s).", res.Signal))
			}
			if sandboxed {
				if n := sandboxNote(sh.tail(4096)); n != "" {
					notes = append(notes, n)
				}
			}
			sh.end(shellFailed, res.ExitCode, notes, meta)
		default:
			sh.end(shellCompleted, 0, notes, meta)
		}
	}()
	return sh, nil
}
