package builtin

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolscope/toolscope/tool"
)

// Limits of an agent's background shells (Bash with run_in_background).
const (
	// MaxBackgroundShells is how many background shells one agent may
	// have running at once; Bash refuses another until one ends.
	MaxBackgroundShells = 8
	// MaxShellOutput is how much of a background shell's output is kept
	// for BashOutput: the last MaxShellOutput bytes. What is older and
	// was not read yet is dropped, and BashOutput says how much.
	MaxShellOutput = 1 << 20
	// maxEndedShells is how many ended shells an agent keeps listed
	// (with their unread output); the oldest ended ones go first.
	maxEndedShells = 8
)

// Statuses of a background shell, as BashOutput reports them (Claude
// Code's).
const (
	shellRunning   = "running"
	shellCompleted = "completed"
	shellKilled    = "killed"
	shellFailed    = "failed"
)

// Background shells live in the runtime part of the agent's state
// (tool.State.Runtime): they belong to that agent, in this process only,
// and end when the state is closed (tool.State.Close): ids are per agent,
// and no agent can read or kill another's.
type shellsKey struct{}

// agentShells is one agent's background shells.
type agentShells struct {
	mu     sync.Mutex
	next   int
	shells []*bgShell // in start order
	closed bool
	prefix string // of the ids; "" means "bash_" (see ShareShells)
}

// shellsOf returns st's background shells; nil when st is nil or closed.
func shellsOf(st *tool.State) *agentShells {
	if st == nil {
		return nil
	}
	v := st.Runtime(shellsKey{}, func() io.Closer { return &agentShells{} })
	switch v := v.(type) {
	case *agentShells:
		return v
	case sharedShells:
		return v.agentShells
	}
	return nil
}

// Close kills every running shell with its process group and waits until
// each is gone. It implements io.Closer for tool.State.Close.
func (a *agentShells) Close() error {
	a.mu.Lock()
	a.closed = true
	shells := slices.Clone(a.shells)
	a.mu.Unlock()
	for _, sh := range shells {
		sh.kill()
	}
	return nil
}

// add registers a new shell for command, or says why it cannot start.
func (a *agentShells) add(command string) (*bgShell, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, fmt.Errorf("the agent's session has ended")
	}
	var running []*bgShell
	for _, sh := range a.shells {
		if sh.running() {
			running = append(running, sh)
		}
	}
	if len(running) >= MaxBackgroundShells {
		return nil, fmt.Errorf("%d background shells are running, the most one agent may have: %s. Stop one with KillShell, or wait until one ends (BashOutput shows its status)",
			len(running), listShells(running))
	}
	// The oldest ended shells beyond maxEndedShells go, unread output too.
	ended := len(a.shells) - len(running)
	a.shells = slices.DeleteFunc(a.shells, func(sh *bgShell) bool {
		if ended > maxEndedShells-1 && !sh.running() {
			ended--
			return true
		}
		return false
	})
	a.next++
	// The shell's life is its own: not the call's context, which ends
	// with the call, but its cancel (KillShell, the state's Close), set
	// before anyone can see the shell.
	ctx, cancel := context.WithCancel(context.Background())
	prefix := a.prefix
	if prefix == "" {
		prefix = "bash_"
	}
	sh := &bgShell{id: fmt.Sprintf("%s%d", prefix, a.next), command: command, started: time.Now(), status: shellRunning,
		ctx: ctx, cancel: cancel, done: make(chan struct{})}
	a.shells = append(a.shells, sh)
	return sh, nil
}

// lookup returns the shell id, or an error naming the agent's shells.
func (a *agentShells) lookup(id string) (*bgShell, error) {
	var shells []*bgShell
	if a != nil {
		a.mu.Lock()
		shells = slices.Clone(a.shells)
		a.mu.Unlock()
	}
	for _, sh := range shells {
		if sh.id == id {
			return sh, nil
		}
	}
	if len(shells) == 0 {
		return nil, fmt.Errorf("No background shell with id %q: this agent has none (start one with Bash and run_in_background: true)", id)
	}
	return nil, fmt.Errorf("No background shell with id %q. This agent's shells: %s", id, listShells(shells))
}

// listShells names shells for the model: `bash_1 (running: npm run dev)`.
func listShells(shells []*bgShell) string {
	parts := make([]string, len(shells))
	for i, sh := range shells {
		status, code, _ := sh.state()
		cmd := sh.command
		if len(cmd) > 60 {
			cmd = strings.ToValidUTF8(cmd[:60], "") + "…"
		}
		switch status {
		case shellRunning, shellKilled:
			parts[i] = fmt.Sprintf("%s (%s: %s)", sh.id, status, cmd)
		default:
			parts[i] = fmt.Sprintf("%s (%s, exit code %d: %s)", sh.id, status, code, cmd)
		}
	}
	return strings.Join(parts, "; ")
}

// bgShell is one background shell: its status and the last
// MaxShellOutput bytes of its output, in a ring.
type bgShell struct {
	id, command string
	started     time.Time
	ctx         context.Context // the shell runs until it is done
	cancel      context.CancelFunc
	done        chan struct{} // closed once nothing of it runs any more

	mu       sync.Mutex
	ring     []byte // MaxShellOutput bytes once it printed; byte p of the output is at ring[p%len(ring)]
	total    int64  // bytes of output so far
	read     int64  // output already handed to BashOutput (or dropped unread)
	status   string
	exitCode int
	killed   bool
	notes    []string // what the end of the shell adds: timed out, sandbox findings
	meta     map[string]any
}

func (sh *bgShell) running() bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.status == shellRunning
}

func (sh *bgShell) state() (status string, exitCode int, notes []string) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.status, sh.exitCode, slices.Clone(sh.notes)
}

// write appends output: whole runes (proc's onOutput never splits one).
func (sh *bgShell) write(s string) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.ring == nil {
		sh.ring = make([]byte, MaxShellOutput)
	}
	n := int64(len(sh.ring))
	if int64(len(s)) > n {
		sh.total += int64(len(s)) - n
		s = s[int64(len(s))-n:]
	}
	for len(s) > 0 {
		k := copy(sh.ring[sh.total%n:], s)
		sh.total += int64(k)
		s = s[k:]
	}
}

// unread returns the output not read yet, and how many bytes of it were
// dropped because the ring had already overwritten them.
func (sh *bgShell) unread() (out string, dropped int64) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	from := sh.read
	if n := int64(len(sh.ring)); sh.total-from > n {
		from = sh.total - n
	}
	dropped = from - sh.read
	b := make([]byte, 0, sh.total-from)
	for p := from; p < sh.total; {
		i := p % int64(len(sh.ring))
		end := min(int64(len(sh.ring)), i+sh.total-p)
		b = append(b, sh.ring[i:end]...)
		p += end - i
	}
	sh.read = sh.total
	if dropped > 0 {
		// The ring may start inside a rune: skip its continuation bytes.
		for k := 0; k < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); k++ {
			b = b[1:]
			dropped++
		}
	}
	return string(b), dropped
}

// kill stops the shell with its whole process group and waits until
// nothing of it runs; it reports whether the shell was still running.
func (sh *bgShell) kill() bool {
	sh.mu.Lock()
	wasRunning := sh.status == shellRunning
	if wasRunning {
		sh.killed = true
	}
	sh.mu.Unlock()
	sh.cancel()
	<-sh.done
	return wasRunning
}

// end records how the shell ended.
func (sh *bgShell) end(status string, exitCode int, notes []string, meta map[string]any) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.killed {
		status = shellKilled
	}
	sh.status, sh.exitCode, sh.notes, sh.meta = status, exitCode, notes, meta
}

// tail returns up to n bytes of the latest output, without marking it
// read (for the sandbox's note on a failed command).
func (sh *bgShell) tail(n int64) string {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.ring == nil {
		return ""
	}
	from := max(sh.total-min(n, int64(len(sh.ring))), 0)
	var b []byte
	for p := from; p < sh.total; p++ {
		b = append(b, sh.ring[p%int64(len(sh.ring))])
	}
	return strings.ToValidUTF8(string(b), "")
}
