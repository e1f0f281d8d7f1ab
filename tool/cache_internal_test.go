package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"
	"testing"

	"github.com/toolscope/toolscope/permission"
)

type schemaTool struct{ n int }

func (s schemaTool) Info() Info {
	return Info{Name: "t", Description: "d", InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","description":"v%d"}`, s.n))}
}
func (schemaTool) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Allow}, nil
}
func (schemaTool) Call(context.Context, *Call) iter.Seq2[*Chunk, error] {
	return func(func(*Chunk, error) bool) {}
}

// countingSource returns a tool with a new schema every time it is listed,
// as a server whose tools keep changing would.
type countingSource struct{ n int }

func (c *countingSource) Name() string { return "s" }
func (c *countingSource) Tools(context.Context) ([]Tool, error) {
	c.n++
	return []Tool{schemaTool{c.n}}, nil
}

// The compiled schemas of dynamic tools stay bounded however many distinct
// schemas a source has shown.
func TestSchemaCacheBounded(t *testing.T) {
	tk, err := NewToolkit(&ToolkitOptions{Sources: []Source{&countingSource{}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3*maxCachedSchemas; i++ {
		if got := tk.Tools(context.Background(), nil); len(got) == 0 {
			t.Fatal("no tools")
		}
	}
	n := 0
	tk.schemas.Range(func(any, any) bool { n++; return true })
	if n > maxCachedSchemas {
		t.Errorf("%d schemas cached, more than %d", n, maxCachedSchemas)
	}
}

// listCount counts its listings.
type listCount struct {
	name  string
	tools []Tool
	n     int
	mu    sync.Mutex
}

func (c *listCount) Name() string { return c.name }
func (c *listCount) Tools(context.Context) ([]Tool, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.tools, nil
}

type namedTool struct {
	schemaTool
	name string
}

func (n namedTool) Info() Info {
	i := n.schemaTool.Info()
	i.Name = n.name
	i.ConcurrencySafe = true
	return i
}

// A turn lists each active source once, whatever the number of calls, and
// never lists the sources of inactive groups.
func TestSourcesListedOncePerTurn(t *testing.T) {
	active := &listCount{name: "active", tools: []Tool{namedTool{name: "dyn"}}}
	inactive := &listCount{name: "inactive", tools: []Tool{namedTool{name: "other"}}}
	tk, err := NewToolkit(&ToolkitOptions{Sources: []Source{active},
		Groups: []Group{{Name: "g", Description: "d", Sources: []Source{inactive}}}})
	if err != nil {
		t.Fatal(err)
	}
	st := NewState(&permission.Context{Mode: permission.Bypass})
	var calls []*Call
	for i := 0; i < 3; i++ {
		calls = append(calls, &Call{ID: fmt.Sprint(i), Name: "dyn", Input: json.RawMessage(`{}`), State: st})
	}
	if _, err := tk.CallBatch(context.Background(), calls); err != nil {
		t.Fatal(err)
	}
	if active.n != 1 || inactive.n != 0 {
		t.Errorf("listings in one turn of 3 calls: active source %d (want 1), inactive group's source %d (want 0)", active.n, inactive.n)
	}
}

// versioned is a source that reports when its list changes.
type versioned struct {
	listCount
	version uint64
}

func (v *versioned) ListVersion() uint64 { return v.version }

// A source that reports changes is listed again only when its list
// changed, across turns.
func TestChangeReportingSourceListedOnChange(t *testing.T) {
	src := &versioned{listCount: listCount{name: "v", tools: []Tool{namedTool{name: "dyn"}}}}
	tk, err := NewToolkit(&ToolkitOptions{Sources: []Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		tk.Tools(context.Background(), nil)
	}
	if src.n != 1 {
		t.Errorf("listed %d times without a change, want 1", src.n)
	}
	src.version++
	src.tools = []Tool{namedTool{name: "dyn"}, namedTool{name: "dyn2"}}
	if got := tk.Tools(context.Background(), nil); len(got) != 2 || src.n != 2 {
		t.Errorf("after a change: %d tools, %d listings", len(got), src.n)
	}
}

// Within a turn the schemas the model is shown and the calls it then makes
// see one listing of each source, even when the source's list changes
// in between; the next turn sees the change.
func TestTurnSnapshot(t *testing.T) {
	src := &listCount{name: "s", tools: []Tool{namedTool{name: "dyn"}}}
	tk, err := NewToolkit(&ToolkitOptions{Sources: []Source{src}})
	if err != nil {
		t.Fatal(err)
	}
	st := NewState(&permission.Context{Mode: permission.Bypass})
	calls := func(name string) []*Call {
		var cs []*Call
		for i := 0; i < 3; i++ {
			cs = append(cs, &Call{ID: fmt.Sprint(i), Name: name, Input: json.RawMessage(`{}`), State: st})
		}
		return cs
	}
	ctx := tk.BeginTurn(context.Background())
	if ss := tk.Schemas(ctx, nil); len(ss) != 1 || ss[0].Name != "dyn" {
		t.Fatalf("schemas: %+v", ss)
	}
	src.tools = []Tool{namedTool{name: "dyn2"}} // the source changes after the schemas went out
	rs, err := tk.CallBatch(ctx, calls("dyn"))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := tk.Call(ctx, calls("dyn")[0])
	rs = append(rs, r)
	for _, r := range rs {
		if r.Status != StatusSuccess {
			t.Errorf("a call of the turn: %s %s", r.Status, r.Text())
		}
	}
	if len(tk.Tools(ctx, nil)) != 1 || src.n != 1 {
		t.Errorf("one turn: %d listings, want 1", src.n)
	}
	next := tk.BeginTurn(context.Background())
	if ss := tk.Schemas(next, nil); len(ss) != 1 || ss[0].Name != "dyn2" || src.n != 2 {
		t.Errorf("next turn: %+v after %d listings", ss, src.n)
	}
	// Without a turn, the schemas and the batch list the source apart.
	tk.Schemas(context.Background(), nil)
	tk.CallBatch(context.Background(), calls("dyn2"))
	if src.n != 4 {
		t.Errorf("schemas and a batch outside a turn: %d listings, want 4", src.n)
	}
}

// A dynamic tool of a group that was switched off gives the inactive-group
// error (as a static one does), without its source being asked again.
func TestInactiveDynamicTool(t *testing.T) {
	src := &listCount{name: "s", tools: []Tool{namedTool{name: "dyn"}}}
	tk, err := NewToolkit(&ToolkitOptions{Groups: []Group{{Name: "g", Description: "d", Sources: []Source{src}}}})
	if err != nil {
		t.Fatal(err)
	}
	st := NewState(&permission.Context{Mode: permission.Bypass})
	c := &Call{Name: "dyn", Input: json.RawMessage(`{}`), State: st}
	st.SetActiveGroups([]string{"g"})
	if r, _ := tk.Call(context.Background(), c); r.Status != StatusSuccess {
		t.Fatalf("active: %s %q", r.Status, r.Text())
	}
	st.SetActiveGroups(nil)
	n := src.n
	r, _ := tk.Call(context.Background(), c)
	if r.Text() != "ToolGroupInactiveError: The tool 'dyn' in group 'g' is currently inactive. You should first activate the group by calling the 'reset_tools' tool." {
		t.Errorf("inactive: %s %q", r.Status, r.Text())
	}
	if _, err := tk.Check(context.Background(), c); !errors.Is(err, ErrGroupInactive) {
		t.Errorf("Check: %v", err)
	}
	if src.n != n {
		t.Errorf("the inactive group's source was listed %d more times", src.n-n)
	}
}

// skillList is a skill source, reporting changes or not.
type skillList struct{ skills []Skill }

func (s *skillList) Skills(context.Context) ([]Skill, error) { return s.skills, nil }

type versionedSkills struct {
	skillList
	version uint64
}

func (v *versionedSkills) ListVersion() uint64 { return v.version }

// ListVersion moves when a tool is added or removed and when a source or
// skill source reports a change, stays put otherwise, and is unknown (ok
// false) while any source or skill source cannot report changes.
func TestToolkitListVersion(t *testing.T) {
	src := &versioned{listCount: listCount{name: "v", tools: []Tool{namedTool{name: "dyn"}}}}
	skills := &versionedSkills{}
	tk, err := NewToolkit(&ToolkitOptions{Sources: []Source{src}, Skills: []SkillSource{skills}})
	if err != nil {
		t.Fatal(err)
	}
	v0, ok := tk.ListVersion()
	if !ok {
		t.Fatal("ListVersion unknown, though every source reports changes")
	}
	step := func(what string, moves bool) {
		t.Helper()
		v, ok := tk.ListVersion()
		if !ok || (v != v0) != moves {
			t.Errorf("after %s: version %d (ok %v), was %d; want it moved: %v", what, v, ok, v0, moves)
		}
		v0 = v
	}
	step("nothing", false)
	if err := tk.Add(BasicGroup, namedTool{name: "static"}); err != nil {
		t.Fatal(err)
	}
	step("Add", true)
	tk.Remove("static")
	step("Remove", true)
	tk.Remove("static")
	step("removing nothing", false)
	src.version++
	step("the source's change", true)
	skills.version++
	step("the skill source's change", true)
	step("nothing again", false)

	for name, opts := range map[string]*ToolkitOptions{
		"a source":       {Sources: []Source{&listCount{name: "plain"}}},
		"a skill source": {Skills: []SkillSource{&skillList{}}},
		"a group's source": {Groups: []Group{{Name: "g", Description: "d",
			Sources: []Source{&listCount{name: "plain"}}}}},
	} {
		tk, err := NewToolkit(opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tk.ListVersion(); ok {
			t.Errorf("with %s that cannot report changes, ListVersion is known", name)
		}
	}
}
