package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/toolscope/toolscope/permission"
)

const resetToolsName = "reset_tools"

const resetToolsDescription = `Switch tool groups on or off. The toolkit's tools are organised in groups; only the basic group and the groups you switch on are available to you.

The arguments are the FINAL state of every group, not a change: a group set to true is on, a group set to false or left out is off. To keep a group on while switching another on, set both to true.

Switch on only the groups the current task needs, and switch them off when you are done. The answer lists the active groups and may carry instructions for them: follow those instructions when you use the groups' tools.`

// resetTools is the meta tool through which the model switches groups on and
// off. The toolkit adds it when it has groups besides basic.
type resetTools struct{ tk *Toolkit }

func (m *resetTools) Info() Info {
	props := map[string]any{}
	for _, g := range m.tk.Groups() {
		props[g.Name] = map[string]any{"type": "boolean", "default": false, "description": g.Description}
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	return Info{Name: resetToolsName, Description: resetToolsDescription, InputSchema: schema, ConcurrencySafe: true, StateInjected: true}
}

func (m *resetTools) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Allow, Message: "reset_tools is always allowed to be called.", Reason: "Meta tool"}, nil
}

func (m *resetTools) Call(ctx context.Context, call *Call) iter.Seq2[*Chunk, error] {
	return func(yield func(*Chunk, error) bool) {
		var in map[string]any
		if err := DecodeInput(call.Input, &in); err != nil {
			yield(Errorf("%v", err), nil)
			return
		}
		groups := m.tk.Groups()
		var unknown, names []string
		for k := range in {
			if !slices.ContainsFunc(groups, func(g Group) bool { return g.Name == k }) {
				unknown = append(unknown, k)
			}
		}
		for _, g := range groups {
			names = append(names, g.Name)
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			yield(Errorf("Invalid group name(s): %s. The current available groups are: %s", strings.Join(unknown, ", "), strings.Join(names, ", ")), nil)
			return
		}
		var on []Group
		for _, g := range groups {
			if v, ok := in[g.Name]; ok {
				b, isBool := v.(bool)
				if !isBool {
					yield(Errorf("Invalid arguments: the argument '%s' should be a boolean (true or false), but got %s.", g.Name, jsonKind(v)), nil)
					return
				}
				if b {
					on = append(on, g)
				}
			}
		}
		var active []string
		for _, g := range on {
			active = append(active, g.Name)
		}
		if call.State != nil {
			call.State.SetActiveGroups(active)
		}
		if len(on) == 0 {
			yield(Text("All tool groups are currently deactivated."), nil)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, "The currently activated tool group(s): %s.", strings.Join(active, ", "))
		var withInstr []Group
		for _, g := range on {
			if g.Instructions != "" {
				withInstr = append(withInstr, g)
			}
		}
		if len(withInstr) > 0 {
			b.WriteString("\n<tool-instructions>\nFollow these instructions when you use the tools of the activated groups:\n")
			for _, g := range withInstr {
				fmt.Fprintf(&b, "<group name=%q>%s</group>\n", g.Name, g.Instructions)
			}
			b.WriteString("</tool-instructions>")
		}
		yield(Text(b.String()), nil)
	}
}
