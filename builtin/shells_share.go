package builtin

import (
	"io"

	"github.com/toolscope/toolscope/tool"
)

// ShareShells makes the background shells of st those of owner, for a
// host that decodes a fresh state for each call (a Temporal activity)
// while the agent's shells live on in its process: a Bash call made with
// st starts its shell among owner's, and BashOutput and KillShell made
// with st reach owner's shells. Closing owner kills them; closing st does
// not. prefix, when not "", begins the ids of the shells owner starts
// from now on instead of "bash_", so that ids can say which process
// holds a shell.
//
// It reports whether st now uses owner's shells: not when owner is
// closed, or st has shells of its own already.
func ShareShells(st, owner *tool.State, prefix string) bool {
	a := shellsOf(owner)
	if a == nil || st == nil {
		return false
	}
	if prefix != "" {
		a.mu.Lock()
		a.prefix = prefix
		a.mu.Unlock()
	}
	s, ok := st.Runtime(shellsKey{}, func() io.Closer { return sharedShells{a} }).(sharedShells)
	return ok && s.agentShells == a
}

// sharedShells are another state's shells, in a state that does not own
// them: its Close leaves them to their owner.
type sharedShells struct{ *agentShells }

// Close implements io.Closer: the owner closes the shells.
func (sharedShells) Close() error { return nil }
