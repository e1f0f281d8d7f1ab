package tooltest_test

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
	"github.com/toolscope/toolscope/tool/tooltest"
)

// bad is a tool that breaks the contract in the ways its fields choose.
type bad struct {
	noProps, ignoreCancel, panicCheck, badSchema bool
}

func (b bad) Info() tool.Info {
	s := `{"type":"object","properties":{}}`
	if b.noProps {
		s = `{"type":"object"}`
	}
	if b.badSchema {
		s = `{"type":"object","properties":{"a":{"minLength":"x"}}}`
	}
	return tool.Info{Name: "bad", Description: "d", InputSchema: json.RawMessage(s)}
}

func (b bad) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	if b.panicCheck {
		panic("boom")
	}
	return permission.Decision{Behavior: permission.Allow}, nil
}

func (b bad) Call(ctx context.Context, c *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		if b.ignoreCancel {
			time.Sleep(300 * time.Millisecond)
		}
		yield(tool.Text("ok"), nil)
	}
}

// tested says its schema is tested (tool.TestedSchema).
type tested struct{ bad }

func (tested) SchemaTested() {}

func TestCheckFindsBreaches(t *testing.T) {
	o := &tooltest.Options{Deadline: 100 * time.Millisecond}
	if p := tooltest.Check(bad{}, o); len(p) != 0 {
		t.Errorf("a conforming tool: %v", p)
	}
	if p := tooltest.Check(tested{}, o); len(p) != 0 {
		t.Errorf("a conforming tested tool: %v", p)
	}
	for _, c := range []struct {
		tool tool.Tool
		want string
	}{
		{bad{noProps: true}, `no "properties"`},
		{bad{ignoreCancel: true}, "still running"},
		{bad{panicCheck: true}, "CheckPermissions panicked"},
		{bad{badSchema: true}, "Toolkit: refuses the tool"},
		{tested{bad{badSchema: true}}, "TestedSchema: the tool says its input schema compiles"},
	} {
		p := tooltest.Check(c.tool, o)
		found := false
		for _, e := range p {
			found = found || strings.Contains(e.Error(), c.want)
		}
		if !found {
			t.Errorf("%+v: problems %v, want one mentioning %q", c.tool, p, c.want)
		}
	}
}
