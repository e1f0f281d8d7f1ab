package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/toolscope/toolscope/permission"
)

// BasicGroup is the name of the group that is always active.
const BasicGroup = "basic"

// Group is a named set of tools that an agent can switch on and off with the
// reset_tools meta tool, so the model is not shown every tool at once.
type Group struct {
	Name string
	// Description tells the model what the group is for (required).
	Description string
	// Instructions are shown to the model when the group is switched on.
	Instructions string
	Tools        []Tool
	Sources      []Source
	// Skills are the group's skills: in the system prompt (see
	// [Toolkit.SkillPrompt]) and readable with the Skill tool while the
	// group is active.
	Skills []SkillSource
}

// ToolkitOptions configures a [Toolkit]. The zero value is an empty toolkit.
type ToolkitOptions struct {
	// Tools, Sources and Skills make up the "basic" group, which is always
	// active.
	Tools   []Tool
	Sources []Source
	Skills  []SkillSource
	// Groups are further groups, inactive until switched on.
	Groups []Group
	// Logger receives warnings (a failing source, a tool that panicked).
	// Nil means slog.Default().
	Logger *slog.Logger
	// Middleware wraps every call, the first outermost (see [Middleware]).
	Middleware []Middleware
	// PermissionHook, when set, decides every call (Call, Stream, Check): it
	// may call engine for the permission engine's decision and return it,
	// change it, or decide without it (AgentScope's on_check_permission).
	// A deny rule still wins over the hook's Allow. A Decision with an
	// UpdatedInput rewrites the call, and the rewritten input is judged
	// again by the engine: its Deny and its Ask win over the hook's Allow.
	PermissionHook func(ctx context.Context, call *Call, engine func() (permission.Decision, error)) (permission.Decision, error)
	// Asker, when set, answers calls that need approval at once (a
	// terminal, MCP elicitation, a web UI) instead of their coming back
	// StatusAsking.
	Asker Asker
	// ToolMiddleware wraps the calls of the named tool, inside Middleware.
	ToolMiddleware map[string][]Middleware
}

// Toolkit holds an agent's tools and runs calls to them: it finds the tool,
// checks the input against the tool's schema, asks the permission engine, and
// runs the tool, turning every failure into a result the model can act on.
//
// A Toolkit is safe for concurrent use. It keeps no per-agent data: that is in
// the [State] each [Call] carries.
type Toolkit struct {
	mu     sync.RWMutex
	groups []*groupEntry // groups[0] is basic
	byName map[string]*entry
	logger *slog.Logger
	// schemas caches the compiled schemas of dynamic tools by their JSON,
	// at most maxCachedSchemas of them.
	schemas     sync.Map
	schemaCount atomic.Int64
	meta        *entry
	viewer      *entry // the Skill tool, when a group has skill sources

	seenMu sync.Mutex
	seen   map[string]string // dynamic tool name -> the group whose source listed it
	mw     []Middleware
	toolMW map[string][]Middleware
	hook   func(ctx context.Context, call *Call, engine func() (permission.Decision, error)) (permission.Decision, error)
	asker  Asker

	listMu sync.Mutex
	lists  map[Source]sourceList // listings of ChangeReporter sources

	// What ListVersion follows (set at construction: the groups, and so
	// the sources, never change after). unversioned is set when a source
	// or a skill source is no ChangeReporter.
	reporters   []ChangeReporter
	unversioned bool
	verMu       sync.Mutex
	listVer     uint64   // moves with every change ListVersion sees
	repVers     []uint64 // the reporters' versions at the last look
}

// Asker asks the user about a call that needs approval. approve runs the
// call; rules are added to the call's State (the user's "always allow");
// an error leaves the call not run, with an error result.
type Asker interface {
	Ask(ctx context.Context, call *Call, d permission.Decision) (approve bool, rules []permission.Rule, err error)
}

// An ApprovalAsker is an [Asker] whose user can say more than yes or no
// (toolscope console): approve the call with an input of their own, or
// refuse it with a word to the model. An edited input (non-empty and not
// the call's) is not run on the strength of the answer: the call with it
// goes through the Toolkit again, approved (so its PreToolUse hooks run,
// its deny rules still refuse it and the tool's schema checks it), and
// that is what runs. The Toolkit uses AskApproval instead of Ask.
type ApprovalAsker interface {
	Asker
	AskApproval(ctx context.Context, call *Call, d permission.Decision) (Approval, error)
}

// Approval is a user's answer to an [ApprovalAsker].
type Approval struct {
	Approve bool
	// Input, with Approve, is the input the user approved instead.
	Input json.RawMessage
	// Rules, with Approve, are added to the call's State ("always").
	Rules []permission.Rule
	// Message, with a refusal, is said to the model after the refusal.
	Message string
}

// ErrNotAsked is returned (possibly wrapped) by an [Asker] that cannot ask
// now (no terminal, a client without elicitation): the call then comes
// back [StatusAsking], as without an Asker.
var ErrNotAsked = errors.New("the user cannot be asked now")

type groupEntry struct {
	Group
	tools []*entry
}

type entry struct {
	tool   Tool
	info   Info
	schema *compiledSchema // nil when lazy is set
	lazy   func() (*compiledSchema, error)
	group  string
}

// compiled is the entry's compiled input schema: compiled when the tool
// was added or, for a [TestedSchema] tool, at its first use.
func (e *entry) compiled() (*compiledSchema, error) {
	if e.lazy != nil {
		return e.lazy()
	}
	return e.schema, nil
}

// validName reports whether s is a valid tool or group name: 1 to 128
// letters, digits, '_' and '-' (what every provider accepts).
func validName(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// NewToolkit returns a toolkit with the tools and groups of opts. It reports a
// tool with an invalid name or schema, two tools with one name, a group named
// "basic", two groups with one name, or a group without a description.
func NewToolkit(opts *ToolkitOptions) (*Toolkit, error) {
	if opts == nil {
		opts = &ToolkitOptions{}
	}
	tk := &Toolkit{byName: map[string]*entry{}, logger: opts.Logger, mw: slices.Clone(opts.Middleware), hook: opts.PermissionHook, asker: opts.Asker}
	if len(opts.ToolMiddleware) > 0 {
		tk.toolMW = make(map[string][]Middleware, len(opts.ToolMiddleware))
		for name, mws := range opts.ToolMiddleware {
			tk.toolMW[name] = slices.Clone(mws)
		}
	}
	if tk.logger == nil {
		tk.logger = slog.Default()
	}
	tk.groups = append(tk.groups, &groupEntry{Group: Group{Name: BasicGroup, Sources: opts.Sources, Skills: opts.Skills}})
	for _, g := range opts.Groups {
		switch {
		case g.Name == BasicGroup:
			return nil, fmt.Errorf("toolkit: the group name %q is reserved for the always-active group", BasicGroup)
		case !validName(g.Name):
			return nil, fmt.Errorf("toolkit: invalid group name %q (use letters, digits, '_' and '-')", g.Name)
		case g.Description == "":
			return nil, fmt.Errorf("toolkit: group %q needs a description (the model reads it to decide whether to switch the group on)", g.Name)
		case tk.group(g.Name) != nil:
			return nil, fmt.Errorf("toolkit: two groups are named %q", g.Name)
		}
		tk.groups = append(tk.groups, &groupEntry{Group: Group{Name: g.Name, Description: g.Description, Instructions: g.Instructions, Sources: g.Sources, Skills: g.Skills}})
	}
	if err := tk.Add(BasicGroup, opts.Tools...); err != nil {
		return nil, err
	}
	for _, g := range opts.Groups {
		if err := tk.Add(g.Name, g.Tools...); err != nil {
			return nil, err
		}
	}
	if len(tk.groups) > 1 {
		m := &resetTools{tk: tk}
		s, err := compileSchema(m.Info().InputSchema)
		if err != nil {
			return nil, err
		}
		tk.meta = &entry{tool: m, info: m.Info(), schema: s, group: BasicGroup}
	}
	for _, g := range tk.groups {
		for _, src := range g.Sources {
			tk.follow(src)
		}
		for _, src := range g.Skills {
			tk.follow(src)
		}
	}
	tk.repVers = make([]uint64, len(tk.reporters))
	for _, g := range tk.groups {
		if len(g.Skills) > 0 {
			v := &skillViewer{tk: tk}
			s, err := compileSchema(v.Info().InputSchema)
			if err != nil {
				return nil, err
			}
			tk.viewer = &entry{tool: v, info: v.Info(), schema: s, group: BasicGroup}
			break
		}
	}
	return tk, nil
}

func (tk *Toolkit) group(name string) *groupEntry {
	for _, g := range tk.groups {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// Add registers tools in the named group. A name already taken by another tool
// is an error: tools are never silently replaced.
func (tk *Toolkit) Add(group string, tools ...Tool) error {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	g := tk.group(group)
	if g == nil {
		return fmt.Errorf("toolkit: no group named %q", group)
	}
	var added []*entry
	for _, t := range tools {
		e, err := newEntry(t, group)
		if err != nil {
			return err
		}
		if _, dup := tk.byName[e.info.Name]; dup || e.info.Name == resetToolsName || slices.ContainsFunc(added, func(a *entry) bool { return a.info.Name == e.info.Name }) {
			return fmt.Errorf("toolkit: a tool named %q is already registered", e.info.Name)
		}
		added = append(added, e)
	}
	for _, e := range added {
		tk.byName[e.info.Name] = e
		g.tools = append(g.tools, e)
	}
	tk.changed()
	return nil
}

func newEntry(t Tool, group string) (*entry, error) {
	if t == nil {
		return nil, errors.New("toolkit: nil tool")
	}
	info := t.Info()
	if !validName(info.Name) {
		return nil, fmt.Errorf("toolkit: invalid tool name %q (use 1 to 128 letters, digits, '_' and '-')", info.Name)
	}
	if err := checkOutputSchema(info.OutputSchema); err != nil {
		return nil, fmt.Errorf("toolkit: tool %q: %w", info.Name, err)
	}
	if _, ok := t.(TestedSchema); ok {
		raw := info.InputSchema
		return &entry{tool: t, info: info, group: group, lazy: sync.OnceValues(func() (*compiledSchema, error) {
			s, err := compileSchema(raw)
			if err != nil {
				return nil, fmt.Errorf("toolkit: tool %q: %w", info.Name, err)
			}
			return s, nil
		})}, nil
	}
	s, err := compileSchema(info.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("toolkit: tool %q: %w", info.Name, err)
	}
	return &entry{tool: t, info: info, schema: s, group: group}, nil
}

// Remove unregisters the named tools, from whatever group they are in.
func (tk *Toolkit) Remove(names ...string) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	for _, n := range names {
		e := tk.byName[n]
		if e == nil {
			continue
		}
		delete(tk.byName, n)
		g := tk.group(e.group)
		g.tools = slices.DeleteFunc(g.tools, func(x *entry) bool { return x == e })
		tk.changed()
	}
}

// Groups returns the groups other than basic, in order.
func (tk *Toolkit) Groups() []Group {
	tk.mu.RLock()
	defer tk.mu.RUnlock()
	var gs []Group
	for _, g := range tk.groups[1:] {
		gs = append(gs, Group{Name: g.Name, Description: g.Description, Instructions: g.Instructions})
	}
	return gs
}

// Wrapper is implemented by a tool that decorates another (adds logging,
// timeouts, renames): Unwrap returns the tool it wraps. The Toolkit looks
// through wrappers for the optional interfaces ([ReadOnlyChecker],
// [RuleMatcher], [Suggester]) the wrapper does not implement itself, so
// that wrapping a tool never turns off the rules written for it, as
// net/http.ResponseController looks through response writers.
type Wrapper interface {
	Unwrap() Tool
}

// maxUnwrap bounds a chain of wrappers (a cycle would never end).
const maxUnwrap = 64

// find returns the first tool along t's chain of wrappers that implements T.
func find[T any](t Tool) (T, bool) {
	for range maxUnwrap {
		if x, ok := t.(T); ok {
			return x, true
		}
		w, ok := t.(Wrapper)
		if !ok {
			break
		}
		if t = w.Unwrap(); t == nil {
			break
		}
	}
	var zero T
	return zero, false
}
