package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/sandbox"
	"github.com/toolscope/toolscope/shell"
)

// sandboxRisks are the commands that do harm inside the sandbox: they lose
// work in the project, or reach beyond it through the remote. The
// sandbox never lets them run without asking. They are matched the way
// deny rules are (any simple command; wrappers, sh -c and git's global
// options looked through).
var sandboxRisks = []string{
	"git push:*", "git send-email:*", "git reset:*", "git clean:*", "git restore:*",
	"git checkout --:*", "git checkout -f:*", "git checkout --force:*", "git checkout .:*",
	"git stash drop:*", "git stash clear:*", "git branch -D:*", "git branch --delete:*",
	"git update-ref:*", "git gc:*", "git filter-branch:*", "git worktree remove:*",
	"rm -r:*", "rm -R:*", "rm --recursive:*", "shred:*", "truncate:*",
	// A find that is not read-only deletes or runs commands; xargs runs a
	// command the analysis cannot see ("echo clean -fdx | xargs git").
	"find:*", "xargs:*",
}

// signalRisks reach processes outside the sandbox unless Landlock scopes
// signals (ABI 6).
var signalRisks = []string{"kill:*", "pkill:*", "killall:*"}

// sandboxAllow is the decision for a command the analyser passes to the
// engine (unknown, or not read-only), when the sandbox confines it: allow,
// with a reason that says so. ok is false when the command must be judged
// as without a sandbox.
func (b *Bash) sandboxAllow(ctx context.Context, a *shell.Analysis, input json.RawMessage) (permission.Decision, bool) {
	sb := b.c.opts.Sandbox
	if sb == nil || b.c.opts.NoSandboxAutoAllow || a.Verdict != shell.Passthrough || a.BypassImmune {
		return permission.Decision{}, false
	}
	if _, ex := a.MatchAnyRule(b.c.opts.ExcludedCommands); ex {
		return permission.Decision{}, false
	}
	st, err := sb.Status(ctx)
	if err != nil || !st.Confines() {
		return permission.Decision{}, false
	}
	if _, risky := a.MatchAnyRule(sandboxRisks); risky {
		return permission.Decision{}, false
	}
	if _, risky := a.MatchAnyRule(signalRisks); risky && !st.Has(sandbox.Signals) {
		return permission.Decision{}, false
	}
	network := "no network"
	if st.Has(sandbox.NetworkProxy) {
		network = "no network but the allowed domains"
	}
	return permission.Decision{
		Behavior:     permission.Allow,
		Message:      "Permission granted for Bash (sandboxed)",
		Reason:       "Sandboxed: writes only inside the working directories, " + network + ", secrets hidden; " + a.Reason,
		UpdatedInput: input,
	}, true
}

// sandboxStart returns the proc start hook that runs the command in run's
// sandbox, and stores the protections in force in *status.
func sandboxStart(run *sandbox.Run, status **sandbox.Status) func(cmd *exec.Cmd) error {
	return func(cmd *exec.Cmd) error {
		if err := run.Wrap(cmd); err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return err
		}
		st, err := run.Report()
		if err != nil {
			_ = cmd.Wait()
			return err
		}
		*status = st
		return nil
	}
}

// sandboxMeta is the "sandbox" entry of a Bash result's metadata.
func sandboxMeta(st *sandbox.Status, excludedBy string) map[string]any {
	if st == nil {
		return map[string]any{"enabled": false, "reason": "excluded by " + excludedBy + "; the command ran outside the sandbox"}
	}
	m := map[string]any{"enabled": true, "active": st.Active}
	if len(st.Missing) > 0 {
		var miss []string
		for _, x := range st.Missing {
			miss = append(miss, x.Name+": "+x.Why)
		}
		m["missing"] = miss
	}
	return m
}

// sandboxNote explains a failure that the sandbox probably caused, so the
// model does not retry blindly.
func sandboxNote(out string) string {
	l := strings.ToLower(out)
	switch {
	case strings.Contains(l, "read-only file system") || strings.Contains(l, "permission denied") || strings.Contains(l, "operation not permitted") || strings.Contains(l, "no such device or address"):
		return "The command ran in the sandbox: it may write only inside the working directories and $TMPDIR (the repository (.git) is read-only, as are the other protected files: git commands that change it must run outside the sandbox, through the sandbox's excludedCommands), and cannot read secrets (~/.ssh, ~/.aws, .env, ...)."
	case strings.Contains(l, "network is unreachable") || strings.Contains(l, "could not resolve") || strings.Contains(l, "temporary failure in name resolution") || strings.Contains(l, "connection refused"):
		return "The command ran in the sandbox, which has no network."
	}
	return ""
}

// blockedNote tells the model which protected paths the sandbox moved
// aside after the command, why each matters, and what to do instead.
func blockedNote(blocked []sandbox.Blocked) string {
	var b strings.Builder
	b.WriteString("The sandbox does not keep files that programs run later or that grant permissions; the command made:")
	for _, x := range blocked {
		if x.MovedTo != "" {
			fmt.Fprintf(&b, "\n- %s (%s): moved to %s", x.Path, x.Why, x.MovedTo)
		} else {
			fmt.Fprintf(&b, "\n- %s (%s): could not be moved aside (%s); review it before any tool outside opens it", x.Path, x.Why, x.Error)
		}
	}
	b.WriteString("\nIf one is meant, make it with Write or Edit (which ask the user), or ask the user to run the command outside the sandbox; do not move it back yourself.")
	return b.String()
}
