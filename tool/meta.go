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

// resetToolsDescription says what AgentScope's reset_tools description
// says, so that a model prompted for AgentScope reads the same contract:
// the booleans are the final state, not changes; activate only what the
// task needs; follow the instructions the answer returns.
const resetToolsDescription = "This tool allows you to reset your equipped tools based on your current task requirements. " +
	"These tools are organized into different groups, and you can activate/deactivate them by specifying the boolean values for each group in the input.\n\n" +
	"**Important: The input booleans are the final state of their corresponding tool groups, not incremental changes.** " +
	"Any group not explicitly set to True will be deactivated, regardless of its previous state.\n\n" +
	"**Best practice**: Actively manage your tool groups: activate only what you need for the current task, " +
	"and promptly deactivate groups as soon as they are no longer needed to conserve context space.\n\n" +
	"This tool will return the usage instructions for the activated tool groups, which you **MUST pay attention to and follow**. " +
	"You can also reuse this tool to re-check the instructions."

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
					yield(Errorf("Invalid arguments: the argument '%s' should be a bool value, but got %s.", g.Name, pythonType(v)), nil)
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
			// AgentScope's block: one line of explanation, the groups'
			// instructions back to back, the closing tag on its own line.
			b.WriteString("\n<tool-instructions>\nThe tool instructions are a collection of suggestions, rules and notifications about how to use the tools in the activated groups.\n")
			for _, g := range withInstr {
				fmt.Fprintf(&b, "<group name=%q>%s</group>", g.Name, g.Instructions)
			}
			b.WriteString("\n</tool-instructions>")
		}
		yield(Text(b.String()), nil)
	}
}

// pythonType names a JSON value's type as Python prints the type of the
// value json.loads makes of it (AgentScope's error texts show it).
func pythonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "<class 'NoneType'>"
	case string:
		return "<class 'str'>"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "<class 'int'>"
		}
		return "<class 'float'>"
	case float64:
		if x == float64(int64(x)) {
			return "<class 'int'>"
		}
		return "<class 'float'>"
	case []any:
		return "<class 'list'>"
	case map[string]any:
		return "<class 'dict'>"
	}
	return fmt.Sprintf("<class '%T'>", v)
}
