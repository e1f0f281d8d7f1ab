package builtin

import (
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// Tasks returns the task tools: TaskCreate, TaskGet, TaskList and
// TaskUpdate. They keep an agent's task list in its [tool.State], so a
// list outlives the turn (and, saved with the state, the process). They
// change nothing outside the state, so they are always allowed and safe
// to run side by side.
func Tasks() []tool.Tool {
	return []tool.Tool{TaskCreate{}, TaskGet{}, TaskList{}, TaskUpdate{}}
}

// taskTool is what the four tools share: always allowed, concurrency-safe,
// state-injected.
type taskTool struct{}

func (taskTool) info(name, title, desc string, schema json.RawMessage) tool.Info {
	return tool.Info{Name: name, Title: title, Description: desc, InputSchema: schema, ConcurrencySafe: true, StateInjected: true,
		Annotations: hints(false, false, false, false)}
}

// taskAllowed is the task tools' permission decision.
func taskAllowed(name string) permission.Decision {
	return permission.Decision{Behavior: permission.Allow, Message: name + " is always allowed to be called."}
}

// runTask runs f against the call's state, turning what it says into the
// call's one chunk.
func runTask(call *tool.Call, f func(st *tool.State) *tool.Chunk) iter.Seq2[*tool.Chunk, error] {
	return func(yield func(*tool.Chunk, error) bool) {
		if call.State == nil {
			yield(nil, fmt.Errorf("%s needs the agent's state (Call.State)", call.Name))
			return
		}
		yield(f(call.State), nil)
	}
}

// The states of a task: it starts pending, goes in_progress, ends
// completed (TaskUpdate also takes "deleted", which removes it).
const (
	taskPending   = "pending"
	taskCompleted = "completed"
)

func findTask(tasks []tool.Task, id string) int {
	return slices.IndexFunc(tasks, func(t tool.Task) bool { return t.ID == id })
}

// pyRepr writes a JSON value as Python's repr of it, which is how
// AgentScope shows a task's metadata: {'key': 'value', 'n': 1, 'ok': True}.
// Keys are sorted (a Go map keeps no order).
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e16 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		return x.String()
	case string:
		return pyString(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyString(k) + ": " + pyRepr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// pyString is Python's repr of a string: single quotes, unless the string
// holds a single quote and no double quote.
func pyString(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case !unicode.IsPrint(r) && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case !unicode.IsPrint(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
