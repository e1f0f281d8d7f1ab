package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"iter"
	"regexp"
	"strings"

	"github.com/toolscope/toolscope/permission"
	"github.com/toolscope/toolscope/tool"
)

//go:embed bash_output.md
var bashOutputDescription string

var bashOutputSchema = json.RawMessage(`{"type":"object","properties":{
"bash_id":{"type":"string","minLength":1,"description":"The ID of the background shell to retrieve output from"},
"filter":{"type":"string","description":"Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read."}},
"required":["bash_id"]}`)

// BashOutput reads a background shell of the agent's (Bash with
// run_in_background): the output printed since the last read, the
// shell's status (running, completed, killed, failed) and exit code.
type BashOutput struct{}

// NewBashOutput returns the BashOutput tool (see [Options.Background]).
func NewBashOutput() *BashOutput { return &BashOutput{} }

// Info implements [tool.Tool].
func (*BashOutput) Info() tool.Info {
	return tool.Info{Name: "BashOutput", Title: "Read a background shell's output", Description: bashOutputDescription,
		InputSchema: bashOutputSchema, ConcurrencySafe: true, StateInjected: true, Annotations: hints(true, false, false, false)}
}

// CheckReadOnly implements [tool.ReadOnlyChecker]: it only reads.
func (*BashOutput) CheckReadOnly(context.Context, json.RawMessage) bool { return true }

// CheckPermissions implements [tool.Tool]: always allowed; it reads only
// the agent's own shells.
func (*BashOutput) CheckPermissions(context.Context, json.RawMessage, *permission.Context) (permission.Decision, error) {
	return permission.Decision{Behavior: permission.Allow, Message: "BashOutput only reads the agent's own background shells."}, nil
}

// Call implements [tool.Tool].
func (*BashOutput) Call(_ context.Context, call *tool.Call) iter.Seq2[*tool.Chunk, error] {
	return noted(bashOutputSchema, call.Input, runTask(call, func(st *tool.State) *tool.Chunk {
		var in struct {
			BashID string `json:"bash_id"`
			Filter string `json:"filter"`
		}
		if err := tool.DecodeInput(call.Input, &in); err != nil {
			return tool.Errorf("%v", err)
		}
		var re *regexp.Regexp
		if in.Filter != "" {
			var err error
			if re, err = regexp.Compile(in.Filter); err != nil {
				return tool.Errorf("Invalid filter regex %q: %v", in.Filter, err)
			}
		}
		sh, err := shellsOf(st).lookup(in.BashID)
		if err != nil {
			return tool.Errorf("%v", err)
		}
		return sh.report(re)
	}))
}

// report is what BashOutput answers about sh: its status, its exit code
// once it ended, the output not read yet (only the lines re matches,
// when re is set) and how much unread output was dropped.
func (sh *bgShell) report(re *regexp.Regexp) *tool.Chunk {
	// The status first: output read after it is at least all the output
	// of a shell it says has ended.
	status, code, notes := sh.state()
	out, dropped := sh.unread()
	readBytes := len(out)
	if re != nil && out != "" {
		var kept []string
		for line := range strings.Lines(out) {
			if re.MatchString(strings.TrimSuffix(line, "\n")) {
				kept = append(kept, line)
			}
		}
		out = strings.Join(kept, "")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<status>%s</status>\n", status)
	if status == shellCompleted || status == shellFailed {
		fmt.Fprintf(&b, "<exit_code>%d</exit_code>\n", code)
	}
	if dropped > 0 {
		fmt.Fprintf(&b, "<dropped>%d bytes of output were dropped before you read them: only the last %d bytes are kept.</dropped>\n", dropped, MaxShellOutput)
	}
	if out != "" {
		b.WriteString("<output>\n" + strings.TrimSuffix(out, "\n") + "\n</output>\n")
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	meta := map[string]any{"bash_id": sh.id, "status": status, "read_bytes": readBytes}
	if status == shellCompleted || status == shellFailed {
		meta["exit_code"] = code
	}
	if dropped > 0 {
		meta["dropped_bytes"] = dropped
	}
	sh.mu.Lock()
	for k, v := range sh.meta {
		meta[k] = v
	}
	sh.mu.Unlock()
	return &tool.Chunk{Content: []tool.Block{tool.TextBlock(strings.TrimSuffix(b.String(), "\n"))}, Metadata: meta}
}
