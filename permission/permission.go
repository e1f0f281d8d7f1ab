package permission

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Mode is the permission mode an agent runs in. Its text form is the lower-case
// name ("default", "accept_edits", "explore", "bypass", "dont_ask").
type Mode string

// The permission modes.
const (
	// Default asks for everything that is not read-only or allowed by a rule.
	Default Mode = "default"
	// AcceptEdits is Default, plus tools may allow edits inside the working
	// directories on their own (Write, Edit, filesystem shell commands).
	AcceptEdits Mode = "accept_edits"
	// Explore allows only read-only calls; everything else is denied.
	Explore Mode = "explore"
	// Bypass allows everything that no deny or ask rule stops, even the asks
	// a tool marks as bypass-immune.
	Bypass Mode = "bypass"
	// DontAsk is for agents without a human: every ask becomes a deny, while
	// AcceptEdits-style auto-allows still apply.
	DontAsk Mode = "dont_ask"
)

// Modes lists every mode, in documentation order.
var Modes = []Mode{Default, AcceptEdits, Explore, Bypass, DontAsk}

// ParseMode returns the mode named s, or an error listing the valid names.
func ParseMode(s string) (Mode, error) {
	m := Mode(s)
	if slices.Contains(Modes, m) {
		return m, nil
	}
	return "", fmt.Errorf("unknown permission mode %q (want one of default, accept_edits, explore, bypass, dont_ask)", s)
}

// UnmarshalText implements [encoding.TextUnmarshaler]; it accepts only valid names.
// An empty text means [Default].
func (m *Mode) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*m = Default
		return nil
	}
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Behavior is what a decision or a rule says about a call. Its text form is the
// lower-case name ("allow", "deny", "ask", "passthrough").
type Behavior string

// The behaviors.
const (
	Allow Behavior = "allow"
	Deny  Behavior = "deny"
	Ask   Behavior = "ask"
	// Passthrough is only a tool's answer: "no opinion, let the engine go on".
	Passthrough Behavior = "passthrough"
)

// ParseBehavior returns the behavior named s.
func ParseBehavior(s string) (Behavior, error) {
	switch b := Behavior(s); b {
	case Allow, Deny, Ask, Passthrough:
		return b, nil
	}
	return "", fmt.Errorf("unknown permission behavior %q (want allow, deny, ask or passthrough)", s)
}

// UnmarshalText implements [encoding.TextUnmarshaler]; it accepts only valid names.
func (b *Behavior) UnmarshalText(text []byte) error {
	v, err := ParseBehavior(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// Decision is the answer for one call.
type Decision struct {
	Behavior Behavior `json:"behavior"`
	// Message is addressed to the model or the user ("Permission required for Bash").
	Message string `json:"message"`
	// Reason names the rule, layer or sub-command that decided.
	Reason string `json:"reason,omitempty"`
	// UpdatedInput, when set, is the input the call should run with.
	UpdatedInput json.RawMessage `json:"updated_input,omitempty"`
	// Rules are the user's rules that decided: the deny, ask or allow rule
	// that matched, or every allow rule a compound shell command used.
	Rules []Rule `json:"rules,omitempty"`
	// Suggestions are rules that, if the user adds them, would allow this call
	// (and calls like it) next time.
	Suggestions []Rule `json:"suggestions,omitempty"`
	// BypassImmune marks an Ask that allow rules cannot turn into Allow: a
	// dangerous command, an edit of a sensitive file. Only meaningful for Ask.
	BypassImmune bool `json:"bypass_immune,omitempty"`
	// At is when the decision was made (the Toolkit stamps the decision
	// it carries to a call; the user's, when the user answered). Zero
	// for a decision no Toolkit made.
	At time.Time `json:"at,omitzero"`
}

// Context is the permission state of one agent: its mode, the directories it may
// edit, and the user's rules. It is plain data and serialises to JSON; it lives
// in the agent's state so that rules the user adds survive a restart.
type Context struct {
	Mode Mode `json:"mode,omitempty"`
	// WorkingDirs are the absolute directories tools may treat as the project:
	// in AcceptEdits and DontAsk mode edits inside them are allowed.
	WorkingDirs []string `json:"working_dirs,omitempty"`
	Allow       []Rule   `json:"allow,omitempty"`
	Deny        []Rule   `json:"deny,omitempty"`
	Ask         []Rule   `json:"ask,omitempty"`
}

// AddRule appends r to the list for its behavior, unless the list already
// holds a rule with the same Tool, Content and Behavior (whatever its Source):
// answering "always" twice, or loading the same rule from two places, keeps
// one copy. A Passthrough rule is ignored. The lists are copied, so a Context
// shared by value with a running check is never written under its feet.
func (c *Context) AddRule(r Rule) {
	var list *[]Rule
	switch r.Behavior {
	case Allow:
		list = &c.Allow
	case Deny:
		list = &c.Deny
	case Ask:
		list = &c.Ask
	default:
		return
	}
	// The list gives the behavior: a hand-made list may hold rules without one.
	if slices.ContainsFunc(*list, func(x Rule) bool { return x.Tool == r.Tool && x.Content == r.Content }) {
		return
	}
	*list = append(slices.Clip(*list), r)
}

// Clone returns a deep copy of c.
func (c *Context) Clone() *Context {
	if c == nil {
		return &Context{Mode: Default}
	}
	return &Context{
		Mode:        c.Mode,
		WorkingDirs: slices.Clone(c.WorkingDirs),
		Allow:       slices.Clone(c.Allow),
		Deny:        slices.Clone(c.Deny),
		Ask:         slices.Clone(c.Ask),
	}
}
