package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolscope/toolscope/permission"
)

// BasicGroup is the name of the group that is always active.
const BasicGroup = "basic"

// Source supplies tools that are only known at run time, such as the tools of
// an MCP server. The toolkit lists them on demand; a source that fails is
// logged and skipped, so one broken server never takes the agent down.
type Source interface {
	// Name identifies the source in logs and errors.
	Name() string
	// Tools lists the source's current tools.
	Tools(ctx context.Context) ([]Tool, error)
}

// ChangeReporter is implemented by a [Source] that knows when its list of
// tools changes (an MCP server's notifications/tools/list_changed):
// ListVersion changes whenever the list may have. The Toolkit then lists
// the source again only when the version moved, instead of at every turn.
type ChangeReporter interface {
	ListVersion() uint64
}

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
}

type sourceList struct {
	version uint64
	tools   []Tool
}

// listSource lists src, through the last listing when src reports that
// its list has not changed since (see ChangeReporter).
func (tk *Toolkit) listSource(ctx context.Context, src Source) ([]Tool, error) {
	cr, ok := src.(ChangeReporter)
	if !ok {
		return src.Tools(ctx)
	}
	v := cr.ListVersion()
	tk.listMu.Lock()
	l, ok := tk.lists[src]
	tk.listMu.Unlock()
	if ok && l.version == v {
		return l.tools, nil
	}
	tools, err := src.Tools(ctx)
	if err != nil {
		return nil, err
	}
	tk.listMu.Lock()
	if tk.lists == nil {
		tk.lists = map[Source]sourceList{}
	}
	tk.lists[src] = sourceList{v, tools}
	tk.listMu.Unlock()
	return tools, nil
}

// Asker asks the user about a call that needs approval. approve runs the
// call; rules are added to the call's State (the user's "always allow");
// an error leaves the call not run, with an error result.
type Asker interface {
	Ask(ctx context.Context, call *Call, d permission.Decision) (approve bool, rules []permission.Rule, err error)
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
	schema *compiledSchema
	group  string
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

// maxCachedSchemas bounds the compiled schemas a Toolkit keeps.
const maxCachedSchemas = 1024

// dynamicEntry wraps a tool from a source, caching its compiled schema.
func (tk *Toolkit) dynamicEntry(t Tool, group string) (*entry, error) {
	info := t.Info()
	if !validName(info.Name) {
		return nil, fmt.Errorf("invalid tool name %q", info.Name)
	}
	if err := checkOutputSchema(info.OutputSchema); err != nil {
		return nil, fmt.Errorf("tool %q: %w", info.Name, err)
	}
	key := string(info.InputSchema)
	if s, ok := tk.schemas.Load(key); ok {
		return &entry{tool: t, info: info, schema: s.(*compiledSchema), group: group}, nil
	}
	s, err := compileSchema(info.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", info.Name, err)
	}
	if tk.schemaCount.Add(1) > maxCachedSchemas {
		// Sources whose schemas keep changing: start over rather than grow.
		tk.schemas.Clear()
		tk.schemaCount.Store(1)
	}
	tk.schemas.Store(key, s)
	return &entry{tool: t, info: info, schema: s, group: group}, nil
}

// entries returns the tools of the named groups (basic is always included),
// in group order: the Skill tool (when skills are available) and the
// reset_tools meta tool first, then static tools, then each source's
// tools. A dynamic tool whose name is taken is dropped with a
// warning.
func (tk *Toolkit) entries(ctx context.Context, groups []string, all bool) []*entry {
	// The Skill tool (set once, at construction) is offered only when
	// skills are available with these groups.
	viewer := tk.viewer
	if viewer != nil {
		active := groups
		if all {
			active = nil
			for _, g := range tk.Groups() {
				active = append(active, g.Name)
			}
		}
		if len(tk.skills(ctx, active)) == 0 {
			viewer = nil
		}
	}
	tk.mu.RLock()
	gs := slices.Clone(tk.groups)
	meta := tk.meta
	var out []*entry
	seen := map[string]bool{}
	if viewer != nil {
		out = append(out, viewer)
		seen[viewer.info.Name] = true
	}
	if meta != nil {
		out = append(out, meta)
		seen[meta.info.Name] = true
	}
	var sources []struct {
		src   Source
		group string
	}
	for _, g := range gs {
		if !all && g.Name != BasicGroup && !slices.Contains(groups, g.Name) {
			continue
		}
		for _, e := range g.tools {
			out = append(out, e)
			seen[e.info.Name] = true
		}
		for _, s := range g.Sources {
			sources = append(sources, struct {
				src   Source
				group string
			}{s, g.Name})
		}
	}
	tk.mu.RUnlock()
	for _, s := range sources {
		tools, err := tk.listSource(ctx, s.src)
		if err != nil {
			tk.logger.Warn("toolkit: tool source failed; its tools are unavailable", "source", s.src.Name(), "err", err)
			continue
		}
		for _, t := range tools {
			e, err := tk.dynamicEntry(t, s.group)
			if err != nil {
				tk.logger.Warn("toolkit: skipping a tool of a source", "source", s.src.Name(), "err", err)
				continue
			}
			if seen[e.info.Name] {
				tk.logger.Warn("toolkit: skipping a tool whose name is taken", "source", s.src.Name(), "tool", e.info.Name)
				continue
			}
			seen[e.info.Name] = true
			out = append(out, e)
			tk.remember(e.info.Name, s.group)
		}
	}
	return out
}

// turn remembers, for one model turn, the tools each set of active groups
// had, so that a source is listed once per turn, not once per call.
type turn struct {
	tk    *Toolkit
	mu    sync.Mutex
	lists map[string][]*entry
}

type turnKey struct{}

// BeginTurn returns a context under which the toolkit sees one tool set:
// [Toolkit.Schemas], [Toolkit.Tools], [Toolkit.Check], [Toolkit.Call],
// [Toolkit.Stream] and the batch calls list each [Source] at most once per
// set of active groups, and all find the tools as that listing gave them.
// An agent begins a turn before it sends the schemas to the model and runs
// the calls of the model's answer under the same context, so that the calls
// find the tools the model was shown and an MCP server is asked for its
// list once, not once per call. A change a source reports is seen at the
// next turn. CallBatch and StreamBatch begin a turn themselves when ctx
// carries none.
func (tk *Toolkit) BeginTurn(ctx context.Context) context.Context {
	return context.WithValue(ctx, turnKey{}, &turn{tk: tk, lists: map[string][]*entry{}})
}

// turnEntries is entries(ctx, active, false), through the turn's memo when
// ctx carries one of this Toolkit's.
func (tk *Toolkit) turnEntries(ctx context.Context, active []string) []*entry {
	t, ok := ctx.Value(turnKey{}).(*turn)
	if !ok || t.tk != tk {
		return tk.entries(ctx, active, false)
	}
	key := strings.Join(active, "\x00")
	t.mu.Lock()
	defer t.mu.Unlock()
	if es, ok := t.lists[key]; ok {
		return es
	}
	es := tk.entries(ctx, active, false)
	t.lists[key] = es
	return es
}

// Tools returns the tools available with the given groups active (basic is
// always active).
func (tk *Toolkit) Tools(ctx context.Context, activeGroups []string) []Tool {
	var ts []Tool
	for _, e := range tk.turnEntries(ctx, activeGroups) {
		ts = append(ts, e.tool)
	}
	return ts
}

// lookup finds the tool a call names among the active groups. The string
// result is the error text for the model when there is none.
func (tk *Toolkit) lookup(ctx context.Context, name string, active []string) (*entry, string) {
	tk.mu.RLock()
	e := tk.byName[name]
	meta := tk.meta
	tk.mu.RUnlock()
	if meta != nil && name == meta.info.Name {
		return meta, ""
	}
	if e == nil {
		// Dynamic tools: only the sources of the active groups are asked
		// (each listing may be a round trip to an MCP server).
		for _, x := range tk.turnEntries(ctx, active) {
			if x.info.Name == name {
				e = x
				break
			}
		}
	}
	group := ""
	if e != nil {
		group = e.group
	} else if g, ok := tk.seenIn(name); ok && g != BasicGroup && !slices.Contains(active, g) {
		// A dynamic tool listed when its group was active: the group is
		// off now, and its sources are not asked while it is.
		group = g
	}
	if group != "" && group != BasicGroup && !slices.Contains(active, group) {
		return nil, fmt.Sprintf("ToolGroupInactiveError: The tool '%s' in group '%s' is currently inactive. You should first activate the group by calling the 'reset_tools' tool.", name, group)
	}
	if e == nil {
		return nil, fmt.Sprintf("ToolNotFoundError: The tool named '%s' doesn't exist.", name)
	}
	return e, ""
}

// maxSeenTools bounds the names of dynamic tools a Toolkit remembers.
const maxSeenTools = 4096

// remember notes that a source of group listed the tool name.
func (tk *Toolkit) remember(name, group string) {
	tk.seenMu.Lock()
	defer tk.seenMu.Unlock()
	if tk.seen == nil || len(tk.seen) >= maxSeenTools {
		tk.seen = map[string]string{}
	}
	tk.seen[name] = group
}

// seenIn returns the group whose source last listed the tool name.
func (tk *Toolkit) seenIn(name string) (string, bool) {
	tk.seenMu.Lock()
	defer tk.seenMu.Unlock()
	g, ok := tk.seen[name]
	return g, ok
}

// Schema is a tool as a model or an MCP client is told of it, in no
// provider's shape: the packages that speak a protocol put it in theirs
// (model/openai, model/anthropic, mcp).
type Schema struct {
	Name        string
	Title       string
	Description string
	// InputSchema is the tool's input schema, normalised: type object, with
	// properties (empty when the tool takes none), titles stripped.
	InputSchema json.RawMessage
	// OutputSchema is Info.OutputSchema; nil means none.
	OutputSchema json.RawMessage
	// Annotations are Info.Annotations, with ReadOnlyHint true for a
	// ReadOnly tool that gave no hint.
	Annotations Annotations
}

// Schemas returns the schemas of the tools available with the given groups
// active (basic always is), in the order the toolkit lists them: the
// reset_tools meta tool, static tools, then each source's tools. Under a
// context from [Toolkit.BeginTurn] they are the tools the turn's calls
// will find.
func (tk *Toolkit) Schemas(ctx context.Context, activeGroups []string) []Schema {
	es := tk.turnEntries(ctx, activeGroups)
	out := make([]Schema, 0, len(es))
	for _, e := range es {
		s := Schema{Name: e.info.Name, Title: e.info.Title, Description: e.info.Description,
			InputSchema: e.schema.json, OutputSchema: e.info.OutputSchema}
		if e.info.Annotations != nil {
			s.Annotations = *e.info.Annotations
		}
		if e.info.ReadOnly && s.Annotations.ReadOnlyHint == nil {
			t := true
			s.Annotations.ReadOnlyHint = &t
		}
		out = append(out, s)
	}
	return out
}

// Call runs one call to the end and returns its accumulated result. The error
// is non-nil only when the infrastructure failed (a tool's stream returned an
// error); the result then still says what happened, as an error result.
// Everything the model did wrong (an unknown tool, bad JSON, an input that
// breaks the schema) and every permission outcome is a result, not an error.
func (tk *Toolkit) Call(ctx context.Context, call *Call) (*Result, error) {
	return tk.call(ctx, call, nil)
}

// call is Call, showing every chunk to observe (when not nil) as it comes.
func (tk *Toolkit) call(ctx context.Context, call *Call, observe func(*Chunk)) (*Result, error) {
	r := &Result{ID: call.ID, Name: call.Name, Input: call.Input}
	for c, err := range tk.Stream(ctx, call) {
		if observe != nil && c != nil {
			observe(c)
		}
		if err != nil {
			_ = r.Append(Errorf("Tool '%s' failed: %v", call.Name, err))
			r.Finish()
			return r, err
		}
		if err := r.Append(c); err != nil {
			_ = r.Append(Errorf("Tool '%s' produced malformed output: %v", call.Name, err))
			r.Finish()
			return r, err
		}
	}
	if r.Decision != nil && len(r.Decision.UpdatedInput) > 0 {
		r.Input = r.Decision.UpdatedInput
	}
	r.Finish()
	return r, nil
}

// Verdict is what [Toolkit.Check] learns of a call without running it.
type Verdict struct {
	// Decision is the permission engine's final answer.
	Decision permission.Decision
	// ReadOnly reports whether the tool judges this input read-only.
	ReadOnly bool
	// Tool is the tool the call names.
	Tool Tool
	// Judgment is what the tool's [Judge] made of the input (of the input
	// a permission hook rewrote it into, when one did); nil for other tools.
	Judgment Judgment
}

// prepared is a call that found its tool and passed validation.
type prepared struct {
	e     *entry
	input json.RawMessage
	st    *State

	judged bool     // subj is made
	subj   *subject // the call as the permission engine sees it
}

// subject returns the call as the permission engine sees it, made once:
// for a tool that implements [Judge], with its one [Judgment] of the input.
func (p *prepared) subject(ctx context.Context) *subject {
	if !p.judged {
		p.judged = true
		p.subj = &subject{e: p.e, input: p.input}
		if jg, ok := p.e.tool.(Judge); ok {
			p.subj.j, p.subj.jerr = judge(WithState(ctx, p.st), jg, p.input)
			if p.subj.j == nil && p.subj.jerr == nil {
				p.subj.jerr = errors.New("the tool made no judgment of the input")
			}
		}
	}
	return p.subj
}

// judge calls the tool's Judge, turning a panic into an error: a tool that
// cannot judge its input does not run.
func judge(ctx context.Context, jg Judge, input json.RawMessage) (j Judgment, err error) {
	defer func() {
		if v := recover(); v != nil {
			j, err = nil, fmt.Errorf("judging the input panicked: %v", v)
		}
	}()
	return jg.Judge(ctx, input)
}

// ErrInvalidCall is matched (with errors.Is) by the errors of
// [Toolkit.Check] for a call that cannot run as given: its tool does not
// exist or is in an inactive group, or its input is not JSON or breaks the
// tool's schema. Any other error of Check means the tool's permission check
// failed.
var ErrInvalidCall = errors.New("invalid call")

// The kinds of [ErrInvalidCall], each matched with errors.Is as well: the
// text of the error is what the model reads, and these let a caller tell
// the cases apart without parsing it.
var (
	// ErrToolNotFound: no tool has the call's name.
	ErrToolNotFound = errors.New("tool not found")
	// ErrGroupInactive: the tool is in a group that is not active.
	ErrGroupInactive = errors.New("tool group inactive")
	// ErrInvalidInput: the input is not a JSON object or breaks the schema.
	ErrInvalidInput = errors.New("invalid input")
)

// invalidCall is an error of the model's call; its text is what the model reads.
type invalidCall struct {
	msg  string
	kind error // one of ErrToolNotFound, ErrGroupInactive, ErrInvalidInput
}

func (e *invalidCall) Error() string { return e.msg }
func (e *invalidCall) Is(target error) bool {
	return target == ErrInvalidCall || target == e.kind
}

// prepare finds the tool of call among the active groups, validates the
// input against its schema and writes whole numbers at integer locations as
// digits (see integerLiterals). The error's text is what the model reads.
func (tk *Toolkit) prepare(ctx context.Context, call *Call) (*prepared, error) {
	st := call.State
	if st == nil {
		st = NewState(nil)
	}
	e, missing := tk.lookup(ctx, call.Name, st.ActiveGroups())
	if e == nil {
		kind := ErrToolNotFound
		if strings.HasPrefix(missing, "ToolGroupInactiveError") {
			kind = ErrGroupInactive
		}
		return nil, &invalidCall{missing, kind}
	}
	input := call.Input
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	m, err := decodeInput(call.Name, input)
	if err != nil {
		return nil, &invalidCall{err.Error(), ErrInvalidInput}
	}
	if err := e.schema.validate(call.Name, m); err != nil {
		return nil, &invalidCall{err.Error(), ErrInvalidInput}
	}
	if decodesInGo(e.info) {
		if err := e.schema.checkIntegerRange(call.Name, input); err != nil {
			return nil, &invalidCall{err.Error(), ErrInvalidInput}
		}
	}
	return &prepared{e: e, input: e.schema.integerLiterals(input), st: st}, nil
}

// decide is the decision on a prepared call: the permission hook's, when
// there is one, else the engine's. Deny rules win over a hook's Allow. It
// returns the prepared call the decision is about: p, or the call a hook
// rewrote p into.
//
// A hook that rewrites the input (Decision.UpdatedInput) makes a new call:
// what will run is judged again, as if the model had sent it (see
// rejudge), so a rewrite cannot carry a command past the deny rules, the
// safety checks or the mode that the original input passed.
func (tk *Toolkit) decide(ctx context.Context, p *prepared, call *Call) (permission.Decision, *prepared, error) {
	if tk.hook == nil {
		d, err := p.decide(ctx, call)
		return d, p, err
	}
	d, err := tk.hook(ctx, call, func() (permission.Decision, error) { return p.decide(ctx, call) })
	if err != nil || d.Behavior == permission.Deny {
		return d, p, err
	}
	if len(d.UpdatedInput) > 0 && string(d.UpdatedInput) != string(p.input) {
		return tk.rejudge(ctx, p, call, d)
	}
	if d.Behavior != permission.Allow {
		return d, p, nil
	}
	if dd, denied := permission.NewEngine(p.st.Permissions()).CheckDenyRules(ctx, p.subject(ctx)); denied {
		return dd, p, nil
	}
	return d, p, nil
}

// rejudge decides a call whose input a permission hook rewrote into
// d.UpdatedInput. The new input must pass the tool's schema, and the engine
// judges it as if the model had sent it: its Deny stands (a deny rule,
// dont_ask, explore), and so does its Ask, which shows the new input; the
// deny rules of the original input still apply too. A hook's Allow cannot
// pass what the engine would ask about (the hook answered, or passed on
// the engine's answer, about the original input); a hook's Ask still asks
// about what the engine would allow. A call the user approved (after seeing
// the rewritten input) meets only the deny rules again.
func (tk *Toolkit) rejudge(ctx context.Context, p *prepared, call *Call, d permission.Decision) (permission.Decision, *prepared, error) {
	engine := permission.NewEngine(p.st.Permissions())
	if dd, denied := engine.CheckDenyRules(ctx, p.subject(ctx)); denied {
		return dd, p, nil
	}
	rewritten := *call
	rewritten.Input = d.UpdatedInput
	q, err := tk.prepare(ctx, &rewritten)
	if err != nil {
		return permission.Decision{Behavior: permission.Deny, Reason: "PreToolUse hook",
			Message: fmt.Sprintf("A PreToolUse hook rewrote the input of %s into one that cannot run, so it was not run: %v", call.Name, err)}, p, nil
	}
	if dd, denied := engine.CheckDenyRules(ctx, q.subject(ctx)); denied {
		return dd, q, nil
	}
	if call.Approved {
		d.Behavior = permission.Allow
		return d, q, nil
	}
	ed, err := engine.Check(ctx, q.subject(ctx))
	if err != nil {
		return permission.Decision{}, q, err
	}
	if ed.Behavior == permission.Allow && d.Behavior != permission.Allow {
		return d, q, nil // the hook asks about what the engine would allow
	}
	ed.UpdatedInput = d.UpdatedInput
	return ed, q, nil
}

// decide asks the permission engine about a prepared call. A call the user
// approved is allowed without the engine, except that deny rules still win.
func (p *prepared) decide(ctx context.Context, call *Call) (permission.Decision, error) {
	engine := permission.NewEngine(p.st.Permissions())
	if call.Approved {
		if d, denied := engine.CheckDenyRules(ctx, p.subject(ctx)); denied {
			return d, nil
		}
		if s := p.subject(ctx); s.jerr != nil {
			return permission.Decision{}, fmt.Errorf("permission check of %s: %w", call.Name, s.jerr)
		}
		return permission.Decision{Behavior: permission.Allow, Message: "Permission granted for " + call.Name + " (approved by the user)", Reason: "User approval"}, nil
	}
	return engine.Check(ctx, p.subject(ctx))
}

// Check finds the tool of call, validates the input and asks the permission
// engine, without running anything. The error's text is what the model would
// have read for a call that cannot run (an unknown tool, invalid input: the
// error matches [ErrInvalidCall]), or the failure of the tool's permission
// check.
func (tk *Toolkit) Check(ctx context.Context, call *Call) (*Verdict, error) {
	p, err := tk.prepare(ctx, call)
	if err != nil {
		return nil, err
	}
	ctx = WithState(ctx, p.st)
	d, fp, err := tk.decide(ctx, p, call)
	if err != nil {
		return nil, err
	}
	s := fp.subject(ctx)
	return &Verdict{Decision: d, ReadOnly: s.ReadOnly(ctx), Tool: fp.e.tool, Judgment: s.j}, nil
}

// Validate finds the tool of call and validates the input, as Check and
// Call do first, without judging it: the error (matching
// [ErrInvalidCall]) is what the model would read.
func (tk *Toolkit) Validate(ctx context.Context, call *Call) error {
	_, err := tk.prepare(ctx, call)
	return err
}

// InterruptedText is what the model reads when a call was cancelled.
const InterruptedText = "<system-reminder>The tool call has been interrupted by the user.</system-reminder>"

// Stream runs one call and yields its chunks as they come: first any chunk of
// the toolkit itself (an error for a call that cannot run, a denied, asking or
// submitted chunk carrying the permission Decision, or, for an allowed call, an
// empty chunk carrying it), then the tool's own chunks. A call whose ctx is
// cancelled ends with an interrupted chunk. A tool that panics ends with an
// error chunk instead of crashing the agent.
func (tk *Toolkit) Stream(ctx context.Context, call *Call) iter.Seq2[*Chunk, error] {
	if h := tk.handler(call.Name); h != nil {
		return h.Handle(ctx, call)
	}
	return tk.stream(ctx, call)
}

// stream is Stream without the middlewares: the Toolkit's own handler.
func (tk *Toolkit) stream(ctx context.Context, call *Call) iter.Seq2[*Chunk, error] {
	return func(yield func(*Chunk, error) bool) {
		p, err := tk.prepare(ctx, call)
		if err != nil {
			yield(Errorf("%s", err.Error()), nil)
			return
		}
		st := p.st
		ctx = WithState(ctx, st)
		d, fp, err := tk.decide(ctx, p, call)
		// What runs is the call the decision is about: p, or the call a
		// hook rewrote it into, with its one judgment.
		e, input := fp.e, fp.input
		if err != nil {
			yield(Errorf("Permission check failed for tool '%s', so it was not run: %v", call.Name, err), nil)
			return
		}
		judgment := fp.subject(ctx).j
		if (d.Behavior == permission.Ask || d.Behavior == permission.Passthrough) && tk.asker != nil {
			d.Behavior = permission.Ask
			// The user is asked about what will run (a hook's rewrite),
			// with the tool's judgment of it.
			asked := *call
			asked.Judgment = judgment
			if len(d.UpdatedInput) > 0 {
				asked.Input = d.UpdatedInput
			}
			approve, rules, err := tk.asker.Ask(ctx, &asked, d)
			switch {
			case errors.Is(err, ErrNotAsked):
				// Comes back asking, below.
			case err != nil:
				yield(Errorf("Could not ask the user about tool '%s', so it was not run: %v", call.Name, err), nil)
				return
			case !approve:
				d = permission.Decision{Behavior: permission.Deny, Message: "The user doesn't want to proceed with this tool use. The tool use was rejected.", Reason: "Denied by the user"}
			default:
				for _, r := range rules {
					st.AddRule(r)
				}
				d = permission.Decision{Behavior: permission.Allow, Message: "Permission granted for " + call.Name + " (approved by the user)", Reason: "User approval", UpdatedInput: d.UpdatedInput}
			}
		}
		switch d.Behavior {
		case permission.Deny:
			yield(&Chunk{Content: []Block{TextBlock(d.Message)}, Status: StatusDenied, Decision: &d}, nil)
			return
		case permission.Ask, permission.Passthrough:
			d.Behavior = permission.Ask
			yield(&Chunk{Status: StatusAsking, Decision: &d}, nil)
			return
		}
		if len(d.UpdatedInput) > 0 && string(d.UpdatedInput) != string(input) {
			m, err := decodeInput(call.Name, d.UpdatedInput)
			if err == nil {
				err = e.schema.validate(call.Name, m)
			}
			if err == nil && decodesInGo(e.info) {
				err = e.schema.checkIntegerRange(call.Name, d.UpdatedInput)
			}
			if err != nil {
				yield(Errorf("Permission check of tool '%s' rewrote the input into an invalid one: %v", call.Name, err), nil)
				return
			}
			if u := e.schema.integerLiterals(d.UpdatedInput); string(u) != string(input) {
				// The tool's own check rewrote its input: the judgment
				// was of another input, and the tool judges this one.
				input, judgment = u, nil
			}
		}
		if e.info.External {
			yield(&Chunk{Status: StatusSubmitted, Decision: &d}, nil)
			return
		}
		if !yield(&Chunk{Decision: &d}, nil) {
			return
		}
		if ctx.Err() != nil {
			yield(&Chunk{Content: []Block{TextBlock(InterruptedText)}, Status: StatusInterrupted}, nil)
			return
		}
		tc := &Call{ID: call.ID, Name: call.Name, Input: input, Approved: call.Approved, Judgment: judgment}
		if e.info.StateInjected {
			tc.State = st
		} else {
			// Only StateInjected tools see the State while they run, in
			// Call.State and in the context alike.
			ctx = WithState(ctx, nil)
		}
		tk.run(ctx, e, tc, yield)
	}
}

// run streams the tool's chunks to yield, converting a panic of the tool into
// an error chunk. A panic of the consumer (inside yield) is not the tool's and
// propagates.
func (tk *Toolkit) run(ctx context.Context, e *entry, tc *Call, yield func(*Chunk, error) bool) {
	// flags are in one struct so that the closures share one allocation.
	var f struct{ inYield, stopped bool }
	defer func() {
		if f.inYield || f.stopped {
			return
		}
		if v := recover(); v != nil {
			tk.logger.Error("toolkit: tool panicked", "tool", e.info.Name, "panic", v, "stack", string(debug.Stack()))
			yield(Errorf("Tool '%s' failed with an internal error (panic: %v). This is a bug in the tool, not in your input; try another approach.", e.info.Name, v), nil)
		}
	}()
	interrupted := false
	for c, err := range e.tool.Call(ctx, tc) {
		if err != nil {
			f.stopped = true
			yield(nil, fmt.Errorf("tool %s: %w", e.info.Name, err))
			return
		}
		if c == nil {
			continue
		}
		interrupted = interrupted || c.Status == StatusInterrupted
		f.inYield = true
		ok := yield(c, nil)
		f.inYield = false
		if !ok {
			f.stopped = true
			return
		}
	}
	if ctx.Err() != nil && !interrupted {
		yield(&Chunk{Content: []Block{TextBlock(InterruptedText)}, Status: StatusInterrupted}, nil)
	}
}

// CallBatch runs the calls of one model turn and returns their results in call
// order. Consecutive calls to concurrency-safe tools run in parallel; the
// others run one at a time. Once a call needs approval or an external result,
// the calls after its run are not started: they come back [StatusPending], to
// be sent again after the answer, so that no call overtakes one it may depend
// on. The error joins the infrastructure errors of all calls.
func (tk *Toolkit) CallBatch(ctx context.Context, calls []*Call) ([]*Result, error) {
	return tk.batch(ctx, calls, nil)
}

// BatchEvent is one step of [Toolkit.StreamBatch]: a chunk of the call at
// Index as it streams (Chunk set), or the call's final result (Result
// set, with Err when its infrastructure failed).
type BatchEvent struct {
	Index  int
	Chunk  *Chunk
	Result *Result
	Err    error
}

// StreamBatch is CallBatch as a stream of events, so that an agent can show
// each call's progress: the chunks of every call as they come (calls that
// run in parallel interleave), and each call's result once it ends, with
// the same scheduling as CallBatch (calls not started end StatusPending).
// Stopping the iteration cancels the calls still running.
func (tk *Toolkit) StreamBatch(ctx context.Context, calls []*Call) iter.Seq[BatchEvent] {
	return func(yield func(BatchEvent) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		events := make(chan BatchEvent, 16)
		go func() {
			defer close(events)
			send := func(ev BatchEvent) {
				select {
				case events <- ev:
				case <-ctx.Done():
				}
			}
			tk.batch(ctx, calls, func(i int, c *Chunk, r *Result, err error) {
				send(BatchEvent{Index: i, Chunk: c, Result: r, Err: err})
			})
		}()
		for ev := range events {
			if !yield(ev) {
				cancel()
				for range events { // let the calls end
				}
				return
			}
		}
	}
}

// batch runs the calls of a turn (see CallBatch), telling observe (when
// not nil) of every chunk and of every call's end.
func (tk *Toolkit) batch(ctx context.Context, calls []*Call, observe func(i int, c *Chunk, r *Result, err error)) ([]*Result, error) {
	// One listing of each source for the whole turn.
	if t, ok := ctx.Value(turnKey{}).(*turn); !ok || t.tk != tk {
		ctx = tk.BeginTurn(ctx)
	}
	results := make([]*Result, len(calls))
	safe := make([]bool, len(calls))
	for i, c := range calls {
		safe[i] = true // unknown tools are safe: they only produce an error result
		active := []string(nil)
		if c.State != nil {
			active = c.State.ActiveGroups()
		}
		if e, _ := tk.lookup(ctx, c.Name, active); e != nil {
			safe[i] = e.info.ConcurrencySafe
		}
	}
	var (
		mu   sync.Mutex
		errs []error
	)
	call := func(i int) {
		var see func(*Chunk)
		if observe != nil {
			see = func(c *Chunk) { observe(i, c, nil, nil) }
		}
		r, err := tk.call(ctx, calls[i], see)
		results[i] = r
		if observe != nil {
			observe(i, nil, r, err)
		}
		if err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	}
	waiting := func(r *Result) bool { return r.Status == StatusAsking || r.Status == StatusSubmitted }
	stop := false
	for i := 0; i < len(calls); {
		j := i + 1
		for j < len(calls) && safe[j] == safe[i] {
			j++
		}
		switch {
		case stop:
		case safe[i]:
			var wg sync.WaitGroup
			for k := i; k < j; k++ {
				wg.Go(func() { call(k) })
			}
			wg.Wait()
			stop = slices.ContainsFunc(results[i:j], waiting)
		default:
			for k := i; k < j && !stop; k++ {
				call(k)
				stop = waiting(results[k])
			}
		}
		i = j
	}
	for i, r := range results {
		if r == nil {
			results[i] = &Result{ID: calls[i].ID, Name: calls[i].Name, Input: calls[i].Input, Status: StatusPending}
			if observe != nil {
				observe(i, nil, results[i], nil)
			}
		}
	}
	return results, errors.Join(errs...)
}

// subject is one call of a registered tool as [permission.Subject] sees
// it: with the tool's [Judgment] of the input when the tool judges (j, or
// jerr when judging broke), else through the tool's methods with the raw
// input and the documented defaults for the optional interfaces.
type subject struct {
	e     *entry
	input json.RawMessage
	j     Judgment
	jerr  error
}

func (s *subject) Name() string { return s.e.info.Name }

func (s *subject) RuleNames() []string { return s.e.info.RuleNames }

func (s *subject) ReadOnly(ctx context.Context) bool {
	switch {
	case s.jerr != nil:
		return false
	case s.j != nil:
		return s.j.ReadOnly(ctx)
	}
	if c, ok := find[ReadOnlyChecker](s.e.tool); ok {
		return c.CheckReadOnly(ctx, s.input)
	}
	return s.e.info.ReadOnly
}

func (s *subject) CheckPermissions(ctx context.Context, pc *permission.Context) (permission.Decision, error) {
	switch {
	case s.jerr != nil:
		return permission.Decision{}, s.jerr
	case s.j != nil:
		return s.j.CheckPermissions(ctx, pc)
	}
	return s.e.tool.CheckPermissions(ctx, s.input, pc)
}

// MatchRule asks the tool's Judgment, or its RuleMatcher, found through
// wrappers (see [Wrapper]). A rule with content that no matcher can
// evaluate fails closed: it never allows, and a deny or ask rule applies.
func (s *subject) MatchRule(ctx context.Context, r permission.Rule) bool {
	switch {
	case s.jerr != nil:
		return r.Content == "" || r.Behavior != permission.Allow
	case s.j != nil:
		return s.j.MatchRule(ctx, r)
	}
	if m, ok := find[RuleMatcher](s.e.tool); ok {
		return m.MatchRule(ctx, r, s.input)
	}
	return r.Content == "" || r.Behavior != permission.Allow
}

func (s *subject) Suggestions(ctx context.Context) []permission.Rule {
	switch {
	case s.jerr != nil:
		return nil
	case s.j != nil:
		return s.j.Suggestions(ctx)
	}
	if g, ok := find[Suggester](s.e.tool); ok {
		return g.Suggestions(ctx, s.input)
	}
	return []permission.Rule{{Tool: s.e.info.Name, Behavior: permission.Allow, Source: "suggested"}}
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
