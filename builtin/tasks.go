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
	"unicode/utf8"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

// Tasks returns the task tools: TaskCreate, TaskGet, TaskList and
// TaskUpdate. They keep an agent's task list in its [tool.State], so a
// list outlives the turn (and, saved with the state, the process). They
// change nothing outside the state, so they are always allowed, and all
// but TaskCreate (whose ids are numbered in order) are safe to run side by
// side.
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

// Limits of what a task list keeps. The list lives in the agent's state,
// which is saved and shown to the model, so every string of a task is
// bounded (in characters, as the schemas' maxLength says), and so are its
// metadata (as JSON), the links one call adds and the number of tasks. The
// toolkit refuses an input over a schema limit before the tool runs; the
// tools check again (and check what no schema can say) with errors that
// name the field, its size and the limit, and never repeat the value.
const (
	maxTaskID          = 64
	maxTaskSubject     = 500
	maxTaskDescription = 20000
	maxTaskOwner       = 200
	maxTaskLinks       = 100      // ids in one add_blocks or add_blocked_by
	maxTaskMetadata    = 16 << 10 // bytes of a task's metadata as JSON
	maxTasks           = 1000
)

// taskSchema fills the limits into a task tool's schema: %[1]d is
// maxTaskID, %[2]d maxTaskSubject, %[3]d maxTaskDescription, %[4]d
// maxTaskOwner, %[5]d maxTaskLinks.
func taskSchema(format string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(format, maxTaskID, maxTaskSubject, maxTaskDescription, maxTaskOwner, maxTaskLinks))
}

// taskField is one string of a task tool's input, for tooLong.
type taskField struct {
	name  string
	value *string // nil: not given
	limit int
	hint  string // how to stay within the limit
}

// tooLong returns the error for the first field over its limit, or nil.
func tooLong(fields ...taskField) *tool.Chunk {
	for _, f := range fields {
		if f.value == nil {
			continue
		}
		if n := utf8.RuneCountInString(*f.value); n > f.limit {
			return tool.Errorf("Error: %s is %d characters long, more than the %d a task keeps. %s Nothing was changed.", f.name, n, f.limit, f.hint)
		}
	}
	return nil
}

// Hints of tooLong.
const (
	hintSubject     = "Give a short title and put the details in description."
	hintDescription = "Summarize it, and keep long material in a file that the description names."
	hintOwner       = "Use the agent's short name."
	hintID          = "Task ids are short: see TaskList."
)

// metadataTooLarge returns the error for metadata over maxTaskMetadata
// bytes as JSON, or nil. what names it ("metadata", "the task's metadata
// after the merge").
func metadataTooLarge(what string, m map[string]any) *tool.Chunk {
	if len(m) == 0 {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return tool.Errorf("Error: %s cannot be stored: %v", what, err)
	}
	if len(b) > maxTaskMetadata {
		return tool.Errorf("Error: %s is %d bytes as JSON, more than the %d a task keeps. Keep bulky data in a file and put its path in metadata. Nothing was changed.", what, len(b), maxTaskMetadata)
	}
	return nil
}

// The states of a task: it starts pending, goes in_progress, ends
// completed (TaskUpdate also takes "deleted", which removes it).
const (
	taskPending   = "pending"
	taskCompleted = "completed"
)

func findTask(tasks []Task, id string) int {
	return slices.IndexFunc(tasks, func(t Task) bool { return t.ID == id })
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

// taskListBroken is the answer of a task tool whose state holds a task
// list it cannot read (a state file edited by hand).
func taskListBroken(err error) *tool.Chunk {
	return tool.Errorf("Error: the agent's task list cannot be read (%v); it was left as it is. Tell the user: the state file's task list needs repair.", err)
}
