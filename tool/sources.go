package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

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

// ListVersion returns a number that moves whenever the tools the Toolkit
// offers, with any groups active, may have changed: a tool was added or
// removed, or a source's (or a skill source's) ChangeReporter version
// moved. ok is false when the Toolkit cannot tell without listing: some
// source or skill source is no ChangeReporter (the Skill tool is offered
// only while some skill is available, which only a listing of the skills
// tells).
//
// It is what lets an MCP server, which has to tell its clients when the
// tool list changes, look after every call without listing and encoding
// every tool again: it keeps the version it last served, and lists only
// when the number moved (or the active groups did). Read the version
// before listing, never after: a change in between then shows up as a
// move at the next look, rather than being taken for seen.
func (tk *Toolkit) ListVersion() (v uint64, ok bool) {
	if tk.unversioned {
		return 0, false
	}
	tk.verMu.Lock()
	defer tk.verMu.Unlock()
	for i, r := range tk.reporters {
		if v := r.ListVersion(); v != tk.repVers[i] {
			tk.repVers[i] = v
			tk.listVer++
		}
	}
	return tk.listVer, true
}

// follow adds a source or a skill source to those ListVersion follows.
func (tk *Toolkit) follow(src any) {
	if r, ok := src.(ChangeReporter); ok {
		tk.reporters = append(tk.reporters, r)
	} else {
		tk.unversioned = true
	}
}

// changed moves ListVersion: the Toolkit's own tools changed.
func (tk *Toolkit) changed() {
	tk.verMu.Lock()
	tk.listVer++
	tk.verMu.Unlock()
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
