package tool

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/toolscope/toolscope/permission"
)

// Tool is something an agent can call. Implementations describe themselves with
// [Info], judge a call with CheckPermissions, and run it with Call.
//
// A tool may also implement [ReadOnlyChecker], [RuleMatcher], [Suggester] and
// [TestedSchema]; without them the documented defaults apply.
type Tool interface {
	// Info describes the tool. It must return the same value on every call.
	Info() Info
	// CheckPermissions gives the tool's own opinion of a call: Allow, Deny, Ask
	// (with BypassImmune for dangerous inputs) or Passthrough. The input has
	// already been validated against the schema. The agent's state, when there
	// is one, is available through [StateFromContext].
	CheckPermissions(ctx context.Context, input json.RawMessage, pc *permission.Context) (permission.Decision, error)
	// Call runs the tool, yielding its output as chunks while it works. A failure
	// the model should see is a chunk with [StatusError]; a non-nil error means
	// the infrastructure broke and ends the call. Call must stop soon after ctx
	// is cancelled. It is never invoked for External tools.
	Call(ctx context.Context, call *Call) iter.Seq2[*Chunk, error]
}

// TestedSchema is implemented by a tool whose input schema never changes
// and compiles, as its package's tests check (tooltest.Run does: listing
// the schemas of a [Toolkit] of the tool compiles them). A Toolkit
// compiles such a schema at the tool's first call or listing instead of
// when the tool is added, so that a process that calls one tool of many
// (the CLI's check) compiles one schema. Were it not to compile, the
// tool's calls would fail with the error [Toolkit.Add] returns for another
// tool, and listings would leave the tool out.
type TestedSchema interface {
	Tool
	// SchemaTested marks the tool; it does nothing.
	SchemaTested()
}

// Info describes a tool.
type Info struct {
	// Name is what the model calls the tool by: letters, digits, '_' and '-'.
	Name string
	// Title is a name for people ("Run a shell command"); optional.
	Title string
	// Description tells the model what the tool does and when to use it.
	Description string
	// InputSchema is a JSON Schema of type object for the call's input.
	InputSchema json.RawMessage
	// ConcurrencySafe tools may run in parallel with other such calls.
	ConcurrencySafe bool
	// ReadOnly tools never change anything; the permission engine lets every
	// call of theirs through (unless a rule says otherwise).
	ReadOnly bool
	// External tools are run by the caller, not by the toolkit (see
	// [StatusSubmitted]).
	External bool
	// StateInjected tools receive the agent's [State] while they run, in
	// [Call.State] and through [StateFromContext]; the others see neither
	// (every tool's CheckPermissions gets it through the context).
	StateInjected bool
	// Annotations are hints about the tool's behaviour, as MCP defines
	// them; nil means none. They inform hosts and models; the permission
	// engine does not trust them (ReadOnly above is what it uses).
	Annotations *Annotations
	// OutputSchema is a JSON Schema of type object for the result's
	// structured content ([Result.StructuredContent]); nil means none.
	OutputSchema json.RawMessage
	// RuleNames are further tool names whose rules apply to this tool, as
	// Claude Code applies Read rules to Grep and Glob and Edit rules to
	// Write. The permission engine looks up deny, ask and allow rules filed
	// under Name and under each of these, and gives each rule, as written,
	// to the tool's [RuleMatcher].
	RuleNames []string
}

// Annotations are MCP's tool annotations. A nil hint is unknown.
type Annotations struct {
	ReadOnlyHint    *bool `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool `json:"openWorldHint,omitempty"`
}

// ReadOnlyChecker is implemented by tools whose read-only-ness depends on the
// input (a Bash command may or may not write). Without it, Info.ReadOnly is used.
//
// ctx carries the agent's state, when there is one ([StateFromContext]), so
// that the answer can depend on where the call runs (the shell's working
// directory, the permission context's working directories).
type ReadOnlyChecker interface {
	CheckReadOnly(ctx context.Context, input json.RawMessage) bool
}

// RuleMatcher is implemented by tools that understand rule content, such as
// "git log:*" for Bash or "src/**" for Read. The rule's Behavior tells how
// strictly to match: an allow rule must cover all of the input, a deny or ask
// rule any part of it. Without a RuleMatcher (on the tool, or on the tool a
// [Wrapper] wraps) a rule with content cannot be evaluated and fails closed:
// an allow rule with content never matches, a deny or ask rule with content
// always does.
type RuleMatcher interface {
	MatchRule(ctx context.Context, rule permission.Rule, input json.RawMessage) bool
}

// InputRuleNamer is implemented by tools one of whose inputs falls under
// further rule names besides [Info.RuleNames]: ReadMcpResource files a
// read of server fs's resources under mcp__fs's rules (a rule naming
// "mcp__fs" or "mcp__fs__*" applies to it), which depends on the input's
// server. The names are looked up as Info.RuleNames are; a rule filed under
// one of them is given, as written, to the tool's [RuleMatcher].
type InputRuleNamer interface {
	RuleNamesFor(input json.RawMessage) []string
}

// Suggester is implemented by tools that can propose rules allowing calls like
// this one. Without it the suggestion is an allow rule for the whole tool.
type Suggester interface {
	Suggestions(ctx context.Context, input json.RawMessage) []permission.Rule
}

// Judge is implemented by a tool that must make something of an input
// before it can answer any permission question about it: Bash parses and
// analyses the command. The Toolkit calls Judge once per call and asks the
// [Judgment] every question (the read-only fast path, the tool's own
// check, each rule, the suggestions) instead of the tool's methods; then it
// hands the Judgment to Call in [Call.Judgment], so that what runs is what
// was judged (the command, where it runs, the environment the decision
// assumed). An input changed after the decision (a permission hook's
// rewrite) is judged anew.
//
// ctx carries the agent's state ([StateFromContext]). An error means the
// judging itself broke: the call does not run. The Toolkit uses Judge only
// when the registered tool implements it itself, not through a [Wrapper]
// (a wrapper's own CheckPermissions must not be passed by).
type Judge interface {
	Judge(ctx context.Context, input json.RawMessage) (Judgment, error)
}

// Judgment is a tool's view of one input, made once ([Judge]). Its methods
// answer the questions of [permission.Subject] about that input.
type Judgment interface {
	ReadOnly(ctx context.Context) bool
	CheckPermissions(ctx context.Context, pc *permission.Context) (permission.Decision, error)
	MatchRule(ctx context.Context, rule permission.Rule) bool
	Suggestions(ctx context.Context) []permission.Rule
}

// Call is one invocation of a tool, as the model asked for it.
type Call struct {
	// ID is the model's id for the call; results carry it back.
	ID string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Input is the JSON object of arguments.
	Input json.RawMessage `json:"input"`
	// State is the agent's state. The toolkit reads permissions and active
	// groups from it, and passes it on only to StateInjected tools. Nil means a
	// fresh state in Default mode, closed (see [State.Close]): nothing outlives
	// the call in it.
	State *State `json:"-"`
	// Approved means the user already allowed this call: the toolkit does not
	// consult the permission engine again (it still validates the input).
	Approved bool `json:"approved,omitempty"`
	// Judgment is what the tool's [Judge] made of Input when the Toolkit
	// decided to run the call; the Toolkit sets it (whatever a caller put
	// there) for tools that implement Judge, and a tool runs what it
	// describes. Nil when a tool is called directly, not through a Toolkit.
	Judgment Judgment `json:"-"`
}

type stateKey struct{}

// WithState returns a context carrying s, as the toolkit passes it to
// CheckPermissions and Call.
func WithState(ctx context.Context, s *State) context.Context {
	return context.WithValue(ctx, stateKey{}, s)
}

// StateFromContext returns the agent state the toolkit put in ctx, or nil.
func StateFromContext(ctx context.Context) *State {
	s, _ := ctx.Value(stateKey{}).(*State)
	return s
}
