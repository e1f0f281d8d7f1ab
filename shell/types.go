package shell

import (
	"github.com/toolscope/toolscope/internal/pathpolicy"
	"github.com/toolscope/toolscope/shell/internal/outside"
	"mvdan.cc/sh/v3/syntax"
)

// Verdict is the analyser's answer for a command or one simple command,
// ordered by severity: a larger Verdict is more restrictive.
type Verdict int

const (
	// Allow means the command may run without asking.
	Allow Verdict = iota
	// Passthrough means the analyser has no objection of its own; the
	// permission engine decides (rules, mode, or asking the user).
	Passthrough
	// Ask means a human must approve the command.
	Ask
)

// String returns "allow", "passthrough" or "ask".
func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Passthrough:
		return "passthrough"
	case Ask:
		return "ask"
	}
	return "ask"
}

// Layer names reported in [Analysis.Layer] and [Command.Layer].
const (
	LayerEmpty       = "empty"
	LayerReject      = "reject"
	LayerParse       = "parse"
	LayerLimit       = "limit"
	LayerInjection   = "injection"
	LayerDangerous   = "dangerous-pattern"
	LayerRemoval     = "removal"
	LayerSed         = "sed"
	LayerSensitive   = "sensitive-path"
	LayerReadOnly    = "read-only"
	LayerAcceptEdits = "accept-edits"
	LayerPassthrough = "passthrough"
)

// Options configures [Analyze]. The zero value (or nil) is valid.
type Options struct {
	// Mode is the permission mode name: "default", "accept_edits", "explore",
	// "bypass" or "dont_ask". Only "accept_edits" and "dont_ask" enable the
	// filesystem auto-allow layer.
	Mode string
	// Cwd is the absolute directory the command runs in; relative paths
	// resolve against it. "" means the process working directory.
	Cwd string
	// WorkingDirs are the absolute directories the agent works in:
	// read-only commands may read inside them (and the harmless system
	// paths) without asking, and in accept_edits mode edits inside them are
	// allowed. nil means Cwd alone; an empty non-nil slice means none.
	WorkingDirs []string
	// Home is used for ~ expansion; "" means os.UserHomeDir().
	Home string
	// DangerousFiles are file names (or name suffixes such as ".ssh/config")
	// that no command may write. nil means [DefaultDangerousFiles]; a non-nil
	// empty slice means none.
	DangerousFiles []string
	// DangerousDirs are directory names that no command may write into.
	// nil means [DefaultDangerousDirs].
	DangerousDirs []string
	// ProtectedPaths are absolute paths no command may write, each with
	// everything below it (toolscope's own state, configuration and run
	// files); see pathpolicy.Options.ProtectedPaths.
	ProtectedPaths []string
	// PathDirs are the directories on the command's search path: writing
	// into one asks, as it writes a program the next command may run by
	// name. nil means the absolute entries of the process's $PATH.
	PathDirs []string
	// MaxCommands caps the number of simple commands; 0 means 50. Above the
	// cap the answer is Ask, never "skip the checks".
	MaxCommands int
	// MaxLength caps the command length in bytes; 0 means 16384.
	MaxLength int
	// HardenedEnv promises that the command will run with the environment
	// [HardenEnv] returns, or, when the analysis allows it, the one
	// [HardenEnvReadOnly] returns: they stop project configuration from
	// making read-only tools run code (git's fsmonitor hook and pagers,
	// npm's logs; with the second also git hooks, pip's config files and
	// Go's toolchain switching) and empty CDPATH. Without it, git, go, pip
	// and npm are never read-only, and a cd to a bare relative name makes
	// the working directory unknown.
	HardenedEnv bool
	// KeepParse keeps the command's parse in the Analysis, for
	// [Analysis.MatchRule] and [Analysis.MatchAnyRule]: a caller that
	// matches rules against the command it analysed parses it once.
	KeepParse bool

	// access takes the analyser's looks outside the command line (nil:
	// the real system); the tests install one that records or refuses.
	access outside.Access
}

// DefaultDangerousFiles are the file names no shell command may write
// (shell start-up files, git and package-manager configuration,
// credentials, hook managers' and CI configuration): the names and
// suffixes of the protected class of package pathpolicy. Entries
// containing a slash match as a path suffix; ".env" also covers every
// ".env.*" variant.
var DefaultDangerousFiles = pathpolicy.DefaultProtectedFiles

// DefaultDangerousDirs are directories (names, or suffixes such as
// ".github/workflows") no shell command may write into, at any depth.
var DefaultDangerousDirs = pathpolicy.DefaultProtectedDirs

// Analysis is the result of [Analyze].
type Analysis struct {
	Verdict Verdict
	// ReadOnly is true iff every simple command is read-only and nothing
	// (injection, parse failure, sensitive path, ...) objected.
	ReadOnly bool
	// BypassImmune reports that the Ask cannot be overridden by allow rules.
	BypassImmune bool
	// Message is meant for the model or the user.
	Message string
	// Reason names the deciding simple command and layer.
	Reason string
	// Layer is the deciding layer (one of the Layer constants).
	Layer    string
	Commands []Command

	cfg   *config
	parse *parseInfo // with Options.KeepParse
}

// parseInfo is an analysed command's text and parse, kept for rule
// matching (Analysis.MatchRule): the command is parsed once.
type parseInfo struct {
	src  string
	file *syntax.File // nil when it was refused unparsed
	rule ruleWalk     // its leaves for rule matching, walked once
}

// Command is the analysis of one simple command.
type Command struct {
	Text         string   // source text of the simple command
	Argv         []string // normalised argv (unquoted, brace-expanded); wrappers not removed
	Verdict      Verdict
	ReadOnly     bool
	BypassImmune bool
	Layer        string
	Reason       string

	message string
	leaf    *leaf
}
