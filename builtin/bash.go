package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolscope/toolscope/internal/proc"
	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/sandbox"
	"github.com/toolscope/toolscope/shell"
	"github.com/toolscope/toolscope/tool"
)

//go:embed bash.md
var bashDescription string

// Bash timeouts, in milliseconds.
const (
	DefaultBashTimeout = 120000
	MaxBashTimeout     = 600000
)

// Bash is the shell tool. See the package documentation.
type Bash struct{ c *config }

// NewBash returns the Bash tool.
func NewBash(opts *Options) *Bash { return &Bash{c: newConfig(opts)} }

type bashInput struct {
	Command     string `json:"command"`
	Description string `json:"description,omitempty"`
	Timeout     int    `json:"timeout,omitempty"`
	// RunInBackground starts the command and returns its shell id at
	// once (Options.Background); BashOutput reads it, KillShell stops it.
	RunInBackground bool `json:"run_in_background,omitempty"`
}

var bashSchema = json.RawMessage(`{"type":"object","properties":{
"command":{"type":"string","minLength":1,"description":"The command to execute"},
"description":{"type":"string","description":"What the command does, in 5-10 words"},
"timeout":{"type":"integer","minimum":0,"maximum":600000,"default":120000,"description":"Timeout in milliseconds (default 120000, max 600000)"}},
"required":["command"]}`)

// bashBackgroundSchema is bashSchema with run_in_background, offered when
// Options.Background is set.
var bashBackgroundSchema = json.RawMessage(`{"type":"object","properties":{
"command":{"type":"string","minLength":1,"description":"The command to execute"},
"description":{"type":"string","description":"What the command does, in 5-10 words"},
"timeout":{"type":"integer","minimum":0,"maximum":600000,"default":120000,"description":"Timeout in milliseconds (default 120000, max 600000)"},
"run_in_background":{"type":"boolean","description":"Set to true to run this command in the background. Use BashOutput to read the output later."}},
"required":["command"]}`)

func (b *Bash) schema() json.RawMessage {
	if b.c.opts.Background {
		return bashBackgroundSchema
	}
	return bashSchema
}

// Info implements [tool.Tool].
func (b *Bash) Info() tool.Info {
	return tool.Info{Name: "Bash", Title: "Run a shell command", Description: b.description(), InputSchema: b.schema(), StateInjected: true,
		Annotations: hints(false, true, false, true)}
}

func bashCommand(input json.RawMessage) string {
	var in bashInput
	_ = json.Unmarshal(input, &in)
	return in.Command
}

// cwd is where the next command runs: the state's directory, else the root
// (with its links resolved: the shell's $PWD is then the physical
// directory, which is what the analyser assumes).
func (b *Bash) cwd(st *tool.State) string {
	if st != nil {
		if d := DataOf(st).Cwd(); d != "" {
			return d
		}
	}
	return canonical(b.c.root)
}

func (b *Bash) analyze(command string, st *tool.State, pc *permission.Context) *shell.Analysis {
	dir, _ := b.runDir(st)
	return b.analyzeIn(command, dir, pc)
}

// analyzeIn is the analysis of command run in the directory cwd.
func (b *Bash) analyzeIn(command, cwd string, pc *permission.Context) *shell.Analysis {
	o := &shell.Options{Cwd: cwd, DangerousFiles: b.c.dangerFiles, DangerousDirs: b.c.dangerDirs, HardenedEnv: true, KeepParse: true,
		ProtectedPaths: b.c.opts.ProtectedPaths, PathDirs: b.c.pathDirs}
	o.WorkingDirs = b.c.workingDirs(pc)
	if pc != nil {
		o.Mode = string(pc.Mode)
	}
	return shell.Analyze(command, o)
}

// env is the environment a command runs with: the configured one (or the
// process's), hardened so that project configuration cannot make read-only
// tools run code (shell.HardenEnv), and, when the analyser allowed the
// command, hardened the way its read-only verdict assumes
// (shell.HardenEnvReadOnly: no git hooks, no Go toolchain switching, no pip
// configuration files). A command that runs because a rule or the user
// allowed it keeps git's hooks and the rest.
func (b *Bash) env(analysedAllow bool) []string {
	env := b.c.opts.Env
	if env == nil {
		env = os.Environ()
	}
	if analysedAllow {
		return shell.HardenEnvReadOnly(env)
	}
	return shell.HardenEnv(env)
}

// CheckReadOnly implements [tool.ReadOnlyChecker]: true when every simple
// command only reads and nothing in the command objects. (Through a
// Toolkit, the [BashJudgment] answers instead, from the one analysis.)
func (b *Bash) CheckReadOnly(ctx context.Context, input json.RawMessage) bool {
	cmd := bashCommand(input)
	if cmd == "" {
		return false
	}
	st := tool.StateFromContext(ctx)
	var pc *permission.Context
	if st != nil {
		pc = st.Permissions()
	}
	return b.analyze(cmd, st, pc).ReadOnly
}

// CheckPermissions implements [tool.Tool]. Besides the analyser's verdict,
// it applies the user's Bash allow rules the way Claude Code users expect:
// a compound command is allowed when every simple command in it is
// read-only or matched by some allow rule ("git add . && git commit -m x"
// with Bash(git add:*) and Bash(git commit:*)). Its suggestions, when the
// command needs approval, are the rules that would let it through.
func (b *Bash) CheckPermissions(ctx context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error) {
	cmd := bashCommand(input)
	if strings.TrimSpace(cmd) == "" {
		return emptyCommand, nil
	}
	return b.decide(ctx, input, b.analyze(cmd, tool.StateFromContext(ctx), pc), pc), nil
}

var emptyCommand = permission.Decision{Behavior: permission.Passthrough, Message: "Empty command", Reason: "Empty command"}

// decide is the tool's opinion of the analysed command a (of input) under pc.
// A compound command is allowed when each of its simple commands is
// allowed on its own: read-only, allowed by the mode (accept_edits'
// filesystem commands inside the working directories), or covered by one
// of the user's Bash allow rules ("git add . && git commit -m x" with
// Bash(git add:*) and Bash(git commit:*); "npm run build && touch
// dist/.stamp" with Bash(npm run:*) in accept_edits). The reason then
// names, per simple command, what allowed it. Deny and ask rules are the
// engine's: they match any simple command before this check runs.
func (b *Bash) decide(ctx context.Context, input json.RawMessage, a *shell.Analysis, pc *permission.Context) permission.Decision {
	d := permission.Decision{Message: a.Message, Reason: a.Reason, BypassImmune: a.BypassImmune}
	if sd, ok := b.sandboxAllow(ctx, a, input); ok {
		return sd
	}
	var contents []string
	if pc != nil {
		for _, r := range pc.Allow {
			if r.Tool == "Bash" && r.Content != "" {
				contents = append(contents, r.Content)
			}
		}
	}
	switch a.Verdict {
	case shell.Allow:
		d.Behavior = permission.Allow
		if len(a.Commands) > 1 {
			if grants, ok := a.Grants(nil); ok {
				d.Reason = grantsReason(grants, pc)
			}
		}
		return d
	case shell.Ask:
		d.Behavior = permission.Ask
	default:
		d.Behavior = permission.Passthrough
	}
	if pc != nil && !a.BypassImmune {
		if grants, ok := a.Grants(contents); ok {
			var rules []permission.Rule
			for _, g := range grants {
				if g.Rule == "" || slices.ContainsFunc(rules, func(r permission.Rule) bool { return r.Content == g.Rule }) {
					continue
				}
				rules = append(rules, permission.Rule{Tool: "Bash", Content: g.Rule, Behavior: permission.Allow})
			}
			if len(rules) > 0 {
				reason := grantsReason(grants, pc)
				if len(grants) == 1 {
					reason = "Rules: " + rules[0].String() + " (every other simple command is read-only)"
				}
				return permission.Decision{Behavior: permission.Allow, Message: "Permission granted for Bash",
					Reason: reason, Rules: rules, UpdatedInput: input}
			}
		}
	}
	d.Suggestions = bashRules(a.SuggestionsGiven(contents))
	return d
}

// grantsReason names what allowed each simple command of a command allowed
// part by part: `Each part allowed: "npm run build" (rule Bash(npm run:*));
// "touch dist/.stamp" (mode accept_edits: ...)`.
func grantsReason(grants []shell.Grant, pc *permission.Context) string {
	mode := permission.AcceptEdits
	if pc != nil && pc.Mode != "" {
		mode = pc.Mode
	}
	parts := make([]string, len(grants))
	for i, g := range grants {
		var by string
		switch g.Layer {
		case shell.LayerRule:
			by = "rule " + permission.Rule{Tool: "Bash", Content: g.Rule}.String()
		case shell.LayerAcceptEdits:
			by = "mode " + string(mode) + ": filesystem command with all targets in a working directory"
		default:
			by = "read-only"
		}
		if g.AfterRules {
			by += ", after commands allowed by rules"
		}
		parts[i] = strconv.Quote(g.Command) + " (" + by + ")"
	}
	return "Each part allowed: " + strings.Join(parts, "; ")
}

// Judge implements [tool.Judge]: the command is parsed and analysed once,
// where it will run (the state's working directory) and under the state's
// permission context; every permission question and the run use that
// analysis.
func (b *Bash) Judge(ctx context.Context, input json.RawMessage) (tool.Judgment, error) {
	st := tool.StateFromContext(ctx)
	var pc *permission.Context
	if st != nil {
		pc = st.Permissions()
	}
	dir, gone := b.runDir(st)
	return b.judgeIn(bashCommand(input), input, dir, gone, pc)
}

// runDir is where the next command runs: the state's working directory,
// or the root when that no longer exists (gone then names it).
func (b *Bash) runDir(st *tool.State) (dir, gone string) {
	dir = b.cwd(st)
	if !isDir(dir) && dir != canonical(b.c.root) {
		return canonical(b.c.root), dir
	}
	return dir, ""
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func (b *Bash) judgeIn(command string, input json.RawMessage, cwd, gone string, pc *permission.Context) (*BashJudgment, error) {
	j := &BashJudgment{b: b, input: input, command: command, cwd: cwd, gone: gone, pc: pc}
	if strings.TrimSpace(command) != "" {
		j.a = b.analyzeIn(command, cwd, pc)
		j.excludedBy, j.excluded = j.a.MatchAnyRule(b.c.opts.ExcludedCommands)
	} else {
		j.excludedBy, j.excluded = shell.MatchAnyRule(b.c.opts.ExcludedCommands, command)
	}
	return j, nil
}

// BashJudgment is the Bash tool's judgment of one command ([tool.Judge]):
// its analysis, made once for the permission engine and carried to the
// run, which runs that command, in that directory, with the environment
// the analysis chose.
type BashJudgment struct {
	b          *Bash
	input      json.RawMessage
	command    string
	cwd        string
	gone       string              // the state's working directory, which no longer existed
	pc         *permission.Context // the permission context it was judged under
	a          *shell.Analysis     // nil for an empty command
	excludedBy string              // the sandbox exclusion the command matches
	excluded   bool
}

// Command is the command judged.
func (j *BashJudgment) Command() string { return j.command }

// Dir is the directory the command was judged to run in.
func (j *BashJudgment) Dir() string { return j.cwd }

// Analysis is the shell analysis of the command (nil for an empty one).
func (j *BashJudgment) Analysis() *shell.Analysis { return j.a }

// ReadOnly implements [tool.Judgment].
func (j *BashJudgment) ReadOnly(context.Context) bool {
	return j.command != "" && j.a != nil && j.a.ReadOnly
}

// CheckPermissions implements [tool.Judgment]. A permission context other
// than the one judged under (another mode or other working directories)
// is judged again.
func (j *BashJudgment) CheckPermissions(ctx context.Context, pc *permission.Context) (permission.Decision, error) {
	if j.a == nil {
		return emptyCommand, nil
	}
	a := j.a
	if !samePermissions(pc, j.pc) {
		a = j.b.analyzeIn(j.command, j.cwd, pc)
	}
	return j.b.decide(ctx, j.input, a, pc), nil
}

// samePermissions reports whether an analysis under pc would be one under
// judged: the same mode and working directories (rules do not enter it).
func samePermissions(pc, judged *permission.Context) bool {
	if pc == judged {
		return true
	}
	if pc == nil || judged == nil {
		return false
	}
	return pc.Mode == judged.Mode && slices.Equal(pc.WorkingDirs, judged.WorkingDirs)
}

// MatchRule implements [tool.Judgment]: an allow rule must match every
// simple command of the command, a deny or ask rule any of them (wrappers
// such as sudo or env looked through), on the analysis's parse.
func (j *BashJudgment) MatchRule(_ context.Context, rule permission.Rule) bool {
	var all, any bool
	if j.a != nil {
		all, any = j.a.MatchRule(rule.Content)
	} else {
		all, any = shell.MatchRule(rule.Content, j.command)
	}
	if rule.Behavior == permission.Allow {
		return all
	}
	return any
}

// Suggestions implements [tool.Judgment].
func (j *BashJudgment) Suggestions(context.Context) []permission.Rule {
	if j.a == nil {
		return nil
	}
	return bashRules(j.a.Suggestions())
}

func bashRules(contents []string) []permission.Rule {
	var rules []permission.Rule
	for _, s := range contents {
		rules = append(rules, permission.Rule{Tool: "Bash", Content: s, Behavior: permission.Allow, Source: "suggested"})
	}
	return rules
}

// MatchRule implements [tool.RuleMatcher]: an allow rule must match every
// simple command of the command, a deny or ask rule any of them (wrappers
// such as sudo or env looked through), so "Bash(git log:*)" never allows
// "git log; rm -rf ~" and "Bash(rm:*)" denies "echo; sudo rm x".
func (b *Bash) MatchRule(ctx context.Context, rule permission.Rule, input json.RawMessage) bool {
	all, any := shell.MatchRule(rule.Content, bashCommand(input))
	if rule.Behavior == permission.Allow {
		return all
	}
	return any
}

// Suggestions implements [tool.Suggester]: the allow rules that would let
// the command run from the project root (one per simple command that is not
// read-only: "tool subcommand:*" or the exact command), none when rules
// cannot let it through.
func (b *Bash) Suggestions(ctx context.Context, input json.RawMessage) []permission.Rule {
	// Where the call runs: the state's tracked working directory.
	return bashRules(b.analyze(bashCommand(input), tool.StateFromContext(ctx), nil).Suggestions())
}

// Call implements [tool.Tool]: it runs the command and streams its output.
func (b *Bash) Call(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	// run_in_background is never an unknown parameter: without
	// Options.Background the call is refused, saying why.
	return noted(bashBackgroundSchema, call.Input, b.run(ctx, call))
}

func (b *Bash) run(ctx context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		var in bashInput
		if err := tool.DecodeInput(call.Input, &in); err != nil {
			yield(tool.Errorf("%v", err), nil)
			return
		}
		timeout := in.Timeout
		if timeout <= 0 {
			timeout = DefaultBashTimeout
		}
		timeout = min(timeout, MaxBashTimeout)
		st := call.State
		var shells *agentShells
		if in.RunInBackground {
			if msg := b.backgroundRefused(st); msg != "" {
				yield(tool.Errorf("%s", msg), nil)
				return
			}
			shells = shellsOf(st)
		}
		j, judged := call.Judgment.(*BashJudgment)
		if judged && (j.b != b || j.command != in.Command) {
			// Not this call's judgment: judge it here.
			judged = false
		}
		var dir, gone string
		if judged {
			dir, gone = j.cwd, j.gone // where it was judged to run
		} else {
			dir, gone = b.runDir(st)
		}
		var notes []string
		if gone != "" {
			notes = append(notes, fmt.Sprintf("The working directory %s no longer exists; the command ran in %s.", gone, dir))
			if st != nil {
				DataOf(st).SetCwd("")
			}
		}
		if !isDir(dir) {
			// Judged to run in a directory that vanished since: it runs
			// nowhere else.
			if st != nil {
				DataOf(st).SetCwd("")
			}
			yield(tool.Errorf("Command not run: its working directory %s was removed after the command was checked. The shell's working directory is now %s; send the command again.", dir, b.c.root), nil)
			return
		}
		maxOut := b.c.opts.MaxOutput
		if maxOut <= 0 {
			maxOut = 30000
		}
		var pc *permission.Context
		if st != nil {
			pc = st.Permissions()
		}
		if !judged {
			j, _ = b.judgeIn(in.Command, call.Input, dir, gone, pc)
		}
		analysedAllow := j.a != nil && j.a.Verdict == shell.Allow
		popts := &proc.Options{
			Dir: dir, Env: b.env(analysedAllow), Shell: b.c.opts.Shell, TrackDir: true,
			Timeout:   time.Duration(timeout) * time.Millisecond,
			HeadLimit: maxOut * 2 / 3, TailLimit: maxOut - maxOut*2/3,
		}
		var sbStatus *sandbox.Status
		var sbRun *sandbox.Run
		background := false // the sandbox run then belongs to the background shell
		excludedBy, excluded := j.excludedBy, j.excluded
		sandboxed := b.c.opts.Sandbox != nil && !excluded
		if sandboxed {
			run, err := b.c.opts.Sandbox.NewRun(b.c.workingDirs(pc))
			if err != nil {
				yield(tool.Errorf("Command not run: %v", err), nil)
				return
			}
			defer func() {
				if !background {
					run.Close()
				}
			}()
			sbRun = run
			popts.TempDir = run.TempDir()
			popts.Start = sandboxStart(run, &sbStatus)
		}
		if shells != nil {
			sh, err := b.startBackground(shells, in, j, popts, sbRun, excludedBy, &sbStatus)
			if err != nil {
				yield(tool.Errorf("Command not run: %v.", err), nil)
				return
			}
			background = true
			text := "Command running in background with ID: " + sh.id
			for _, n := range notes {
				text += "\n" + n
			}
			yield(&tool.Chunk{Content: []tool.Block{tool.TextBlock(text)},
				Metadata: map[string]any{"background": true, "bash_id": sh.id, "cwd": dir}}, nil)
			return
		}
		runCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		stopped := false
		started := time.Now()
		res, err := proc.Run(runCtx, in.Command, popts, func(s string) {
			if !stopped && !yield(tool.Text(s), nil) {
				stopped = true
				cancel()
			}
		})
		var blocked []sandbox.Blocked
		var unchecked error
		if sbRun != nil {
			// Nothing of the command runs any more: what it left in the
			// protected class is moved aside, however the call ends.
			blocked, unchecked = sbRun.Quarantine(ownWrites.keep(started))
		}
		if stopped {
			return
		}
		if err != nil {
			yield(tool.Errorf("Command could not be started: %v", err), nil)
			return
		}
		var tail strings.Builder
		if res.Dropped > 0 {
			fmt.Fprintf(&tail, "\n... [%d bytes of output dropped] ...\n", res.Dropped)
		}
		tail.WriteString(res.Tail)
		meta := map[string]any{"exit_code": res.ExitCode, "duration_ms": res.Duration.Milliseconds(), "output_bytes": res.Total}
		if res.Dropped > 0 {
			meta["dropped_bytes"] = res.Dropped
		}
		if st != nil && res.Dir != "" && res.Dir != dir {
			if d := b.c.inWorkingDir(res.Dir, st.Permissions()); d != "" {
				DataOf(st).SetCwd(res.Dir)
			} else {
				DataOf(st).SetCwd("")
				notes = append(notes, fmt.Sprintf("Shell cwd was reset to %s: the command left the working directories (it ended in %s).", b.c.root, res.Dir))
			}
		}
		meta["cwd"] = b.cwd(st)
		if b.c.opts.Sandbox != nil {
			m := sandboxMeta(sbStatus, excludedBy)
			if len(blocked) > 0 {
				m["blocked"] = blocked
				notes = append(notes, blockedNote(blocked))
			}
			if unchecked != nil {
				m["unchecked"] = unchecked.Error()
				notes = append(notes, "Warning: "+strings.TrimPrefix(unchecked.Error(), "sandbox: ")+". Tell the user: files there that git, editors or agents run later were not checked.")
			}
			meta["sandbox"] = m
		}
		status := tool.StatusRunning
		switch {
		case res.Canceled:
			// The toolkit reports the interruption.
		case res.TimedOut:
			status = tool.StatusError
			meta["timed_out"] = true
			fmt.Fprintf(&tail, "\nCommand timed out after %dms: %s", timeout, in.Command)
		case res.ExitCode != 0:
			status = tool.StatusError
			if res.Signal != "" {
				fmt.Fprintf(&tail, "\nCommand was killed by a signal (%s).", res.Signal)
			} else {
				fmt.Fprintf(&tail, "\nCommand exited with code %d.", res.ExitCode)
			}
			if sandboxed {
				if n := sandboxNote(res.Head + res.Tail); n != "" {
					notes = append(notes, n)
				}
			}
		case res.Total == 0:
			tail.WriteString("(no output)")
		}
		for _, n := range notes {
			tail.WriteString("\n" + n)
		}
		yield(&tool.Chunk{Content: []tool.Block{tool.TextBlock(tail.String())}, Status: status, Metadata: meta}, nil)
	}
}
